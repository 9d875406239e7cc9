interface Client {
  from(table: string): { select(cols: string): Promise<unknown> };
}

export async function history(db: Client) {
  return db.from("ai_messages").select("id, parts");
}
