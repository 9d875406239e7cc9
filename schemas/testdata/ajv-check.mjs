// Validates every message of a cases file with ajv's draft 2020-12 class,
// the validator upstream uses, and prints one JSON verdict per message.
// Usage: node ajv-check.mjs NODE_MODULES_DIR SCHEMA.json CASES.json
import { createRequire } from "node:module";
import { readFileSync } from "node:fs";

const [modules, schemaPath, casesPath] = process.argv.slice(2);
const require = createRequire(modules.replace(/\/?$/, "/"));
const Ajv2020 = require("ajv/dist/2020").default;

const ajv = new Ajv2020({ allErrors: true });
const validate = ajv.compile(JSON.parse(readFileSync(schemaPath, "utf8")));
const cases = JSON.parse(readFileSync(casesPath, "utf8"));
const out = [];
for (const c of [...cases.valid, ...cases.invalid]) {
  const ok = validate(c.message);
  out.push({ name: c.name, valid: ok, errors: ok ? [] : validate.errors.map((e) => `${e.instancePath} ${e.message}`) });
}
process.stdout.write(JSON.stringify(out));
