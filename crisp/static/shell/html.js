// Markup by a tagged template that escapes every value by default: html`<p>${name}</p>` makes a
// Markup; a value is escaped unless it is itself Markup (or an array of Markup). The only way
// into the page is patch() (shell/morph.js), which takes Markup, never a string built by hand.
// null and undefined write nothing; booleans write "true" / "false" (aria-*, data-*).

export class Markup {
  constructor(text) {
    this.text = text;
  }

  toString() {
    return this.text;
  }
}

export function escape(value) {
  return String(value).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function part(value) {
  if (value == null) return "";
  if (typeof value === "boolean") return String(value); // aria-expanded="${open}": "true"/"false"
  if (value instanceof Markup) return value.text;
  if (Array.isArray(value)) return value.map(part).join("");
  return escape(value);
}

export function html(strings, ...values) {
  let out = strings[0];
  for (let i = 0; i < values.length; i++) out += part(values[i]) + strings[i + 1];
  return new Markup(out);
}

// A class list from an object: cls({card: true, up: code != null}) -> "card up".
export function cls(map) {
  return Object.entries(map).filter(([, on]) => on).map(([name]) => name).join(" ");
}
