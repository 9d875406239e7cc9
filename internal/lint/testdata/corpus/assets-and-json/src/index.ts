import logo from "./logo.svg";
import defaults from "./defaults.json";
import prompt from "./prompt.md";

export const meta = { logo, defaults, prompt };
