export interface CredentialRef {
  provider: string;
  [key: string]: unknown;
}
