// @ts-check
// The page's catalogues (static/i18n/*.js, read through static/i18n.js): every language has every key, a
// translation fills only the placeholders English fills, and the words module picks, fills and falls back as the
// page needs.
import assert from "node:assert/strict";
import { test } from "node:test";
import {
  CATALOGUES, catalogueFor, codeText, has, missingKeys, money, rememberGames, setLanguage, t, tableTitle,
} from "../../src/baccarat/server/static/i18n.js";

const LANGUAGES = Object.keys(CATALOGUES);

/** The names a text fills ({name} or {name:spec}); a function's are unknown (null). */
function placeholders(/** @type {unknown} */ text) {
  if (typeof text !== "string") return null;
  return new Set([...text.matchAll(/\{(\w+)(?::\w+)?\}/g)].map((m) => m[1]));
}

test("English, Simplified and Traditional Chinese, each with every key of the others", () => {
  assert.deepEqual(LANGUAGES, ["en", "zh-CN", "zh-Hant"]);
  const english = new Set(Object.keys(CATALOGUES.en));
  assert.ok(english.size > 800, `${english.size} keys`);
  for (const language of LANGUAGES) {
    const keys = new Set(Object.keys(CATALOGUES[language]));
    assert.deepEqual([...english].filter((key) => !keys.has(key)), [], `missing in ${language}`);
    assert.deepEqual([...keys].filter((key) => !english.has(key)), [], `only in ${language}`);
    assert.equal(typeof CATALOGUES[language]._name, "string");
  }
});

test("a translation fills no placeholder that the English does not", () => {
  const wrong = [];
  for (const language of LANGUAGES.filter((code) => code !== "en")) {
    for (const [key, text] of Object.entries(CATALOGUES[language])) {
      const theirs = placeholders(text);
      const ours = placeholders(CATALOGUES.en[key]);
      if (!theirs || !ours) continue;
      const extra = [...theirs].filter((name) => !ours.has(name));
      if (extra.length) wrong.push(`${language} ${key}: {${extra.join("}, {")}}`);
    }
  }
  assert.deepEqual(wrong, []);
});

/** The parameters a word given as a function reads (``p.name`` or ``({name})``), each with a value: a count
 *  for the names that count, words for the others (as the page passes them). */
function paramsOf(/** @type {Function} */ words) {
  const source = words.toString();
  const names = [...source.matchAll(/\bp\.(\w+)/g)].map((m) => m[1])
    .concat(...[...source.matchAll(/^\(?\{([^}]*)\}/g)].map((m) => m[1].split(",").map((name) => name.trim())));
  const counts = new Set(["n", "count", "minutes", "round", "position", "players", "bets", "seats", "seeds"]);
  return Object.fromEntries(names.filter(Boolean).map((name) => [name, counts.has(name) ? 2 : `<${name}>`]));
}

test("every word given as a function gives words for its parameters, in every language", () => {
  for (const language of LANGUAGES) {
    for (const [key, text] of Object.entries(CATALOGUES[language])) {
      if (typeof text !== "function") continue;
      const params = paramsOf(text);
      const words = text(params);
      assert.equal(typeof words, "string", `${language} ${key}`);
      assert.ok(words.length > 0 && !/undefined|NaN|\[object/.test(words), `${language} ${key}: ${words}`);
    }
  }
});

test("a browser's language picks its catalogue: Traditional for Hong Kong, Macau and Taiwan", () => {
  assert.equal(catalogueFor("en-GB"), "en");
  assert.equal(catalogueFor("zh-CN"), "zh-CN");
  assert.equal(catalogueFor("zh-SG"), "zh-CN");
  for (const tag of ["zh-HK", "zh-MO", "zh-TW", "zh-Hant-HK"]) assert.equal(catalogueFor(tag), "zh-Hant", tag);
  assert.equal(catalogueFor("zh-Hans-HK"), "zh-CN");
  assert.equal(catalogueFor("fr-FR"), null);
});

test("words are filled from their parameters, money as money, and a server code by its own words", () => {
  setLanguage("en");
  assert.equal(t("phase.round", { n: 12 }), "round 12");
  assert.equal(money(123_456), "1,234.56");
  assert.equal(money(-50), "−0.50");
  assert.equal(codeText("bet.balance_used_up", { amount: 2_500 }, "?"),
               "Your balance is used up: 25.00 cannot be staked until you add funds.");
  assert.equal(codeText("nothing.known", {}, "fallback"), "fallback");
  assert.ok(has("bet.placed") && !has("nothing.known"));
  setLanguage("zh-Hant");
  assert.notEqual(t("phase.round", { n: 12 }), "round 12");
  assert.match(t("phase.round", { n: 12 }), /12/);
  setLanguage("en");
});

test("a key missing in the language in use is read in English and recorded", () => {
  setLanguage("zh-CN");
  const saved = CATALOGUES["zh-CN"]["phase.round"];
  delete CATALOGUES["zh-CN"]["phase.round"];
  try {
    assert.equal(t("phase.round", { n: 3 }), "round 3");
    assert.ok(missingKeys.has("zh-CN:phase.round"));
  } finally {
    CATALOGUES["zh-CN"]["phase.round"] = saved;
    missingKeys.clear();
    setLanguage("en");
  }
});

test("a table's title: the registry's words for the default and squeeze tables, a house's own name with its game", () => {
  rememberGames([{ code: "mini", name: "Mini-Baccarat", names: { "zh-CN": "迷你百家乐", "zh-Hant": "迷你百家樂" },
                   kind: "punto_banco", wagers: [] }]);
  setLanguage("en");
  assert.equal(tableTitle("mini-2", "mini"), "Mini-Baccarat table 2");
  assert.equal(tableTitle("mini-squeeze", "mini"), "Mini-Baccarat Squeeze");
  assert.equal(tableTitle("high-limit", "mini"), "high-limit · Mini-Baccarat");
  setLanguage("zh-Hant");
  assert.equal(tableTitle("mini-squeeze", "mini"), "迷你百家樂 咪牌桌");
  assert.doesNotMatch(tableTitle("mini-2", "mini"), /mini/);
  setLanguage("en");
});
