import { isTextBlock } from "./blocks.js";

export function toParts(m: unknown) {
  return isTextBlock(m) ? [m] : [];
}
