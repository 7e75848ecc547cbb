// @ts-check
// The page's shell that every view shares: where a view is shown, the signed-in player (session.me), the
// balance in the header and the connection notice.
import { money, t } from "./i18n.js";
import { text } from "./dom.js";

/** The signed-in player (GET /api/me), or null. */
export const session = { me: null };

export function show(...nodes) {
  document.getElementById("view").replaceChildren(...nodes);
}

export function setBalance(minor) {
  if (session.me) session.me.balance = minor;
  text(document.getElementById("balance"), money(minor));
}

/** The "Connection lost, reconnecting…" notice. */
export function connection(lost, words) {
  const box = document.getElementById("connection");
  if (lost) text(box, words || t("connection.lost"));
  box.hidden = !lost;
  document.body.classList.toggle("offline", lost);
}
