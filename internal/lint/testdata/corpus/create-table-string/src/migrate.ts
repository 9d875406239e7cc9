interface Db {
  query(sql: string): Promise<unknown>;
}

// Run once at start-up.
export async function migrate(db: Db) {
  await db.query(`
    CREATE TABLE IF NOT EXISTS acme_sessions (
      id text primary key
    )`);
}
