export function openStream(id: string) {
  return { id };
}
