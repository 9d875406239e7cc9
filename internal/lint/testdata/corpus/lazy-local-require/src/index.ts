declare const require: (id: string) => any;

// The SDK-heavy module is loaded on first use.
export function heavy(): unknown {
  return require("./heavy.js");
}
