// @ts-check
// Safer play: the player's own limits, reality check, time-out and self-exclusion (#/protection), the
// reality check that interrupts play every N minutes, and the help line at the foot of every page.
// The server enforces all of it (baccarat.server.house.protection); this page only asks and shows.
import { api, serverNow, token } from "./api.js";
import { show } from "./shell.js";
import { h, text, toast } from "./dom.js";
import { dateTime, money, parseAmount, t } from "./i18n.js";

const TIMEOUT_CHOICES = [24, 48, 72, 168, 336, 672, 1008];  // hours: a day to six weeks
const EXCLUSION_CHOICES = [6, 12, 24, 36, 60];  // months: six months to five years
const REALITY_CHOICES = [15, 20, 30, 45, 60];
let realityTimer = null;
/** The player's protection as last read (GET /api/protection), or null. */
export let protectionState = null;
// the localStorage key by which a change of limits or a break reaches this browser's other tabs
export const PROTECTION_CHANGED = "baccarat.protection-changed";

export function helpLine() {
  return h("p", { class: "help-line", id: "help-line" },
    t("help.line"), " ", h("b", {}, "800.522.4700"), " · ", "ksgamblinghelp.com");
}

export function showHelpFooter() {
  const foot = document.getElementById("help-foot");
  if (foot) foot.replaceChildren(helpLine());
}

/** A moment to the minute (lib.js's dateTime: rounded up, as in every refusal that names it). */
function when(iso) { return dateTime(iso); }

function hoursLabel(hours) {
  if (hours % 168 === 0) return t("protect.weeks", { n: hours / 168 });
  if (hours % 24 === 0) return t("protect.days", { n: hours / 24 });
  return t("protect.hours", { n: hours });
}

function monthsLabel(months) {
  return months % 12 === 0 ? t("protect.years", { n: months / 12 }) : t("protect.months", { n: months });
}

/** The break in force, as one sentence (or null). */
export function blockedText(state) {
  if (!state || !state.blocked) return null;
  return t(state.blocked.kind === "time-out" ? "protect.blocked_timeout" : "protect.blocked_exclusion",
           { until: when(state.blocked.until) });
}

/** Forget the protection read (a log-out): no reality check runs. */
export function forgetProtection() {
  protectionState = null;
  scheduleRealityCheck();  // (clears it)
}

export async function loadProtection() {
  protectionState = await api("GET", "/api/protection");
  scheduleRealityCheck();
  return protectionState;
}

// ---------------------------------------------------------------- the reality check

export function scheduleRealityCheck() {
  clearTimeout(realityTimer);
  realityTimer = null;
  const state = protectionState;
  if (!state || !state.reality_minutes || !state.session || !token) return;
  const every = state.reality_minutes * 60000;
  const since = Date.parse(state.session.since);
  const elapsed = Math.max(0, serverNow() - since);
  const wait = every - (elapsed % every);
  realityTimer = setTimeout(realityCheck, Math.max(wait, 1000));
}

async function realityCheck() {
  if (!token || document.getElementById("reality")) return;
  let state;
  try { state = await loadProtection(); } catch { return; }
  clearTimeout(realityTimer);  // the next one is scheduled when this one is answered
  const session = state.session;
  const net = session.net;
  const minutes = session.minutes;  // the server's count since the login
  const continueButton = h("button", { type: "button", class: "primary", id: "reality-continue" }, t("reality.continue"));
  const leaveButton = h("button", { type: "button", id: "reality-leave" }, t("reality.leave"));
  const box = h("div", { class: "modal-back", id: "reality" },
    h("div", { class: "modal", role: "alertdialog", "aria-modal": "true", "aria-labelledby": "reality-title",
               "aria-describedby": "reality-body" },
      h("h2", { id: "reality-title" }, t("reality.title")),
      h("div", { id: "reality-body" },
        h("p", {}, t("reality.played", { minutes })),
        h("p", { class: net < 0 ? "minus" : net > 0 ? "plus" : "", id: "reality-net" },
          t(net < 0 ? "reality.net_lost" : net > 0 ? "reality.net_won" : "reality.net_even", { amount: money(Math.abs(net)) })),
        h("p", { class: "muted" }, t("reality.staked", { amount: money(session.staked) }))),
      h("div", { class: "actions" }, continueButton, leaveButton),
      helpLine()));
  continueButton.addEventListener("click", () => { box.remove(); scheduleRealityCheck(); });
  leaveButton.addEventListener("click", async () => {
    box.remove();
    try { await api("DELETE", "/api/sessions"); } catch { /* logged out either way */ }
    window.dispatchEvent(new Event("signed-out"));  // the page's shell logs out (app.js, operator.js)
  });
  box.addEventListener("keydown", (event) => {  // focus stays in the dialog
    if (event.key !== "Tab") return;
    const first = continueButton, last = leaveButton;
    if (event.shiftKey && document.activeElement === first) { event.preventDefault(); last.focus(); }
    else if (!event.shiftKey && document.activeElement === last) { event.preventDefault(); first.focus(); }
  });
  document.body.append(box);
  continueButton.focus();
}

// ---------------------------------------------------------------- #/protection

export function protectionView() {
  const heading = h("h1", { tabindex: "-1" }, t("protect.title"));
  const status = h("p", { class: "refusal info", id: "protect-status", role: "status" });
  const limitsBody = h("tbody", { id: "limits-rows" });
  const message = h("p", { class: "error", role: "alert", id: "protect-error" });
  let closed = false;

  const kind = h("select", { id: "limit-kind" }, h("option", { value: "loss" }, t("protect.kind.loss")),
    h("option", { value: "stake" }, t("protect.kind.stake")));
  const period = h("select", { id: "limit-period" }, ...["day", "week", "month"].map((p) =>
    h("option", { value: p }, t(`protect.period.${p}`))));
  const amount = h("input", { id: "limit-amount", inputmode: "decimal", autocomplete: "off", placeholder: "100.00" });
  const reality = h("select", { id: "reality-minutes" }, h("option", { value: "" }, t("protect.reality_off")),
    ...REALITY_CHOICES.map((m) => h("option", { value: String(m) }, t("protect.every_minutes", { n: m }))));
  const timeout = h("select", { id: "timeout-hours" }, ...TIMEOUT_CHOICES.map((hrs) => h("option", { value: String(hrs) }, hoursLabel(hrs))));
  const exclusion = h("select", { id: "exclusion-months" }, ...EXCLUSION_CHOICES.map((m) => h("option", { value: String(m) }, monthsLabel(m))));
  const understand = h("input", { type: "checkbox", id: "break-understood" });

  async function act(work, done) {
    message.textContent = "";
    try {
      protectionState = await work();
      scheduleRealityCheck();
      try { localStorage.setItem(PROTECTION_CHANGED, String(Date.now())); } catch { /* storage off */ }
      render();
      if (done) toast(done);
    } catch (error) { message.textContent = error.message; }
  }

  function render() {
    const state = protectionState;
    if (!state || closed) return;
    const blocked = blockedText(state);
    text(status, blocked || t("protect.free"));
    status.classList.toggle("blocked", Boolean(blocked));
    limitsBody.replaceChildren(...(state.limits.length ? state.limits.map((limit) => h("tr", {},
      h("th", { scope: "row" }, t(`protect.kind.${limit.kind}`), " · ", t(`protect.period.${limit.period}`)),
      h("td", { class: "num" }, limit.amount == null ? t("protect.none") : money(limit.amount)),
      h("td", { class: "num" }, money(limit.used)),
      h("td", { class: "num" }, limit.left == null ? "–" : money(limit.left)),
      h("td", {}, limit.pending_from ? t(limit.removing ? "protect.removing_from" : "protect.pending_from",
                                          { amount: limit.pending == null ? "" : money(limit.pending), when: when(limit.pending_from) }) : ""),
      h("td", {}, limit.amount == null ? "" : h("button", { type: "button", class: "quiet",
        onclick: () => act(() => api("PUT", "/api/protection/limits", { kind: limit.kind, period: limit.period, amount: null }),
                          t("protect.removal_waits")) }, t("protect.remove")))))
      : [h("tr", {}, h("td", { colspan: "6", class: "muted" }, t("protect.no_limits")))]));
    reality.value = state.reality_minutes ? String(state.reality_minutes) : "";
  }

  const limitForm = h("form", { class: "row-form", novalidate: true, onsubmit: (event) => {
    event.preventDefault();
    const minor = parseAmount(amount.value);
    if (!Number.isInteger(minor) || minor <= 0) { message.textContent = t("protect.amount_rule"); amount.focus(); return; }
    const current = (protectionState.limits || []).find((l) => l.kind === kind.value && l.period === period.value);
    const looser = current && current.amount != null && minor > current.amount;
    act(() => api("PUT", "/api/protection/limits", { kind: kind.value, period: period.value, amount: minor }),
        looser ? t("protect.increase_waits") : t("protect.saved"));
  } },
    h("label", { for: "limit-kind" }, t("protect.kind")), kind,
    h("label", { for: "limit-period" }, t("protect.period")), period,
    h("label", { for: "limit-amount" }, t("protect.amount")), amount,
    h("button", { type: "submit", class: "primary", id: "limit-save" }, t("protect.set_limit")));

  const breakButtons = h("div", { class: "actions" },
    h("button", { type: "button", id: "take-timeout", onclick: () => {
      if (!understand.checked) { message.textContent = t("protect.confirm_first"); understand.focus(); return; }
      act(() => api("POST", "/api/protection/break", { hours: Number(timeout.value) }), t("protect.break_taken"));
    } }, t("protect.take_timeout")),
    h("button", { type: "button", id: "take-exclusion", onclick: () => {
      if (!understand.checked) { message.textContent = t("protect.confirm_first"); understand.focus(); return; }
      act(() => api("POST", "/api/protection/break", { months: Number(exclusion.value) }), t("protect.break_taken"));
    } }, t("protect.take_exclusion")));

  show(heading, h("p", { class: "lead" }, t("protect.intro")), status, message,
    h("section", { class: "panel protect", "aria-labelledby": "limits-title" },
      h("h2", { id: "limits-title" }, t("protect.limits")),
      h("p", { class: "muted" }, t("protect.limits_rule")),
      h("table", { class: "ledger" }, h("thead", {}, h("tr", {},
        h("th", { scope: "col" }, t("protect.limit")), h("th", { scope: "col" }, t("protect.amount")),
        h("th", { scope: "col" }, t("protect.used")), h("th", { scope: "col" }, t("protect.left")),
        h("th", { scope: "col" }, t("protect.change")), h("th", { scope: "col" }, h("span", { class: "visually-hidden" }, t("protect.remove"))))),
        limitsBody),
      limitForm),
    h("section", { class: "panel protect", "aria-labelledby": "reality-set-title" },
      h("h2", { id: "reality-set-title" }, t("protect.reality")),
      h("p", { class: "muted" }, t("protect.reality_rule")),
      h("label", { for: "reality-minutes" }, t("protect.reality_every")), " ", reality),
    h("section", { class: "panel protect", "aria-labelledby": "break-title" },
      h("h2", { id: "break-title" }, t("protect.break")),
      h("p", { class: "muted" }, t("protect.break_rule")),
      h("div", { class: "row-form" },
        h("label", { for: "timeout-hours" }, t("protect.timeout")), timeout,
        h("label", { for: "exclusion-months" }, t("protect.exclusion")), exclusion),
      h("p", {}, understand, " ", h("label", { for: "break-understood" }, t("protect.understand"))),
      breakButtons));  // the help line is at the foot of the page
  reality.addEventListener("change", () => act(() => api("PUT", "/api/protection/reality-check",
    { minutes: reality.value ? Number(reality.value) : null }), t("protect.saved")));
  loadProtection().then(render).catch((error) => { message.textContent = error.message; });
  heading.focus();
  return () => { closed = true; };
}
