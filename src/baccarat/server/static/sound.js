// @ts-check
// Optional sound (issue 31): a chip put down, a card turned, the result.  Off until the player turns it on
// with the header's toggle; the choice is remembered in this browser (localStorage "sound").  Every sound
// is made here with the Web Audio API (oscillators and a short burst of noise): nothing is downloaded.
import { t } from "./i18n.js";

export const Sound = (() => {
  const KEY = "sound";
  let context = null;

  /** Whether the player turned sound on (off by default). */
  function enabled() {
    try { return localStorage.getItem(KEY) === "on"; } catch { return false; }
  }

  /** The one AudioContext, made on the first sound after the player turned sound on (a browser lets a
   *  page start audio only after a gesture, and the toggle's click is one). */
  function audio() {
    const Context = window.AudioContext || /** @type {any} */ (window).webkitAudioContext;
    if (!Context) return null;
    if (!context) context = new Context();
    if (context.state === "suspended") context.resume().catch(() => {});
    return context;
  }

  /** A tone: ``freq`` Hz from ``start`` s for ``length`` s, with a quick attack and an exponential fade. */
  function tone(ctx, freq, start, length, type, level) {
    const osc = ctx.createOscillator();
    const gain = ctx.createGain();
    const at = ctx.currentTime + start;
    osc.type = type;
    osc.frequency.setValueAtTime(freq, at);
    gain.gain.setValueAtTime(0.0001, at);
    gain.gain.exponentialRampToValueAtTime(level, at + 0.005);
    gain.gain.exponentialRampToValueAtTime(0.0001, at + length);
    osc.connect(gain).connect(ctx.destination);
    osc.start(at);
    osc.stop(at + length + 0.02);
  }

  /** A card sliding on the felt: a short burst of filtered noise. */
  function swish(ctx, level) {
    const length = 0.09;
    const buffer = ctx.createBuffer(1, Math.ceil(ctx.sampleRate * length), ctx.sampleRate);
    const data = buffer.getChannelData(0);
    for (let i = 0; i < data.length; i += 1) data[i] = (Math.random() * 2 - 1) * (1 - i / data.length);
    const source = ctx.createBufferSource();
    const filter = ctx.createBiquadFilter();
    const gain = ctx.createGain();
    source.buffer = buffer;
    filter.type = "bandpass";
    filter.frequency.value = 2500;
    gain.gain.value = level;
    source.connect(filter).connect(gain).connect(ctx.destination);
    source.start();
  }

  // name -> what it plays; "win", "lose" and "push" are the player's own result, "result" anyone's
  const SOUNDS = {
    chip: (ctx) => { tone(ctx, 2100, 0, 0.05, "triangle", 0.12); tone(ctx, 2900, 0.025, 0.05, "triangle", 0.08); },
    card: (ctx) => swish(ctx, 0.25),
    win: (ctx) => { [523.25, 659.25, 783.99].forEach((f, i) => { tone(ctx, f, i * 0.09, 0.22, "sine", 0.15); }); },
    lose: (ctx) => { tone(ctx, 392, 0, 0.2, "sine", 0.12); tone(ctx, 311.13, 0.14, 0.3, "sine", 0.12); },
    push: (ctx) => tone(ctx, 440, 0, 0.25, "sine", 0.12),
    result: (ctx) => tone(ctx, 660, 0, 0.18, "sine", 0.1),
  };

  /** Play ``name`` (chip, card, win, lose, push, result) if sound is on; never throws. */
  function play(name) {
    if (!enabled() || !SOUNDS[name]) return;
    try {
      const ctx = audio();
      if (ctx) SOUNDS[name](ctx);
    } catch { /* no sound is never an error */ }
  }

  /** Turn sound on or off, remember it, and show it on the toggle. */
  function set(on) {
    try { localStorage.setItem(KEY, on ? "on" : "off"); } catch { /* not remembered: still applies now */ }
    label();
    if (on) play("chip");  // a sound to say it is on (and the gesture that lets the page start audio)
  }

  /** The header's toggle (#sound) in the page's language and state. */
  function label() {
    const button = document.getElementById("sound");
    if (!button) return;
    const on = enabled();
    button.setAttribute("aria-pressed", String(on));
    button.textContent = t(on ? "header.sound_on" : "header.sound_off");
    button.title = t("header.sound_label");
  }

  document.addEventListener("click", (event) => {
    if (event.target instanceof HTMLElement && event.target.id === "sound") set(!enabled());
  });

  return { enabled, play, set, label };
})();
