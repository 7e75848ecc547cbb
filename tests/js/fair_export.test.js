// @ts-check
// The page's check of a signed history export (fair_export.js) on exports the server's own code signed
// (tests/js/cases/export.json, written by tests/js/export_cases.py and checked current by test_export_cases.py).
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";

import { canonicalText, checkExport } from "../../src/baccarat/server/static/fair_export.js";

const written = JSON.parse(readFileSync(new URL("./cases/export.json", import.meta.url), "utf8"));

for (const c of written.cases) {
  test(`the canonical text of an export: ${c.name}`, () => {
    assert.equal(canonicalText(c.text, "signature"), c.canonical);
  });
  test(`the check says what the server's signing says: ${c.name}`, async () => {
    const checked = await checkExport(c.text, written.key);
    assert.equal(checked.code, c.code);
    assert.equal(checked.ok, c.code === "fair.export_signed");
  });
}

test("a file that is not JSON is unreadable, and a signature of the wrong length is an edit", async () => {
  assert.equal((await checkExport("{\"rounds\": [1, 2,]}", written.key)).code, "fair.export_unreadable");
  assert.equal((await checkExport("not json", written.key)).code, "fair.export_unreadable");
  const signed = JSON.parse(written.cases[0].text);
  signed.signature.value = signed.signature.value.slice(2);
  assert.equal((await checkExport(JSON.stringify(signed), written.key)).code, "fair.export_edited");
});

test("canonical text keeps numbers as written and refuses what is not JSON", () => {
  assert.equal(canonicalText("{ \"b\": 1.0, \"a\": [1e-05, -0, true, null, \"\\u00e9\"] }"),
    "{\"a\":[1e-05,-0,true,null,\"é\"],\"b\":1.0}");
  assert.throws(() => canonicalText("{\"a\": 01}"), SyntaxError);
  assert.throws(() => canonicalText("[1] [2]"), SyntaxError);
});
