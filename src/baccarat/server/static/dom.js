// @ts-check
// Building the page: DOM nodes from data (never HTML from strings), the live regions, and cards.
import { t } from "./i18n.js";

// ---------------------------------------------------------------- DOM

export function h(tag, attrs, ...children) {
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
export function refill(el, ...children) {
  el.replaceChildren(...children.flat().filter((child) => child != null && child !== false));
}

/** Sets an element's text only when it differs (no needless layout, no re-announcement). */
export function text(el, value) {
  const wanted = value == null ? "" : String(value);
  if (el.textContent !== wanted) el.textContent = wanted;
}

/** @type {ReturnType<typeof setTimeout> | undefined} */
let toastTimer;

export function toast(message) {
  const box = document.getElementById("toast");
  box.textContent = message;
  box.classList.add("show");
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => box.classList.remove("show"), 4000);
}

/** Says ``message`` to screen readers (the page's polite live region). */
export function announce(message) {
  const box = document.getElementById("announcer");
  box.textContent = "";
  setTimeout(() => { box.textContent = message; }, 30);  // a change, even when the words repeat
}

// ---------------------------------------------------------------- cards

export const SUITS = { s: "♠", h: "♥", d: "♦", c: "♣" };

export function rankOf(code) { return code[0] === "T" ? "10" : code[0]; }

/** "K♣" for "Kc". */
export function cardLabel(code) { return rankOf(code) + SUITS[code[1]]; }

/** "King of clubs" / "梅花K". */
export function cardName(code) { return t("card.name", { rank: t(`rank.${code[0]}`), suit: t(`suit.${code[1]}`) }); }

export function cardFace(code, extra) {
  const red = code[1] === "h" || code[1] === "d";
  return h("span", { class: `card ${red ? "red" : ""} ${extra || ""}`, "data-card": code, role: "img",
                     "aria-label": cardName(code) },
    h("span", { class: "rank", "aria-hidden": "true" }, rankOf(code)),
    h("span", { class: "suit", "aria-hidden": "true" }, SUITS[code[1]]));
}

export function cardBack() { return h("span", { class: "card back", role: "img", "aria-label": t("card.face_down") }); }

