// (targets) => [{ target, worst, needed, colour }]: for each CSS selector, the contrast of its
// text against every colour stop of the nearest background gradient behind it, with the
// translucent backgrounds in between laid over each stop (and the opacity of the elements on the
// way), the worst one kept. WCAG 1.4.3 asks
// 4.5:1, or 3:1 for large text (24 px, or 18.66 px bold). Used by tests/support/axe.py.
(targets) => {
  const rgba = (s) => {
    const m = s.match(/[\d.]+/g).map(Number);
    return [m[0], m[1], m[2], m[3] ?? 1];
  };
  const over = (top, under) => top.slice(0, 3).map((c, i) => c * top[3] + under[i] * (1 - top[3]));
  const lum = (c) => {
    const [r, g, b] = c.map((v) => {
      const x = v / 255;
      return x <= 0.03928 ? x / 12.92 : ((x + 0.055) / 1.055) ** 2.4;
    });
    return 0.2126 * r + 0.7152 * g + 0.0722 * b;
  };
  const ratio = (a, b) => {
    const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p);
    return (x + 0.05) / (y + 0.05);
  };
  const out = [];
  for (const target of targets) {
    const el = document.querySelector(target);
    if (!el) continue;
    const style = getComputedStyle(el);
    const fg = rgba(style.color);
    const layers = [];
    let stops = null;
    for (let node = el; node && !stops; node = node.parentElement) {
      const s = getComputedStyle(node);
      fg[3] *= Number(s.opacity); // a faded element fades its text (approximately: not its backdrop)
      if (s.backgroundImage.includes("gradient")) {
        stops = (s.backgroundImage.match(/rgba?\([^)]*\)/g) || []).map(rgba);
      } else if (rgba(s.backgroundColor)[3] > 0) {
        layers.unshift(rgba(s.backgroundColor));
      }
    }
    if (!stops) continue;
    const worst = Math.min(...stops.map((stop) => {
      let bg = stop.slice(0, 3);
      for (const layer of layers) bg = over(layer, bg);
      return ratio(over(fg, bg), bg);
    }));
    const size = parseFloat(style.fontSize);
    const large = size >= 24 || (size >= 18.66 && Number(style.fontWeight) >= 700);
    out.push({ target, worst: Math.round(worst * 100) / 100, needed: large ? 3 : 4.5, colour: style.color });
  }
  return out;
}
