export { load } from "./load.js";
