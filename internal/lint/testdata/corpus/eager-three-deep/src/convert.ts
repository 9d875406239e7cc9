import { toParts } from "./parts.js";

export function convert(m: unknown) {
  return toParts(m);
}
