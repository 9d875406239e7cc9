export type { ClientOptions } from "./client.js";
export { createClient } from "./client.js";
