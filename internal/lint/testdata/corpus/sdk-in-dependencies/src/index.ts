import type { Message } from "@acme/sdk";

export function id(m: Message): Message {
  return m;
}
