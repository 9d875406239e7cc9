import type { Message } from "@acme/sdk";
import { Block } from "@acme/sdk/blocks";

export function isTextBlock(m: unknown): m is Message {
  return m instanceof Block;
}
