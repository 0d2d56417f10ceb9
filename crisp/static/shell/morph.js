// Rendering that updates what changed: patch(root, markup) turns root's children into the markup
// by editing the nodes already there (attributes, text) and adding or removing only those that
// differ. Elements keep their identity (a face-up look card does not flip again when another
// player taps Ready; focus and running animations stay). Elements with a data-key or an id are
// matched by it; others by position and tag. An element with data-keep is left alone (its owner draws it).
// A <details> keeps the open state the player gave it.
import { Markup } from "./html.js";

const keyOf = (node) => (node.nodeType === 1 ? node.getAttribute("data-key") || node.id || null : null);
const same = (a, b) => a.nodeType === b.nodeType && a.nodeName === b.nodeName && keyOf(a) === keyOf(b);

export function patch(root, markup) {
  if (!(markup instanceof Markup)) throw new TypeError("patch() takes html`` markup only");
  const tpl = document.createElement("template");
  tpl.innerHTML = markup.text; // escaped by html``: the one place markup becomes nodes
  patchChildren(root, tpl.content);
}

function patchChildren(parent, next) {
  const olds = [...parent.childNodes];
  const byKey = new Map();
  for (const node of olds) {
    const key = keyOf(node);
    if (key) byKey.set(key, node);
  }
  const used = new Set();
  let i = 0;
  let ref = parent.firstChild;
  for (const node of [...next.childNodes]) {
    const key = keyOf(node);
    let match = null;
    if (key) {
      const old = byKey.get(key);
      if (old && !used.has(old) && same(old, node)) match = old;
    } else {
      while (i < olds.length && (used.has(olds[i]) || keyOf(olds[i]))) i++;
      if (i < olds.length && same(olds[i], node)) match = olds[i++];
    }
    if (match) {
      used.add(match);
      update(match, node);
      if (match === ref) ref = ref.nextSibling;
      else parent.insertBefore(match, ref);
    } else {
      parent.insertBefore(node, ref);
    }
  }
  for (const node of olds) if (!used.has(node)) node.remove();
}

function update(old, node) {
  if (old.nodeType !== 1) {
    if (old.nodeValue !== node.nodeValue) old.nodeValue = node.nodeValue;
    return;
  }
  if (old.hasAttribute("data-keep")) return; // its owner draws it (same key: same content)
  // A <details> the player opened stays open (its "open" is theirs, as a checkbox's tick is).
  const mine = old.nodeName === "DETAILS" ? "open" : null;
  for (const { name } of [...old.attributes]) if (name !== mine && !node.hasAttribute(name)) old.removeAttribute(name);
  for (const { name, value } of [...node.attributes]) if (old.getAttribute(name) !== value) old.setAttribute(name, value);
  patchChildren(old, node);
  if (old.nodeName === "INPUT" && (old.type === "checkbox" || old.type === "radio")) {
    old.checked = node.hasAttribute("checked");
  } else if (old.nodeName === "SELECT") {
    const chosen = node.querySelector("option[selected]") || node.querySelector("option");
    if (chosen) old.value = chosen.getAttribute("value") ?? chosen.textContent;
  }
}
