// `vsce package` runs this first: the published JSON Schemas (../../schemas) are copied into
// the extension, where its jsonValidation and yamlValidation contributions point, and the
// project's LICENSE beside them.
"use strict";

const fs = require("fs");
const path = require("path");

const source = path.join(__dirname, "..", "..", "schemas");
const target = path.join(__dirname, "schemas");
fs.mkdirSync(target, { recursive: true });
for (const name of fs.readdirSync(source)) {
  if (name.endsWith(".schema.json")) {
    fs.copyFileSync(path.join(source, name), path.join(target, name));
  }
}
fs.copyFileSync(path.join(__dirname, "..", "..", "LICENSE"), path.join(__dirname, "LICENSE"));
