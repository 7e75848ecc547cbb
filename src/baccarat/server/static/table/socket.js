// @ts-check
// The table's feed: its WebSocket (the token sent first; reconnected at a growing pace; a command in flight sent
// again with its key) and a REST probe that finds a silent line.
import { api, syncClock, token } from "../api.js";
import { announce } from "../dom.js";
import { refusalText, rememberWagers, t } from "../i18n.js";
import { connection } from "../shell.js";

/** Reconnecting: the waits after each failed try, in milliseconds (then the last, again and again). */
const RECONNECT_MS = [300, 700, 1000, 1500, 2000];

/** @param {any} T the table (table/index.js): its state S, its elements el, and the other parts' functions */
export function makeSocket(T) {
  /** @type {import("./state.js").TableState} */
  const S = T.S;

  function connect() {
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    T.socket = new WebSocket(`${scheme}://${location.host}/ws/tables/${T.tableId}`);
    const mine = T.socket;
    // the wagers once: the state keeps the last ones (state.js applyView), so a push need not carry them again
    T.socket.onopen = () => mine.send(JSON.stringify({ type: "auth", token, wagers: "once" }));
    T.socket.onmessage = (event) => {
      if (mine !== T.socket) return;
      let message;
      try { message = JSON.parse(event.data); } catch { return; }
      if (message.type === "state") {
        if (!S.connected) {
          S.connected = true;
          S.attempts = 0;
          connection(false);
          if (S.everConnected) announce(t("connection.back"));
          S.everConnected = true;
          if (S.inflight) T.transmit();  // a command in flight when the line dropped: the same key again
          if (S.message && S.message.code === "bet.held_until_connected") T.say("");
        }
        T.onView(message);
      } else if (S.squeezeSent && ((message.type === "ok" && message.key == null)
                 || (message.type === "error" && String(message.code || "").startsWith("squeeze.")))) {
        S.squeezeSent -= 1;  // a peel's or a turn's answer: the next state shows it
        if (message.type === "error") T.say(refusalText(message));
        else T.peelAnswered(message.result);
      } else if (message.type === "ok" || message.type === "error") {
        S.lastFrame = performance.now();
        T.onAnswer(message);
      }
    };
    T.socket.onclose = (event) => {
      if (mine !== T.socket || T.closed) return;
      const wasConnected = S.connected;
      S.connected = false;
      if (event.code === 4401) { window.dispatchEvent(new Event("signed-out")); return; }  // signed out elsewhere
      // 1012 (service restart): the server process is stopping gracefully; connect again at once, without the
      // notice (behind a proxy another process answers; a command in flight is sent again with its key). Only
      // from a socket that was serving: if that try fails too, the notice and the usual pace follow.
      if (event.code === 1012 && wasConnected) {
        T.render();
        T.timers.push(setTimeout(() => { if (!T.closed) connect(); }, 0));
        return;
      }
      // 1008: the server refused this socket (too many open tables for the account): say so, try again slowly
      const refused = event.code === 1008;
      connection(true, refused ? t("connection.refused") : null);
      T.render();
      const wait = refused ? 5000 : RECONNECT_MS[Math.min(S.attempts, RECONNECT_MS.length - 1)];
      S.attempts += 1;
      T.timers.push(setTimeout(() => { if (!T.closed) connect(); }, wait));
    };
  }

  // A line that is open but silent (a peer gone without closing) is found by a REST probe, which also
  // takes a fresh clock sample: every 10 s, and at once after 12 s without a frame.
  async function probe() {
    try {
      const v = await api("GET", `/api/tables/${T.tableId}`);
      if (v && v.server_time) syncClock(v.server_time);
      if (!S.view && v) { rememberWagers(v.wagers); }
    } catch (error) {
      if (error.status === 0 && S.connected && T.socket) { S.connected = false; connection(true); T.socket.close(); }
    }
  }


  return { connect, probe };
}
