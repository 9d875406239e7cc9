// The adapter's public surface.
export { convert } from "./convert.js";
