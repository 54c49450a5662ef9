#!/usr/bin/env node
// The reference HAR validator rea's verdicts are compared with: the unchanged
// har-schema 2.0.0 draft-06 schemas, compiled by ajv 8.20.0 with the formats
// of ajv-formats 3.0.1 (default "full" mode).
//
// Input (stdin): JSON Lines, one document per line (the validation copy, with
// any producer-profile relaxation already applied by rea).
// Output (stdout): one JSON object per input line, in order:
//   {"valid": true} or {"valid": false, "errors": ["<instancePath> <keyword>", ...]}
"use strict";

const fs = require("fs");

const PINS = { ajv: "8.20.0", "ajv-formats": "3.0.1", "har-schema": "2.0.0" };
for (const [name, version] of Object.entries(PINS)) {
  const found = require(`${name}/package.json`).version;
  if (found !== version) {
    process.stderr.write(`tests/ajv: ${name} is ${found}, expected ${version}; run \`npm ci --prefix tests/ajv\`\n`);
    process.exit(3);
  }
}

const Ajv = require("ajv");
const addFormats = require("ajv-formats");
const draft06 = require("ajv/dist/refs/json-schema-draft-06.json");
const harSchema = require("har-schema");

// har-schema uses keywords no draft defines ("optional", "min", "unique"),
// which ajv's default strict mode refuses to compile; outside strict mode
// ajv ignores them, as JSON Schema says unknown keywords are ignored.
const ajv = new Ajv({ strict: false, allErrors: true });
ajv.addMetaSchema(draft06);
addFormats(ajv);
for (const schema of Object.values(harSchema)) {
  ajv.addSchema(schema);
}
const validate = ajv.getSchema("har.json");
if (!validate) {
  process.stderr.write("tests/ajv: har.json did not compile\n");
  process.exit(3);
}

const input = fs.readFileSync(0, "utf8");
const out = [];
for (const line of input.split("\n")) {
  if (line.length === 0) continue;
  const doc = JSON.parse(line);
  if (validate(doc)) {
    out.push(JSON.stringify({ valid: true }));
  } else {
    const errors = validate.errors.map((e) => `${e.instancePath} ${e.keyword}`);
    out.push(JSON.stringify({ valid: false, errors }));
  }
}
fs.writeFileSync(1, out.join("\n") + (out.length ? "\n" : ""));
