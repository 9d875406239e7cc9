declare const require: (id: string) => any;

export function lazyClient() {
  // Loaded when first called: fine.
  return require("@acme/sdk");
}

const sdk = require("@acme/sdk/runtime");

export const VERSION: string = sdk.version;
