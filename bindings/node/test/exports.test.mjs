// The package's entry points: import and require give the same module
// instance, and the types ship next to the code.
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { describe, it } from "node:test";

import * as esm from "polymcp";

const require = createRequire(import.meta.url);

describe("entry points", () => {
  it("export the same names from import and require", () => {
    const cjs = require("polymcp");
    assert.deepEqual(Object.keys(esm).sort(), Object.keys(cjs).filter((k) => k !== "__esModule").sort());
  });

  it("share one module instance", () => {
    const cjs = require("polymcp");
    assert.equal(esm.McpServer, cjs.McpServer);
    assert.ok(new cjs.McpError(-32602, "x") instanceof esm.McpError);
  });

  it("ship their declaration files", () => {
    const pkg = require("../package.json");
    for (const target of Object.values(pkg.exports["."])) {
      assert.ok(existsSync(new URL(`../${target.types}`, import.meta.url)), target.types);
    }
  });
});
