// @ts-check
// Your history, signed by the house: download it, and check an export's signature in the page (docs/fairness.md,
// "Signed exports").  `baccarat verify --key` checks the same signature and every round besides.
//
// The signature is Ed25519 over "baccarat history export", a newline and the export's canonical JSON: sorted keys,
// no spaces, the signature member left out.  The canonical text is made from the export's own text (its numbers
// kept exactly as written: a number read into JavaScript and written out again may not be the same characters),
// so the check needs no Python and trusts no module of the table (only fair.js's hex reading); its words are the
// catalogues' fair.export_* keys.  Importing it touches no document (tests/js/fair_export.test.js imports it in Node).
import { unhex } from "./fair.js";
import { t } from "./i18n.js";

/** What the signature covers, before the newline and the export's canonical JSON. */
export const LABEL = "baccarat history export";

/** @typedef {import("api-types").components["schemas"]["HouseKey"]} HouseKey  GET /api/fairness/key */
/** @typedef {{ ok: boolean, code: string, params?: Record<string, string> }} Checked */

/**
 * The canonical JSON of a JSON text (Python's ``json.dumps(value, sort_keys=True, separators=(",", ":"),
 * ensure_ascii=False)``), numbers written as the text wrote them; ``leave`` is a top-level member left out.
 * Throws a SyntaxError when the text is not JSON.
 * @param {string} text
 * @param {string} [leave]
 * @returns {string}
 */
export function canonicalText(text, leave) {
  let at = 0;
  const space = () => { while (at < text.length && " \t\n\r".includes(text[at])) at += 1; };
  const fail = () => { throw new SyntaxError(`not JSON at character ${at}`); };
  /** @returns {string} */
  function value(depth) {
    space();
    const c = text[at];
    if (c === "{") {
      at += 1;
      /** @type {[string, string][]} */
      const members = [];
      space();
      if (text[at] === "}") { at += 1; return "{}"; }
      for (;;) {
        space();
        if (text[at] !== "\"") fail();
        const name = JSON.parse(string());
        space();
        if (text[at] !== ":") fail();
        at += 1;
        const inner = value(depth + 1);
        if (!(depth === 0 && name === leave)) members.push([name, inner]);
        space();
        if (text[at] === ",") { at += 1; continue; }
        if (text[at] === "}") { at += 1; break; }
        fail();
      }
      // Python sorts by code point; JavaScript's default order is by UTF-16 unit: the same below U+D800
      members.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
      return `{${members.map(([name, inner]) => `${JSON.stringify(name)}:${inner}`).join(",")}}`;
    }
    if (c === "[") {
      at += 1;
      const items = [];
      space();
      if (text[at] === "]") { at += 1; return "[]"; }
      for (;;) {
        items.push(value(depth + 1));
        space();
        if (text[at] === ",") { at += 1; continue; }
        if (text[at] === "]") { at += 1; break; }
        fail();
      }
      return `[${items.join(",")}]`;
    }
    if (c === "\"") return JSON.stringify(JSON.parse(string()));  // Python's escapes are JSON.stringify's
    const literal = /^(-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?|true|false|null)/.exec(text.slice(at, at + 400));
    if (!literal) fail();
    at += literal[0].length;
    return literal[0];
  }
  /** The JSON string starting at ``at``, as written (quotes included). */
  function string() {
    const start = at;
    at += 1;
    while (at < text.length && text[at] !== "\"") at += text[at] === "\\" ? 2 : 1;
    if (at >= text.length) fail();
    at += 1;
    return text.slice(start, at);
  }
  const out = value(0);
  space();
  if (at !== text.length) fail();
  return out;
}

/** @param {string} pem @returns {Uint8Array<ArrayBuffer>} the DER inside a PEM block */
function der(pem) {
  const body = pem.replace(/-----(BEGIN|END) [A-Z ]+-----/g, "").replace(/\s+/g, "");
  return Uint8Array.from(atob(body), (ch) => ch.charCodeAt(0));
}

/**
 * Is ``text`` an export the house signed with ``key``?  ``{ok, code, params}``: the code is a catalogue key.
 * @param {string} text the export as downloaded (GET /api/history/export)
 * @param {HouseKey} key
 * @returns {Promise<Checked>}
 */
export async function checkExport(text, key) {
  let parsed;
  let canonical;
  try {
    parsed = JSON.parse(text);
    canonical = canonicalText(text, "signature");
  } catch {
    return { ok: false, code: "fair.export_unreadable" };
  }
  const signature = parsed && typeof parsed === "object" ? parsed.signature : null;
  if (!signature || typeof signature !== "object") return { ok: false, code: "fair.export_unsigned" };
  if (signature.algorithm !== "ed25519" || signature.key !== key.fingerprint) {
    return { ok: false, code: "fair.export_other_key", params: { key: String(signature.key) } };
  }
  const value = unhex(signature.value);
  if (!value || value.length !== 64) return { ok: false, code: "fair.export_edited" };
  const publicKey = await crypto.subtle.importKey("spki", der(key.public_key), { name: "Ed25519" }, false, ["verify"]);
  const message = new TextEncoder().encode(`${LABEL}\n${canonical}`);
  const good = await crypto.subtle.verify({ name: "Ed25519" }, publicKey, value, message);
  return good ? { ok: true, code: "fair.export_signed", params: { key: key.fingerprint } }
    : { ok: false, code: "fair.export_edited" };
}

/**
 * The history's export panel: download your history signed by the house, and check an export file here.
 * @param {() => string | null | undefined} token the player's session token
 * @returns {HTMLElement}
 */
export function exportPanel(token) {
  const answer = document.createElement("p");
  answer.className = "fair-export-answer";
  answer.setAttribute("aria-live", "polite");
  /** @param {Checked} checked */
  const say = (checked) => {
    answer.textContent = t(checked.code, checked.params || {});
    answer.className = `fair-export-answer ${checked.ok ? "good" : "bad"}`;
  };
  /** @returns {Promise<HouseKey>} */
  const houseKey = async () => (await fetch("/api/fairness/key")).json();

  const download = document.createElement("button");
  download.type = "button";
  download.className = "link fair-export-download";
  download.textContent = t("fair.export_download");
  download.addEventListener("click", async () => {
    const answered = await fetch("/api/history/export", { headers: { Authorization: `Bearer ${token() || ""}` } });
    if (!answered.ok) { say({ ok: false, code: "fair.export_unavailable" }); return; }
    const text = await answered.text();
    say(await checkExport(text, await houseKey()));
    const link = document.createElement("a");
    link.href = URL.createObjectURL(new Blob([text], { type: "application/json" }));
    link.download = "baccarat-history.json";
    link.click();
    setTimeout(() => URL.revokeObjectURL(link.href), 60_000);
  });

  const file = document.createElement("input");
  file.type = "file";
  file.accept = "application/json,.json";
  file.className = "fair-export-file";
  file.addEventListener("change", async () => {
    const chosen = file.files?.[0];
    if (!chosen) return;
    say(await checkExport(await chosen.text(), await houseKey()));
  });
  const label = document.createElement("label");
  label.append(t("fair.export_check"), " ", file);

  const panel = document.createElement("div");
  panel.className = "fair-export";
  panel.append(download, label, answer);
  return panel;
}
