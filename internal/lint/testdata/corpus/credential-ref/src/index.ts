export function startOptions(key: string) {
  return {
    idempotencyKey: key,
    credentialRef: { vault: "acme", key: "api" },
  };
}
