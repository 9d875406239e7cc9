import type * as Sdk from "@acme/sdk";
declare const require: (id: string) => any;

let cached: typeof Sdk | undefined;

/** load imports the SDK the first time it is needed. */
export async function load(): Promise<typeof Sdk> {
  cached ??= await import("@acme/sdk");
  return cached;
}

export const legacy = () => require("@acme/sdk/legacy");

export class Client {
  sdk() {
    return require("@acme/sdk");
  }
}

export const heavy = () => import("./heavy.js");
