// Shared by every view of the browser table: the language catalogues (t), DOM building (h), money,
// cards, the REST client, the server's clock and the server's refusals in the player's words.
// Plain JavaScript loaded as classic scripts (no build step, CSP script-src 'self'): the catalogues
// (static/i18n/*.js) first, then this file, roads.js, table.js and app.js.
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
    if (!wanted) continue;
    if (CATALOGUES[wanted]) return wanted;
    const base = wanted.toLowerCase().split("-")[0];
    const near = Object.keys(CATALOGUES).find((code) => code.toLowerCase().split("-")[0] === base);
    if (near) return near;
  }
  return "en";
}

function setLanguage(code) {
  if (!CATALOGUES[code]) return;
  lang = code;
  localStorage.setItem("lang", code);
  document.documentElement.lang = code;
}

function has(key) { return key in (CATALOGUES[lang] || {}) || key in CATALOGUES.en; }

/** The text of ``key`` in the language in use, with ``{name}`` filled from ``params``. */
function t(key, params) {
  const catalogue = CATALOGUES[lang] || {};
  let text = catalogue[key];
  if (text === undefined) {
    missingKeys.add(`${lang}:${key}`);
    text = CATALOGUES.en[key];
    if (text === undefined) return key;
  }
  const values = params || {};
  if (typeof text === "function") return text(values);
  return text.replace(/\{(\w+)\}/g, (whole, name) => (name in values ? String(values[name]) : whole));
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

/** Amount text as the server writes it ("1,234.50") -> minor units. */
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

let token = sessionStorage.getItem("token");

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

/** The table's wagers (name -> code), so that a server sentence naming a wager can name it in the
 *  player's language; filled from GET /api/games and each table view's ``wagers``. */
const wagerCodesByName = {};

function rememberWagers(wagers) {
  for (const wager of wagers || []) wagerCodesByName[wager.name.toLowerCase()] = wager.code;
}

function wagerName(code, fallback) {
  return has(`wager.${code}`) ? t(`wager.${code}`) : (fallback || code);
}

function wagerNameFromServer(name) {
  const code = wagerCodesByName[String(name).toLowerCase()];
  return code ? wagerName(code, name) : name;
}

/** A pay-table event ("Win by 9", "Banker wins") in the player's words. */
function eventName(event, code) {
  if (code && has(`event.${code}.${event}`)) return t(`event.${code}.${event}`);
  return has(`event.${event}`) ? t(`event.${event}`) : event;
}

/** A pay label ("1:1", "push", "loses") in the player's words. */
function paysLabel(label) {
  if (label == null) return "";
  if (has(`pays.${label}`)) return t(`pays.${label}`);
  const upTo = /^up to (.+)$/i.exec(label);
  return upTo ? t("pays.up_to", { pays: upTo[1] }) : label;
}

/** The games of the server's registry (GET /api/games): code -> {name, kind}. */
const gamesByCode = {};

function rememberGames(games) {
  for (const game of games || []) {
    gamesByCode[game.code] = { name: game.name, kind: game.kind };
    rememberWagers(game.wagers);
  }
}

/** A game's name: in the player's language for the built-in games, else as the registry names it. */
function gameName(code) {
  if (has(`game.${code}`)) return t(`game.${code}`);
  return (gamesByCode[code] && gamesByCode[code].name) || code;
}

/** Whether a game is dealt as Lucky Draw (a seat against the dealer) rather than punto banco. */
function isLuckyDraw(code) {
  return gamesByCode[code] ? gamesByCode[code].kind === "lucky_draw" : code === "lucky-draw";
}

/** Whether a table name is a game's default table ("ez-1"): it reads as its game and number. */
function defaultTable(name) {
  const match = /^([a-z][a-z0-9_-]*?)-(\d+)$/.exec(name || "");
  return match && (has(`game.${match[1]}`) || gamesByCode[match[1]]) ? match : null;
}

/** A table's name: the default tables ("ez-1") read as their game and number in every language. */
function tableName(name, game) {
  const match = defaultTable(name);
  if (match) return t("table.numbered", { game: gameName(match[1]), n: match[2] });
  return name || gameName(game);
}

// Known server sentences -> catalogue keys.  The server keeps its codes and words; until it sends a
// stable message code with parameters (see the README), its sentences are matched here so that a
// refusal reads in the player's language.  An unknown one is shown as the server wrote it.
const PERIOD_WORDS = { "24 hours": "day", "7 days": "week", "30 days": "month" };
const SERVER_SENTENCES = [
  [/^this bet of [\d,.]+ would pass your (loss|stake) limit of ([\d,.]+) per (24 hours|7 days|30 days): ([\d,.]+) is left/i,
   (m) => ["refuse.limit", { kind: t(`protect.kind.${m[1]}`).toLowerCase(), limit: money(parseAmount(m[2])),
                             period: t(`protect.period.${PERIOD_WORDS[m[3]]}`), left: money(parseAmount(m[4])) }]],
  [/^your (time-out|self-exclusion) runs until (\d{4}-\d\d-\d\d \d\d:\d\d) UTC/i,
   (m) => ["refuse.blocked", { until: new Date(m[2].replace(" ", "T") + ":00Z").toLocaleString(lang === "en" ? "en-GB" : lang,
                                                                                             { dateStyle: "medium", timeStyle: "short" }) }]],
  [/^the most you can add on (.+?) is ([\d,.]+)/i, (m) => ["refuse.room", { wager: wagerNameFromServer(m[1]), amount: money(parseAmount(m[2])) }]],
  [/^(.+) is at its maximum of ([\d,.]+)/i, (m) => ["bet.spot_full", { wager: wagerNameFromServer(m[1]), maximum: money(parseAmount(m[2])) }]],
  [/^the cards are still being dealt: decide in (\d+) s/i, (m) => ["refuse.decide_in", { seconds: m[1] }]],
  [/^(.+) bet ([\d,.]+) is below the table minimum of ([\d,.]+)$/i, (m) => ["refuse.minimum", { wager: wagerNameFromServer(m[1]), amount: money(parseAmount(m[2])), minimum: money(parseAmount(m[3])) }]],
  [/^(.+) bet ([\d,.]+) is above its maximum of ([\d,.]+)$/i, (m) => ["refuse.maximum", { wager: wagerNameFromServer(m[1]), amount: money(parseAmount(m[2])), maximum: money(parseAmount(m[3])) }]],
  [/^(.+) needs an? (.+) wager on the same seat$/i, (m) => ["refuse.requires", { wager: wagerNameFromServer(m[1]), base: wagerNameFromServer(m[2]) }]],
  [/^bets of ([\d,.]+) exceed the balance of ([\d,.]+)$/i, (m) => ["refuse.balance", { amount: money(parseAmount(m[1])), balance: money(parseAmount(m[2])) }]],
  [/^no more bets: betting closed for round (\d+)/i, (m) => ["refuse.closed_round", { round: m[1] }]],
  [/^round (\d+) is not open for bets yet/i, (m) => ["refuse.not_open_round", { round: m[1] }]],
  [/^betting opens in (\d+) s/i, (m) => ["refuse.opens_in", { seconds: m[1] }]],
  [/^no more bets/i, () => ["refuse.no_more_bets", {}]],
  [/^betting has not opened yet/i, () => ["refuse.not_open", {}]],
  [/^take a seat at the table first/i, () => ["refuse.sit_first", {}]],
  [/^the table is closed/i, () => ["refuse.table_closed", {}]],
  [/^the table is full/i, () => ["refuse.table_full", {}]],
  [/^seat (\d+) is taken/i, (m) => ["refuse.seat_taken", { seat: m[1] }]],
  [/^your bets are on the layout/i, () => ["refuse.leave_with_bets", {}]],
  [/^no decision is awaited/i, () => ["refuse.no_decision", {}]],
  [/^you have no Enter wager/i, () => ["refuse.no_enter", {}]],
  [/^you have already decided/i, () => ["refuse.decided", {}]],
  [/^the (.+) wager is placed by choosing to draw/i, () => ["refuse.draw_spot", {}]],
  [/^wrong username or password/i, () => ["login.wrong", {}]],
  [/^the username '(.+)' is taken/i, (m) => ["login.taken", { name: m[1] }]],
  [/^the username .* has \d+ characters/i, () => ["login.name_rule", {}]],
  [/^a username may not contain/i, () => ["login.name_rule", {}]],
  [/^a username is text/i, () => ["login.name_rule", {}]],
  [/^username: /i, () => ["login.name_rule", {}]],
  [/password.*(8|eight) (to 128 )?characters|^password: (at least|string should)/i, () => ["login.password_rule", {}]],
  [/password of spaces only/i, () => ["login.password_blank", {}]],
  [/password must not be the username/i, () => ["login.password_username", {}]],
  [/most common ones/i, () => ["login.password_common", {}]],
  [/try again in (\d+) seconds?$/i, (m) => ["refuse.rate", { seconds: m[1] }]],
  [/too many sign-ins at once/i, () => ["refuse.rate", { seconds: 3 }]],
  [/^the session token is unknown or expired|^log in first/i, () => ["login.again", {}]],
  [/^the table is busy/i, () => ["refuse.busy", {}]],
  [/^this idempotency key was used/i, () => ["refuse.busy", {}]],
];

/** A server refusal ({error, detail, message}) in the player's words. */
function refusalText(data) {
  if (!data) return t("refuse.generic");
  if (data.error === "NetworkError") return t("connection.lost");
  if (data.error === "Unavailable") return t("refuse.unavailable");
  const sentences = [data.message, typeof data.detail === "string" ? data.detail : null].filter(Boolean);
  if (Array.isArray(data.detail) && data.detail.length) {
    const first = data.detail[0];
    sentences.push(`${first.field || ""}: ${first.problem || ""}`.replace(/^body\./, ""));
  }
  for (const sentence of sentences) {
    for (const [pattern, make] of SERVER_SENTENCES) {
      const match = pattern.exec(sentence.trim());
      if (match) {
        const [key, params] = make(match);
        return t(key, params);
      }
    }
  }
  return sentences.length ? (lang === "en" ? sentences[0] : t("refuse.server_said", { message: sentences[0] })) : t("refuse.generic");
}

// Why each hand drew or stood: the server's sentences (tableau.py) in the player's words.
const REASONS = [
  [/^Natural: neither hand draws$/, () => ["reason.natural", {}]],
  [/^Player (draws|stands) on (\d)/, (m) => [`reason.player_${m[1]}`, { total: m[2] }]],
  [/^Banker (draws|stands) on (\d): the Player stood/, (m) => [`reason.banker_${m[1]}_player_stood`, { total: m[2] }]],
  [/^Banker (draws|stands) on (\d) with the Player's third card (\d) \(draws when it is (.+)\)$/,
   (m) => (m[4] === "none" || m[4] === "0, 1, 2, 3, 4, 5, 6, 7, 8, 9"
     ? [`reason.banker_${m[1]}_third_always`, { total: m[2], third: m[3] }]
                           : [`reason.banker_${m[1]}_third`, { total: m[2], third: m[3], values: m[4] }])],
];

function reasonText(sentence) {
  for (const [pattern, make] of REASONS) {
    const match = pattern.exec(sentence || "");
    if (match) {
      const [key, params] = make(match);
      return t(key, params);
    }
  }
  return sentence || "";
}
