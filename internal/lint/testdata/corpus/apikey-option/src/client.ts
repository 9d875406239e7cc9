import type { CredentialRef } from "./types.js";

/** ClientOptions configure the adapter's client. */
export interface ClientOptions {
  baseUrl?: string;
  credentialRef?: CredentialRef;
  apiKey?: string;
  getToken?(ref: CredentialRef, options: { token: string }): Promise<string>;
}

export function createClient(options: ClientOptions) {
  return options.baseUrl;
}
