export { fromSdk } from "./convert.js";
export type { Message } from "@acme/sdk";
export { Message as SdkMessage } from "@acme/sdk";
