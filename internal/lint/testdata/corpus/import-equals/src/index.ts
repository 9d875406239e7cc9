// TypeScript's import-equals is a require at top level.
import sdk = require("@acme/sdk");
import type Types = require("@acme/sdk/types");

export const version: string = sdk.version;
export type Message = Types.Message;
