import { Block } from "@acme/sdk/blocks";
export const block = new Block();
