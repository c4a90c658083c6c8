// Small helpers shared by the page's modules. Text always goes in as text
// nodes (append of a string); no module sets HTML from a string.

// el makes an element: attrs sets properties-as-attributes ("class", "title",
// data-*, on* listeners, booleans); children are nodes or strings.
export function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k === 'class') e.className = v;
    else if (k.startsWith('on') && typeof v === 'function') e.addEventListener(k.slice(2), v);
    else if (v === true) e.setAttribute(k, '');
    else e.setAttribute(k, String(v));
  }
  for (const c of children.flat()) {
    if (c !== null && c !== undefined && c !== false) e.append(c);
  }
  return e;
}

// tokens writes a token count briefly: 950, 12.3k, 1.20M.
export function tokens(n) {
  n = Number(n) || 0;
  if (n < 1000) return String(n);
  if (n < 1e6) return (n / 1000).toFixed(n < 1e4 ? 1 : 0) + 'k';
  return (n / 1e6).toFixed(2) + 'M';
}

// usd writes an amount of money as the terminal does: $0, $0.0118, $1.24.
export function usd(v) {
  v = Number(v) || 0;
  if (v === 0) return '$0';
  if (Math.abs(v) < 0.1) return '$' + v.toFixed(4);
  if (Math.abs(v) < 100) return '$' + v.toFixed(2);
  return '$' + v.toFixed(0);
}

// ago writes how long ago an RFC 3339 time was: "now", "5m", "3h", "2d".
export function ago(when) {
  const t = Date.parse(when);
  if (Number.isNaN(t)) return '';
  const s = Math.max(0, (Date.now() - t) / 1000);
  if (s < 45) return 'now';
  if (s < 3600) return Math.round(s / 60) + 'm';
  if (s < 86400) return Math.round(s / 3600) + 'h';
  return Math.round(s / 86400) + 'd';
}

// duration writes milliseconds briefly: 850ms, 4.2s, 3m10s.
export function duration(ms) {
  ms = Number(ms) || 0;
  if (ms < 1000) return ms + 'ms';
  if (ms < 60000) return (ms / 1000).toFixed(1) + 's';
  const m = Math.floor(ms / 60000);
  return m + 'm' + String(Math.round((ms % 60000) / 1000)).padStart(2, '0') + 's';
}

// nearBottom says whether a scroller shows its end (so new content should keep it there).
export function nearBottom(node, slack = 48) {
  return node.scrollHeight - node.scrollTop - node.clientHeight < slack;
}

const SVG = 'http://www.w3.org/2000/svg';

// The few icons of the page, drawn with strokes on a 16×16 grid (fonts
// differ too much in which symbols they have).
const ICONS = {
  branch: [['circle', { cx: 4.5, cy: 3.5, r: 1.75 }], ['circle', { cx: 4.5, cy: 12.5, r: 1.75 }],
    ['circle', { cx: 11.5, cy: 5, r: 1.75 }], ['path', { d: 'M4.5 5.25v5.5M11.5 6.75c0 3-7 2.25-7 4' }]],
  image: [['rect', { x: 2, y: 3, width: 12, height: 10, rx: 1.5 }], ['circle', { cx: 6, cy: 6.5, r: 1.2 }],
    ['path', { d: 'M2.5 12l4-4 3 3 2-2 2.5 2.5' }]],
  plus: [['path', { d: 'M8 3v10M3 8h10' }]],
  stop: [['rect', { x: 4, y: 4, width: 8, height: 8, rx: 1 }]],
};

// icon returns the named icon as an inline SVG element.
export function icon(name) {
  const svg = document.createElementNS(SVG, 'svg');
  svg.setAttribute('viewBox', '0 0 16 16');
  svg.setAttribute('class', 'icon icon-' + name);
  svg.setAttribute('aria-hidden', 'true');
  for (const [tag, attrs] of ICONS[name] || []) {
    const e = document.createElementNS(SVG, tag);
    for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
    svg.append(e);
  }
  return svg;
}
