// A dynamic import the module waits for loads the SDK with the module.
const sdk = await import("@acme/sdk");

export async function later() {
  return import("@acme/sdk/extras");
}
export const version: string = sdk.version;
