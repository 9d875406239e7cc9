interface Registry {
  record(run: { engine: string; externalId: string; attributes?: Record<string, unknown> }): Promise<void>;
}

export async function started(registry: Registry, id: string, key: string) {
  await registry.record({
    engine: "acme",
    externalId: id,
    attributes: { region: "eu", nextPageToken: "p2", accessToken: key },
  });
}
