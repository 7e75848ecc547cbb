// @ts-check
// Talking to the server: its clock (every view carries its time), the session token and the REST client.

import { rememberGames, refusalText, t } from "./i18n.js";

// ---------------------------------------------------------------- the server's clock

// Every view carries server_time, the moment it was computed for.  A sample (server time minus the
// local monotonic clock when it arrived) is the true offset less the delay on the way, so the largest
// recent sample is the best estimate; a view cached by the server (older than its sending) only lowers
// a sample and is outvoted.  Local wall-clock steps do not matter: performance.now() is monotonic.
const clockSamples = [];

export function syncClock(serverTime) {
  const at = Date.parse(serverTime);
  if (Number.isNaN(at)) return;
  const now = performance.now();
  clockSamples.push([now, at - now]);
  while (clockSamples.length && now - clockSamples[0][0] > 60000) clockSamples.shift();
}

/** Milliseconds since the epoch on the server's clock, now. */
export function serverNow() {
  if (!clockSamples.length) return Date.now();
  return performance.now() + Math.max(...clockSamples.map((sample) => sample[1]));
}

/** Whole seconds left until ``iso`` on the server clock (0 when past, null without a time). */
export function secondsUntil(iso) {
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
export let token = localStorage.getItem(TOKEN_KEY);

/** Keep (or, null, forget) the session token for every tab of this page in this browser. */
export function keepToken(value) {
  token = value;
  if (value) localStorage.setItem(TOKEN_KEY, value); else localStorage.removeItem(TOKEN_KEY);
}

// another tab signed in or out: this one follows
window.addEventListener("storage", (event) => {
  if (event.key !== TOKEN_KEY || event.newValue === token) return;
  token = event.newValue;
  window.dispatchEvent(new Event(token ? "signed-in" : "signed-out"));
});

export class ApiError extends Error {
  constructor(status, data) {
    super(refusalText(data));
    this.status = status;
    this.data = data;
  }
}

export async function api(method, path, body, key) {
  const headers = { "Content-Type": "application/json" };
  if (token) headers.Authorization = `Bearer ${token}`;
  if (key) headers["Idempotency-Key"] = key === true ? newKey() : key;
  let response;
  try {
    response = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  } catch {
    throw new ApiError(0, { error: "NetworkError", message: t("connection.lost") });
  }
  const data = response.status === 204 ? null : await response.json().catch(() => null);
  if (response.status === 401 && token && path !== "/api/sessions") { window.dispatchEvent(new Event("signed-out")); }
  if (!response.ok) throw new ApiError(response.status, data || { error: `HTTP ${response.status}` });
  return data;
}

export function newKey() {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

let gamesAsked = null;

/** The registry's games, asked once (a page that opens on a table knows its game's names before it draws). */
export function gamesKnown() {
  if (!gamesAsked) gamesAsked = api("GET", "/api/games").then(rememberGames).catch(() => { gamesAsked = null; });
  return gamesAsked;
}

