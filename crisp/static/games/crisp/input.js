// Taps on the table become protocol messages: a card (swap, take, a Queen's two cards) or an
// action button. `api`: {g, seat, ui, setUi(ui), act(action, fields)}; returns whether it was
// a Crisp tap.
import { can } from "./table.js";

const DIRECT = new Set(["ready", "draw", "discard", "jack", "king", "crisp"]);

export function onAction(action, api) {
  const ui = api.ui;
  if (DIRECT.has(action)) return api.act(action), true;
  switch (action) {
    case "take":
      api.setUi({ mode: "take" });
      return true;
    case "queen":
      api.setUi({ mode: "queen-mine", queen: {} });
      return true;
    case "confirm":
      if (ui.mode === "queen-confirm") {
        const q = ui.queen;
        api.act("queen", { slot: q.slot, target: q.target, target_slot: q.targetSlot });
      }
      return true;
    case "cancel":
      api.setUi({});
      return true;
    default:
      return false;
  }
}

export function onCard(seat, slot, api, ctx) {
  const ui = api.ui;
  const me = api.seat;
  if (seat === me && !ui.mode && can(api.g, ctx).has("swap")) api.act("swap", { slot });
  else if (ui.mode === "take" && seat === me) api.act("take_discard", { slot });
  else if (ui.mode === "queen-mine" && seat === me) api.setUi({ mode: "queen-theirs", queen: { slot } });
  else if ((ui.mode === "queen-theirs" || ui.mode === "queen-confirm") && seat !== me) {
    api.setUi({ mode: "queen-confirm", queen: { ...ui.queen, target: seat, targetSlot: slot } });
  } else if (ui.mode === "queen-confirm" && seat === me) api.setUi({ mode: "queen-confirm", queen: { ...ui.queen, slot } });
}
