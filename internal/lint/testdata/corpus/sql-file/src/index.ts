export const NAME = "acme";
