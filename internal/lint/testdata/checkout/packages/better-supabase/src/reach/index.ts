import type { Message } from "@acme/sdk";
import { openStream } from "../streams/store.js";

export function start(m: Message) {
  return openStream(String(m));
}
