// "Replay the round" (R-SEE-STORY): after a round's reveal the server sends its story
// (`round_story`: the hands as dealt, the round's public moves, every draw with its face;
// docs/protocol.md), and this plays the round's turns again, face up, in a panel over the table.
// Loaded lazily (the first tap), so it costs nothing on the first load. The panel lives outside
// the shell's root (the renderer's patches never touch it) and closes by its ✕ or Escape.
import { t } from "../../i18n.js";
import { faceMarkup } from "./cards.js";
import { cardName } from "./cardname.js";

const SLOTS = ["left", "middle", "right"];
export const STEP_MS = 650;

let current = null; // the panel playing now (one at a time)

// The state after each move, from the dealt hands: [{hands, pile, held, seat, line}], first the
// deal; the viewer's own moves (seat `you`) told in the second person. Pure: the browser test and
// the panel use the same steps.
export function steps(story, players, you = null) {
  const hands = story.hands.map((h) => h.slice());
  const held = {};
  let pile = null;
  const name = (s) => players[s] ?? `#${s + 1}`;
  const out = [{ hands: hands.map((h) => h.slice()), pile, seat: null, line: t("replay.deal") }];
  // the line of another's move, or of the viewer's own (told in the second person)
  const say = (mv, theirs, yours) => (mv.seat === you ? yours : theirs);
  for (const mv of story.moves) {
    const who = name(mv.seat);
    const vars = { name: who, card: mv.card ? cardName(mv.card) : "", other: name(mv.target) };
    let line = null;
    const slot = SLOTS.indexOf(mv.slot);
    switch (mv.type) {
      case "draw":
        held[mv.seat] = mv.card;
        line = say(mv, t("replay.draw", vars), t("replay.draw.you", vars));
        break;
      case "swap":
        hands[mv.seat][slot] = held[mv.seat];
        delete held[mv.seat];
        pile = mv.card;
        line = say(mv, t("replay.swap", vars), t("replay.swap.you", vars));
        break;
      case "take":
        hands[mv.seat][slot] = pile;
        pile = mv.card;
        line = say(mv, t("replay.swap", vars), t("replay.swap.you", vars));
        break;
      case "queen": {
        const ts = SLOTS.indexOf(mv.target_slot);
        [hands[mv.seat][slot], hands[mv.target][ts]] = [hands[mv.target][ts], hands[mv.seat][slot]];
        delete held[mv.seat];
        pile = mv.card;
        line = mv.target === you ? t("replay.queen.withyou", { name: name(mv.seat) })
          : say(mv, t("replay.queen", vars), t("replay.queen.you", vars));
        break;
      }
      case "discard": case "jack": case "king": case "timeout":
        if (mv.card) pile = mv.card;
        delete held[mv.seat];
        if (mv.card) line = say(mv, t("replay.discard", vars), t("replay.discard.you", vars));
        break;
      case "crisp":
        line = say(mv, t("replay.crisp", vars), t("replay.crisp.you", vars));
        break;
      default:
        break;
    }
    if (line) out.push({ hands: hands.map((h) => h.slice()), pile, seat: mv.seat ?? null, line });
  }
  return out;
}

function ensureStyle(doc) {
  if (doc.getElementById("replay-css")) return;
  const link = doc.createElement("link");
  link.id = "replay-css";
  link.rel = "stylesheet";
  link.href = new URL("./replay.css", import.meta.url).href;
  doc.head.append(link);
}

function draw(panel, step, players, i, n) {
  const rows = step.hands.map((hand, seat) => `<li class="rseat${seat === step.seat ? " now" : ""}">
    <span class="rname">${escape(players[seat] ?? `#${seat + 1}`)}</span>
    <span class="rhand">${hand.map((c) => `<span class="card tiny up">${faceMarkup(c)}</span>`).join("")}</span></li>`);
  const pile = step.pile ? `<span class="card tiny up">${faceMarkup(step.pile)}</span>` : "";
  panel.querySelector(".rtable").innerHTML = rows.join("");
  panel.querySelector(".rpile").innerHTML = pile;
  panel.querySelector(".rline").textContent = step.line;
  panel.querySelector(".rcount").textContent = `${i + 1}/${n}`;
}

function escape(text) {
  return String(text).replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
}

// Play `story` for `players` (names by seat) in a panel of `doc`; returns the panel.
export function playStory(story, players, { doc = document, stepMs = STEP_MS, you = null } = {}) {
  current?.close();
  ensureStyle(doc);
  const all = steps(story, players, you);
  const panel = doc.createElement("section");
  panel.className = "replay";
  panel.dataset.test = "replay";
  panel.setAttribute("role", "dialog");
  panel.setAttribute("aria-label", t("replay.title", { n: story.round }));
  panel.innerHTML = `<h2>${escape(t("replay.title", { n: story.round }))}</h2>
    <button class="icon close" data-test="replay-close" aria-label="${escape(t("menu.close"))}">✕</button>
    <ol class="rtable"></ol><p class="rpilebox">${escape(t("replay.pile"))} <span class="rpile"></span></p>
    <p class="rline" aria-live="polite"></p><p class="rcount muted"></p>`;
  doc.body.append(panel);
  let i = 0;
  let timer = null;
  const close = () => {
    clearTimeout(timer);
    panel.remove();
    doc.removeEventListener("keydown", onKey);
    if (current?.panel === panel) current = null;
  };
  const onKey = (e) => { if (e.key === "Escape") close(); };
  doc.addEventListener("keydown", onKey);
  panel.querySelector(".close").addEventListener("click", close);
  const next = () => {
    draw(panel, all[i], players, i, all.length);
    panel.dataset.step = String(i);
    if (i + 1 < all.length) {
      i += 1;
      timer = setTimeout(next, stepMs);
    } else {
      panel.dataset.done = "true";
    }
  };
  next();
  current = { panel, close };
  return panel;
}

// The game module's action: "replay" plays the story of the round just revealed.
export function onAction(action, api) {
  if (action !== "replay") return false;
  const g = api.g;
  if (g?.story) playStory(g.story, g.players, { you: api.seat ?? null });
  return true;
}
