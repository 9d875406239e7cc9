export { openStream } from "./store.js";
