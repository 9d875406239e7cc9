export { helper } from "./legacy.cjs";
