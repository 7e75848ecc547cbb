// @ts-check
// The page's words: the language catalogues (t), money, and the server's codes (refusals, reasons, news) in the
// player's words, with the registry's names for games and wagers.  No DOM: the unit tests (tests/js) run it in
// Node.
import codes from "./i18n/codes.en.js";
import en from "./i18n/en.js";
import zhCN from "./i18n/zh-CN.js";
import zhHant from "./i18n/zh-Hant.js";

// ---------------------------------------------------------------- languages

// One catalogue per language, by its tag (a third language is one more file in i18n/ and its line here).
// English is the reference: a key missing from the language in use is recorded (missingKeys, which the
// browser tests read) and shown in English.
export const CATALOGUES = { en: { ...codes, ...en }, "zh-CN": zhCN, "zh-Hant": zhHant };
export const missingKeys = new Set();
/** The storage of this browser (none under Node, where the unit tests read the words in English). */
const storage = globalThis.localStorage;
export let lang = pickLanguage();

export function pickLanguage() {
  if (!storage) return "en";
  const saved = storage.getItem("lang");
  if (saved && CATALOGUES[saved]) return saved;
  for (const wanted of navigator.languages && navigator.languages.length ? navigator.languages : [navigator.language]) {
    const code = wanted && catalogueFor(wanted);
    if (code) return code;
  }
  return "en";
}

/** The catalogue for a browser's language tag: the tag itself; Chinese by its script, Traditional for Hong Kong,
 *  Macau and Taiwan (zh-HK, zh-MO, zh-TW, zh-Hant-*) and Simplified otherwise; else the first catalogue of the
 *  same language; null when there is none. */
export function catalogueFor(wanted) {
  if (CATALOGUES[wanted]) return wanted;
  const parts = wanted.toLowerCase().split("-");
  if (parts[0] === "zh") {
    const traditional = parts.includes("hant") || (!parts.includes("hans") && ["hk", "mo", "tw"].some((r) => parts.includes(r)));
    if (CATALOGUES[traditional ? "zh-Hant" : "zh-CN"]) return traditional ? "zh-Hant" : "zh-CN";
  }
  return Object.keys(CATALOGUES).find((code) => code.toLowerCase().split("-")[0] === parts[0]) || null;
}

/** The language whose words stand in for a name a game gives in no other: Simplified for Traditional (a rules
 *  file may name its wagers in Simplified only; a Traditional reader reads it before English). */
export const NEAREST = { "zh-Hant": "zh-CN", "zh-CN": "zh-Hant" };

/** A name in the player's language from a game's ``names`` (by language), or undefined. */
export function named(names) {
  return (names || {})[lang] || (names || {})[NEAREST[lang]];
}

export function setLanguage(code) {
  if (!CATALOGUES[code]) return;
  lang = code;
  if (storage) storage.setItem("lang", code);
  if (globalThis.document) document.documentElement.lang = code;
}

export function has(key) { return key in (CATALOGUES[lang] || {}) || key in CATALOGUES.en; }

/** The words of ``key`` in the language in use: a key missing there is recorded and taken from English. */
export function template(key) {
  const text = (CATALOGUES[lang] || {})[key];
  if (text !== undefined) return text;
  missingKeys.add(`${lang}:${key}`);
  return CATALOGUES.en[key];
}

// A placeholder: {name}, or {name:spec} with one of the server's format specs (baccarat.core.messages.SPECS),
// so that the server's English templates (codes.en.js) are read as they are written.
const PLACEHOLDER = /\{(\w+)(?::(\w+))?\}/g;

/** ``text`` with each placeholder filled from ``values``: by its spec, else by ``plain(name, value)``. */
export function fill(text, values, plain) {
  return text.replace(PLACEHOLDER, (whole, name, spec) => {
    if (!(name in values)) return whole;
    return spec ? specWord(name, values[name], spec) : plain(name, values[name]);
  });
}

/** The text of ``key`` in the language in use, with ``{name}`` filled from ``params`` (``{name:spec}`` by its spec). */
export function t(key, params) {
  const text = template(key);
  if (text === undefined) return key;
  const values = params || {};
  if (typeof text === "function") return text(values);
  return fill(text, values, (_name, value) => String(value));
}

export function money(minor) {
  const sign = minor < 0 ? "−" : "";
  return sign + (Math.abs(minor) / 100).toLocaleString(lang === "en" ? "en-US" : lang,
                                                       { minimumFractionDigits: 2, maximumFractionDigits: 2 });
}

/** Amount text as a player writes it ("1,234.50") -> minor units. */
export function parseAmount(words) { return Math.round(Number(String(words).replace(/,/g, "")) * 100); }

// ---------------------------------------------------------------- words for codes

/** The registry's words for the wagers (GET /api/games and each table view's ``wagers``): code -> its name, its
 *  names in the page's languages and its events' words by language.  The games' data says them, built-in games and
 *  rules files' alike: the catalogues hold none. */
const wagersByCode = {};

export function rememberWagers(wagers) {
  for (const wager of wagers || []) {
    wagersByCode[wager.code] = { name: wager.name, names: wager.names || {}, events: wager.event_names || {} };
  }
}

/** A wager's name in the player's language (its registry name where its game gives none in that language). */
export function wagerName(code, fallback) {
  const known = wagersByCode[code];
  return known ? named(known.names) || known.name : (fallback || code);
}

/** A pay-table event ("Win by 9", "Banker wins") in the player's words: the game's words for it in the player's
 *  language, else in English, else the event itself. */
export function eventName(event, code) {
  const events = (wagersByCode[code] || {}).events || {};
  return (events[lang] || {})[event] || (events[NEAREST[lang]] || {})[event] || (events.en || {})[event] || event;
}

/** A wager's pay table as players name it, from the registry's headline: "Draw: Lucky 7 (3-card 7) pays 2:1"
 * (never "pay table 1"); "" for a wager whose pay table has no name. */
export function paytableName(wager) {
  if (!wager || !wager.headline) return "";
  return t("paytable.named", { wager: wagerName(wager.code, wager.name), event: eventName(wager.headline.event, wager.code),
                               pays: paysLabel(wager.headline.label) });
}

/** A Lucky Draw table's DrawWin pay table by name (the Draw wager's headline), from the table's wagers. */
export function drawWinName(wagers) {
  return paytableName((wagers || []).find((w) => w.placed === "decision" && w.headline));
}

/** A pay label ("1:1", "push", "loses") in the player's words. */
export function paysLabel(label) {
  if (label == null) return "";
  if (has(`pays.${label}`)) return t(`pays.${label}`);
  const upTo = /^up to (.+)$/i.exec(label);
  return upTo ? t("pays.up_to", { pays: upTo[1] }) : label;
}

/** The games of the server's registry (GET /api/games): code -> {name, names, kind}. */
const gamesByCode = {};

export function rememberGames(games) {
  for (const game of games || []) {
    gamesByCode[game.code] = { name: game.name, names: game.names || {}, kind: game.kind };
    rememberWagers(game.wagers);
  }
}

/** A game's name in the player's language (its registry name where the game gives none in that language). */
export function gameName(code) {
  const known = gamesByCode[code];
  return known ? named(known.names) || known.name : code;
}

/** Whether a game is dealt as Lucky Draw (a seat against the dealer) rather than punto banco. */
export function isLuckyDraw(code) {
  return gamesByCode[code] ? gamesByCode[code].kind === "lucky_draw" : code === "lucky-draw";
}

/** Whether a table name is a game's default table ("ez-1"): it reads as its game and number. */
export function defaultTable(name) {
  const match = /^([a-z][a-z0-9_-]*?)-(\d+)$/.exec(name || "");
  return match && gamesByCode[match[1]] ? match : null;
}

/** A table's title at the table: its name as the registry's words give it ("EZ Baccarat table 1", the squeeze
 *  table's), or a name of the house's own with its game ("high-limit · EZ Baccarat"). */
export function tableTitle(name, game) {
  const named = tableName(name, game);
  return named !== name ? named : `${name} · ${gameName(game)}`;
}

/** A table's name: the default tables ("ez-1") read as their game and number in every language. */
export function tableName(name, game) {
  const match = defaultTable(name);
  if (match) return t("table.numbered", { game: gameName(match[1]), n: match[2] });
  const squeeze = /^([a-z][a-z0-9_]*)-squeeze$/.exec(name || "");  // the default squeeze table ("mini-squeeze")
  if (squeeze && gamesByCode[squeeze[1]]) return t("table.squeeze_name", { game: gameName(squeeze[1]) });
  return name || gameName(game);
}

// The server sends every refusal, every reason a hand drew or stood and every piece of table news as a
// stable code with parameters (machine values); the catalogues hold the words of each code (English: the
// server's own templates, codes.en.js).  A placeholder with a format spec reads its value as the server's
// English does ({amount:money}, {wager:name}, {wager:a_name}, {seconds:seconds}, {until:utc}, {x:list},
// {x:or_list}, {x:word}), in the player's language; a placeholder without one is worded by the parameter's
// name: amounts as money, wager and game codes by their names, times in local time, and a value the
// catalogue has words for (``word.<name>.<value>``) in those words.
const MONEY_PARAMS = new Set(["amount", "balance", "minimum", "maximum", "stake", "limit", "left", "enter", "room"]);

/** When ``iso`` (ISO 8601) falls, in the player's words, to the minute rounded up: an end (a break's) is
 *  never shown as a minute it still runs.  The one formatter of such times (the ``utc`` spec; the server's
 *  English ``utc`` rounds the same way), so a break's end reads the same in the banner and in a refusal. */
export function dateTime(iso) {
  const minute = 60000;
  const moment = new Date(Math.ceil(Date.parse(iso) / minute) * minute);
  return moment.toLocaleString(lang === "en" ? "en-GB" : lang, { dateStyle: "medium", timeStyle: "short" });
}

/** A code's value by its name: a wager or base wager by the wager's name, a game by the game's, else as it is. */
function nameWord(name, value) {
  if (typeof value !== "string") return String(value);
  if (name === "wager" || name === "base" || name === "wagers") return wagerName(value);
  if (name === "game" || name === "games") return gameName(value);
  return value;
}

/** A list's item: a wager's or game's name, else the catalogue's words for it (``word.<name>.<item>``), as the
 *  server's English does. */
function listWord(name, item) {
  return typeof item === "string" && has(`word.${name}.${item}`) ? t(`word.${name}.${item}`) : nameWord(name, item);
}

/** Items joined as a list ("a, b, c") or a choice ("a, b or c") in the player's language. */
function joined(words, spec) {
  if (spec !== "or_list" || words.length < 2) return words.join(t("list.comma"));
  return words.slice(0, -1).join(t("list.comma")) + t("list.or") + words[words.length - 1];
}

/** A parameter's value by its format spec (the server's: baccarat.core.messages), in the player's words. */
function specWord(name, value, spec) {
  switch (spec) {
    case "money": return Number.isInteger(value) ? money(value) : String(value);
    case "name": return nameWord(name, value);
    case "a_name": return t("spec.a_name", { name: nameWord(name, value) });
    case "seconds": return t("spec.seconds", { n: value });
    case "utc": return typeof value === "string" ? dateTime(value) : String(value);
    case "list":
    case "or_list": return joined((Array.isArray(value) ? value : [value]).map((item) => listWord(name, item)), spec);
    case "word": return value !== null && typeof value !== "object" && has(`word.${name}.${value}`)
      ? t(`word.${name}.${value}`) : String(value);
    default: return String(value);
  }
}

/** A parameter's value worded by its name (a placeholder without a spec in a code's words). */
function paramWord(name, value) {
  if (MONEY_PARAMS.has(name) && Number.isInteger(value)) return money(value);
  if ((name === "wager" || name === "base" || name === "game") && typeof value === "string") return nameWord(name, value);
  if (name === "wagers" && Array.isArray(value)) return joined(value.map((code) => wagerName(code)), "list");
  if (name === "until" && typeof value === "string") return dateTime(value);
  if (Array.isArray(value)) return joined(value.map(String), "list");
  if (value !== null && typeof value !== "object" && has(`word.${name}.${value}`)) return t(`word.${name}.${value}`);
  return String(value);
}

/** A code's parameters, each in the player's words by its name (for a code whose words are a function). */
export function codeParams(params) {
  const words = {};
  for (const [name, value] of Object.entries(params || {})) words[name] = paramWord(name, value);
  return words;
}

/** A code with its parameters (machine values) in the player's words, or ``fallback`` for a code this page
 *  does not know. */
export function codeText(code, params, fallback) {
  if (!code || !has(code)) return fallback;
  const text = template(code);
  const values = params || {};
  return typeof text === "function" ? text(codeParams(values)) : fill(text, values, paramWord);
}

// A 422 on these fields says the rule the page shows for them.
const FIELD_RULES = { username: "login.name_rule", password: "login.password_rule" };

/** A server refusal ({error, code, params, detail, message}) in the player's words; a code this page does
 *  not know is shown as the server worded it. */
export function refusalText(data) {
  if (!data) return t("refuse.generic");
  if (data.error === "NetworkError") return t("connection.lost");
  const params = data.params || {};
  if (data.code === "request.invalid" && FIELD_RULES[params.field]) return t(FIELD_RULES[params.field]);
  const said = data.message || (typeof data.detail === "string" ? data.detail : "");
  const fallback = said ? (lang === "en" ? said : t("refuse.server_said", { message: said })) : t("refuse.generic");
  return codeText(data.code, params, fallback);
}

/** Why a hand drew or stood ({code, params}; from the server's ``reason_codes``) in the player's words. */
export function reasonText(why, words) {
  return why ? codeText(why.code, why.params, words || "") : (words || "");
}
