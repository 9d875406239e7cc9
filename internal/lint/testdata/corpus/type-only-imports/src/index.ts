import type { Message } from "@acme/sdk";
import { type Part } from "@acme/sdk/parts";
// Used only as a type: TypeScript drops the import.
import { Block } from "@acme/sdk/blocks";
export type { Chunk } from "@acme/sdk/chunks";

export function parts(m: Message, b?: Block): Part[] {
  return (m as unknown as { parts: Part[] }).parts ?? (b ? [] : []);
}
