// Shared by every view of the browser table: the language catalogues (t), DOM building (h), money,
// cards, the REST client, the server's clock and the server's refusals in the player's words.
// Plain JavaScript loaded as classic scripts (no build step, CSP script-src 'self'): the catalogues
// (static/i18n/*.js: codes.en.js, generated from the server's catalogue, then en.js and the other languages)
// first, then this file, roads.js, table.js and app.js.
"use strict";

// ---------------------------------------------------------------- languages

// Each catalogue registers itself in window.BACCARAT_I18N under its language tag; a third language is
// one more catalogue file (and its <script> line in index.html).  English is the reference: a key
// missing from the language in use is recorded (window.baccaratMissing) and shown in English.
const CATALOGUES = window.BACCARAT_I18N || {};
const missingKeys = new Set();
window.baccaratMissing = missingKeys;
let lang = pickLanguage();

function pickLanguage() {
  const saved = localStorage.getItem("lang");
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
function catalogueFor(wanted) {
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
const NEAREST = { "zh-Hant": "zh-CN", "zh-CN": "zh-Hant" };

/** A name in the player's language from a game's ``names`` (by language), or undefined. */
function named(names) {
  return (names || {})[lang] || (names || {})[NEAREST[lang]];
}

function setLanguage(code) {
  if (!CATALOGUES[code]) return;
  lang = code;
  localStorage.setItem("lang", code);
  document.documentElement.lang = code;
}

function has(key) { return key in (CATALOGUES[lang] || {}) || key in CATALOGUES.en; }

/** The words of ``key`` in the language in use: a key missing there is recorded and taken from English. */
function template(key) {
  const text = (CATALOGUES[lang] || {})[key];
  if (text !== undefined) return text;
  missingKeys.add(`${lang}:${key}`);
  return CATALOGUES.en[key];
}

// A placeholder: {name}, or {name:spec} with one of the server's format specs (baccarat.core.messages.SPECS),
// so that the server's English templates (codes.en.js) are read as they are written.
const PLACEHOLDER = /\{(\w+)(?::(\w+))?\}/g;

/** ``text`` with each placeholder filled from ``values``: by its spec, else by ``plain(name, value)``. */
function fill(text, values, plain) {
  return text.replace(PLACEHOLDER, (whole, name, spec) => {
    if (!(name in values)) return whole;
    return spec ? specWord(name, values[name], spec) : plain(name, values[name]);
  });
}

/** The text of ``key`` in the language in use, with ``{name}`` filled from ``params`` (``{name:spec}`` by its spec). */
function t(key, params) {
  const text = template(key);
  if (text === undefined) return key;
  const values = params || {};
  if (typeof text === "function") return text(values);
  return fill(text, values, (name, value) => String(value));
}

// ---------------------------------------------------------------- DOM

function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs || {})) {
    if (name === "class") el.className = value;
    else if (name.startsWith("on")) el.addEventListener(name.slice(2), value);
    else if (name === "style") Object.assign(el.style, value);  // CSSOM: allowed under style-src 'self'
    else if (value === true) el.setAttribute(name, "");
    else if (value !== false && value != null) el.setAttribute(name, value);
  }
  for (const child of children.flat()) {
    if (child != null && child !== false) el.append(child instanceof Node ? child : String(child));
  }
  return el;
}

/** Replace ``el``'s children with ``children`` by h()'s rule: arrays flattened, null and false left out
 *  (replaceChildren itself writes a null out as the text "null"). */
function refill(el, ...children) {
  el.replaceChildren(...children.flat().filter((child) => child != null && child !== false));
}

/** Sets an element's text only when it differs (no needless layout, no re-announcement). */
function text(el, value) {
  const wanted = value == null ? "" : String(value);
  if (el.textContent !== wanted) el.textContent = wanted;
}

function money(minor) {
  const sign = minor < 0 ? "−" : "";
  return sign + (Math.abs(minor) / 100).toLocaleString(lang === "en" ? "en-US" : lang,
                                                       { minimumFractionDigits: 2, maximumFractionDigits: 2 });
}

/** Amount text as a player writes it ("1,234.50") -> minor units. */
function parseAmount(words) { return Math.round(Number(String(words).replace(/,/g, "")) * 100); }

function newKey() {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

function toast(message) {
  const box = document.getElementById("toast");
  box.textContent = message;
  box.classList.add("show");
  clearTimeout(toast.timer);
  toast.timer = setTimeout(() => box.classList.remove("show"), 4000);
}

/** Says ``message`` to screen readers (the page's polite live region). */
function announce(message) {
  const box = document.getElementById("announcer");
  box.textContent = "";
  setTimeout(() => { box.textContent = message; }, 30);  // a change, even when the words repeat
}

// ---------------------------------------------------------------- cards

const SUITS = { s: "♠", h: "♥", d: "♦", c: "♣" };

function rankOf(code) { return code[0] === "T" ? "10" : code[0]; }

/** "K♣" for "Kc". */
function cardLabel(code) { return rankOf(code) + SUITS[code[1]]; }

/** "King of clubs" / "梅花K". */
function cardName(code) { return t("card.name", { rank: t(`rank.${code[0]}`), suit: t(`suit.${code[1]}`) }); }

function cardFace(code, extra) {
  const red = code[1] === "h" || code[1] === "d";
  return h("span", { class: `card ${red ? "red" : ""} ${extra || ""}`, "data-card": code, role: "img",
                     "aria-label": cardName(code) },
    h("span", { class: "rank", "aria-hidden": "true" }, rankOf(code)),
    h("span", { class: "suit", "aria-hidden": "true" }, SUITS[code[1]]));
}

function cardBack() { return h("span", { class: "card back", role: "img", "aria-label": t("card.face_down") }); }

// ---------------------------------------------------------------- the server's clock

// Every view carries server_time, the moment it was computed for.  A sample (server time minus the
// local monotonic clock when it arrived) is the true offset less the delay on the way, so the largest
// recent sample is the best estimate; a view cached by the server (older than its sending) only lowers
// a sample and is outvoted.  Local wall-clock steps do not matter: performance.now() is monotonic.
const clockSamples = [];

function syncClock(serverTime) {
  const at = Date.parse(serverTime);
  if (Number.isNaN(at)) return;
  const now = performance.now();
  clockSamples.push([now, at - now]);
  while (clockSamples.length && now - clockSamples[0][0] > 60000) clockSamples.shift();
}

/** Milliseconds since the epoch on the server's clock, now. */
function serverNow() {
  if (!clockSamples.length) return Date.now();
  return performance.now() + Math.max(...clockSamples.map((sample) => sample[1]));
}

/** Whole seconds left until ``iso`` on the server clock (0 when past, null without a time). */
function secondsUntil(iso) {
  if (!iso) return null;
  return Math.max(0, Math.ceil((Date.parse(iso) - serverNow()) / 1000));
}

// ---------------------------------------------------------------- REST

// The session token.  The table keeps it in this browser's localStorage, so every tab of the table is signed in
// with one log-in and a log-out in one tab signs out all of them (the "storage" event); the operator console keeps
// its own under another key (staff never play, and a console tab never signs a player's tab out).  Only the
// page's own scripts can read it: the server's Content-Security-Policy runs no script but the page's files
// (script-src 'self': no inline script, no eval, no other origin), and the server ends a session at its expiry
// and at a log-out, whatever a browser kept.
const TOKEN_KEY = location.pathname.startsWith("/operator") ? "staff-token" : "token";
let token = localStorage.getItem(TOKEN_KEY);

/** Keep (or, null, forget) the session token for every tab of this page in this browser. */
function keepToken(value) {
  token = value;
  if (value) localStorage.setItem(TOKEN_KEY, value); else localStorage.removeItem(TOKEN_KEY);
}

// another tab signed in or out: this one follows
window.addEventListener("storage", (event) => {
  if (event.key !== TOKEN_KEY || event.newValue === token) return;
  token = event.newValue;
  window.dispatchEvent(new Event(token ? "signed-in" : "signed-out"));
});

class ApiError extends Error {
  constructor(status, data) {
    super(refusalText(data));
    this.status = status;
    this.data = data;
  }
}

async function api(method, path, body, key) {
  const headers = { "Content-Type": "application/json" };
  if (token) headers.Authorization = `Bearer ${token}`;
  if (key) headers["Idempotency-Key"] = key === true ? newKey() : key;
  let response;
  try {
    response = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  } catch (error) {
    throw new ApiError(0, { error: "NetworkError", message: t("connection.lost") });
  }
  const data = response.status === 204 ? null : await response.json().catch(() => null);
  if (response.status === 401 && token && path !== "/api/sessions") { window.dispatchEvent(new Event("signed-out")); }
  if (!response.ok) throw new ApiError(response.status, data || { error: `HTTP ${response.status}` });
  return data;
}

// ---------------------------------------------------------------- words for codes

/** The registry's words for the wagers (GET /api/games and each table view's ``wagers``): code -> its name, its
 *  names in the page's languages and its events' words by language.  The games' data says them, built-in games and
 *  rules files' alike: the catalogues hold none. */
const wagersByCode = {};

function rememberWagers(wagers) {
  for (const wager of wagers || []) {
    wagersByCode[wager.code] = { name: wager.name, names: wager.names || {}, events: wager.event_names || {} };
  }
}

/** A wager's name in the player's language (its registry name where its game gives none in that language). */
function wagerName(code, fallback) {
  const known = wagersByCode[code];
  return known ? named(known.names) || known.name : (fallback || code);
}

/** A pay-table event ("Win by 9", "Banker wins") in the player's words: the game's words for it in the player's
 *  language, else in English, else the event itself. */
function eventName(event, code) {
  const events = (wagersByCode[code] || {}).events || {};
  return (events[lang] || {})[event] || (events[NEAREST[lang]] || {})[event] || (events.en || {})[event] || event;
}

/** A wager's pay table as players name it, from the registry's headline: "Draw: Lucky 7 (3-card 7) pays 2:1"
 * (never "pay table 1"); "" for a wager whose pay table has no name. */
function paytableName(wager) {
  if (!wager || !wager.headline) return "";
  return t("paytable.named", { wager: wagerName(wager.code, wager.name), event: eventName(wager.headline.event, wager.code),
                               pays: paysLabel(wager.headline.label) });
}

/** A Lucky Draw table's DrawWin pay table by name (the Draw wager's headline), from the table's wagers. */
function drawWinName(wagers) {
  return paytableName((wagers || []).find((w) => w.placed === "decision" && w.headline));
}

/** A pay label ("1:1", "push", "loses") in the player's words. */
function paysLabel(label) {
  if (label == null) return "";
  if (has(`pays.${label}`)) return t(`pays.${label}`);
  const upTo = /^up to (.+)$/i.exec(label);
  return upTo ? t("pays.up_to", { pays: upTo[1] }) : label;
}

/** The games of the server's registry (GET /api/games): code -> {name, names, kind}. */
const gamesByCode = {};
let gamesAsked = null;

function rememberGames(games) {
  for (const game of games || []) {
    gamesByCode[game.code] = { name: game.name, names: game.names || {}, kind: game.kind };
    rememberWagers(game.wagers);
  }
}

/** The registry's games, asked once (a page that opens on a table knows its game's names before it draws). */
function gamesKnown() {
  if (!gamesAsked) gamesAsked = api("GET", "/api/games").then(rememberGames).catch(() => { gamesAsked = null; });
  return gamesAsked;
}

/** A game's name in the player's language (its registry name where the game gives none in that language). */
function gameName(code) {
  const known = gamesByCode[code];
  return known ? named(known.names) || known.name : code;
}

/** Whether a game is dealt as Lucky Draw (a seat against the dealer) rather than punto banco. */
function isLuckyDraw(code) {
  return gamesByCode[code] ? gamesByCode[code].kind === "lucky_draw" : code === "lucky-draw";
}

/** Whether a table name is a game's default table ("ez-1"): it reads as its game and number. */
function defaultTable(name) {
  const match = /^([a-z][a-z0-9_-]*?)-(\d+)$/.exec(name || "");
  return match && gamesByCode[match[1]] ? match : null;
}

/** A table's name: the default tables ("ez-1") read as their game and number in every language. */
function tableName(name, game) {
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
const MONEY_PARAMS = new Set(["amount", "balance", "minimum", "maximum", "stake", "limit", "left", "enter"]);

/** When ``iso`` (ISO 8601) falls, in the player's words, to the minute rounded up: an end (a break's) is
 *  never shown as a minute it still runs.  The one formatter of such times (the ``utc`` spec; the server's
 *  English ``utc`` rounds the same way), so a break's end reads the same in the banner and in a refusal. */
function dateTime(iso) {
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
function codeParams(params) {
  const words = {};
  for (const [name, value] of Object.entries(params || {})) words[name] = paramWord(name, value);
  return words;
}

/** A code with its parameters (machine values) in the player's words, or ``fallback`` for a code this page
 *  does not know. */
function codeText(code, params, fallback) {
  if (!code || !has(code)) return fallback;
  const text = template(code);
  const values = params || {};
  return typeof text === "function" ? text(codeParams(values)) : fill(text, values, paramWord);
}

// A 422 on these fields says the rule the page shows for them.
const FIELD_RULES = { username: "login.name_rule", password: "login.password_rule" };

/** A server refusal ({error, code, params, detail, message}) in the player's words; a code this page does
 *  not know is shown as the server worded it. */
function refusalText(data) {
  if (!data) return t("refuse.generic");
  if (data.error === "NetworkError") return t("connection.lost");
  const params = data.params || {};
  if (data.code === "request.invalid" && FIELD_RULES[params.field]) return t(FIELD_RULES[params.field]);
  const said = data.message || (typeof data.detail === "string" ? data.detail : "");
  const fallback = said ? (lang === "en" ? said : t("refuse.server_said", { message: said })) : t("refuse.generic");
  return codeText(data.code, params, fallback);
}

/** Why a hand drew or stood ({code, params}; from the server's ``reason_codes``) in the player's words. */
function reasonText(why, words) {
  return why ? codeText(why.code, why.params, words || "") : (words || "");
}
