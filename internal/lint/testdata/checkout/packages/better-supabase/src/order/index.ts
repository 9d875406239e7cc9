import type { Message } from "@acme/sdk";
import { openStream } from "../streams/index.js";

export function start(m: Message) {
  return openStream(String(m));
}
