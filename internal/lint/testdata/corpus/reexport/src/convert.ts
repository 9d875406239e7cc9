import type { Message } from "@acme/sdk";

export function fromSdk(m: Message) {
  return m;
}
