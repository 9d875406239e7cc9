declare const require: (id: string) => any;

export function later(): unknown {
  return require("./heavy.js");
}
export const now = require("./heavy.js");
