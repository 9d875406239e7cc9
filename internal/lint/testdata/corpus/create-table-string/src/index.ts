export { migrate } from "./migrate.js";
