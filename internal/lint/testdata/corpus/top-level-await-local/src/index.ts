const heavy = await import("./heavy.js");
export const block = heavy.block;
