// A small Markdown renderer for the model's answers. It builds DOM nodes
// itself: model text only ever enters the page as text nodes, and the only
// elements are the ones made here, so no markup in an answer can run (there
// is no HTML parsing at all). Links go only to http(s) or the page's own
// origin; images are never loaded (an image is a link to click).
//
// Covered: paragraphs, headings, fenced code, block quotes, bullet, ordered
// and task lists (nested by indentation), tables, rules; code spans,
// emphasis, strong, strikethrough, links, autolinks and bare URLs (those
// in inline.js).

import { MAX_DEPTH, parseInline, safeHref } from './inline.js';

export { parseInline, safeHref };

function el(tag, cls) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  return e;
}

// renderMarkdown returns a DocumentFragment for src. Unclosed constructs
// (a code fence still streaming) render as far as they go.
export function renderMarkdown(src) {
  const frag = document.createDocumentFragment();
  const lines = String(src).replace(/\r\n?/g, '\n').split('\n');
  parseBlocks(lines, frag);
  return frag;
}

// ---- blocks ----------------------------------------------------------------

const reFence = /^ {0,3}(`{3,}|~{3,})(.*)$/;
const reHeading = /^ {0,3}(#{1,6})(?:[ \t]|$)/;


// heading returns the level and text of an ATX heading line, or null.
function heading(line) {
  const m = reHeading.exec(line);
  if (!m) return null;
  let text = line.slice(m[0].length).trim();
  // A closing run of #s, after white space, is not part of the text.
  const close = /(?:^|[ \t])#+$/.exec(text);
  if (close) text = text.slice(0, close.index).trim();
  return { level: m[1].length, text };
}
const reRule = /^ {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$/;
const reQuote = /^ {0,3}> ?(.*)$/;
const reItem = /^([ \t]*)([-*+]|\d{1,9}[.)])([ \t]+|$)(.*)$/;
const reDelim = /^[ \t]*\|?[ \t]*:?-+:?[ \t]*(\|[ \t]*:?-+:?[ \t]*)*\|?[ \t]*$/;

const isBlank = (l) => /^[ \t]*$/.test(l);

function indentOf(line) {
  let n = 0;
  for (const c of line) {
    if (c === ' ') n++;
    else if (c === '\t') n += 4 - (n % 4);
    else break;
  }
  return n;
}

// stripIndent removes up to n columns of leading white space.
function stripIndent(line, n) {
  let col = 0;
  let i = 0;
  while (i < line.length && col < n) {
    if (line[i] === ' ') col++;
    else if (line[i] === '\t') col += 4 - (col % 4);
    else break;
    i++;
  }
  return line.slice(i);
}

function fenceOpen(line) {
  const m = reFence.exec(line);
  if (!m) return null;
  if (m[1][0] === '`' && m[2].includes('`')) return null;
  return { fence: m[1], lang: m[2].trim().split(/\s+/)[0] || '' };
}

function isFenceClose(line, fence) {
  const m = /^ {0,3}(`{3,}|~{3,})[ \t]*$/.exec(line);
  return !!m && m[1][0] === fence[0] && m[1].length >= fence.length;
}

function isTableStart(lines, i) {
  return lines[i].includes('|') && i + 1 < lines.length && reDelim.test(lines[i + 1]) && lines[i + 1].includes('-');
}

// startsBlock says whether line interrupts a paragraph.
function startsBlock(lines, i) {
  const l = lines[i];
  if (fenceOpen(l) || heading(l) || reRule.test(l) || reQuote.test(l)) return true;
  const m = reItem.exec(l);
  if (m && m[4] !== '' && (!/\d/.test(m[2]) || m[2].startsWith('1'))) return true;
  return isTableStart(lines, i);
}

function parseBlocks(lines, parent, depth = 0) {
  if (depth > MAX_DEPTH) {
    const p = el('p');
    p.textContent = lines.join('\n');
    parent.append(p);
    return;
  }
  let i = 0;
  while (i < lines.length) {
    const line = lines[i];
    if (isBlank(line)) {
      i++;
      continue;
    }
    const fence = fenceOpen(line);
    if (fence) {
      const indent = indentOf(line);
      const body = [];
      i++;
      while (i < lines.length && !isFenceClose(lines[i], fence.fence)) {
        body.push(stripIndent(lines[i], indent));
        i++;
      }
      i++;
      parent.append(codeBlock(body.join('\n'), fence.lang));
      continue;
    }
    let m;
    const head = heading(line);
    if (head) {
      const h = el('h' + head.level);
      parseInline(head.text, h, undefined, depth);
      parent.append(h);
      i++;
      continue;
    }
    if (reRule.test(line)) {
      parent.append(el('hr'));
      i++;
      continue;
    }
    if (reQuote.test(line)) {
      const body = [];
      while (i < lines.length && (m = reQuote.exec(lines[i]))) {
        body.push(m[1]);
        i++;
      }
      const q = el('blockquote');
      parseBlocks(body, q, depth + 1);
      parent.append(q);
      continue;
    }
    if (isTableStart(lines, i)) {
      i = parseTable(lines, i, parent, depth);
      continue;
    }
    if (reItem.test(line)) {
      i = parseList(lines, i, parent, depth);
      continue;
    }
    const para = [line.trim()];
    i++;
    while (i < lines.length && !isBlank(lines[i]) && !startsBlock(lines, i)) {
      para.push(lines[i].trim());
      i++;
    }
    const p = el('p');
    parseInline(para.join('\n'), p, undefined, depth);
    parent.append(p);
  }
}

// codeBlock is a <pre> with a copy button; a diff colors its lines.
export function codeBlock(text, lang) {
  const wrap = el('div', 'code');
  const pre = el('pre');
  const code = el('code');
  if (lang) {
    code.dataset.lang = lang;
    const tag = el('span', 'code-lang');
    tag.textContent = lang;
    wrap.append(tag);
  }
  if (lang === 'diff' || lang === 'patch') code.append(diffLines(text));
  else code.textContent = text;
  pre.append(code);
  const copy = el('button', 'copy');
  copy.type = 'button';
  copy.textContent = 'copy';
  copy.title = 'Copy to the clipboard';
  copy.addEventListener('click', () => {
    navigator.clipboard?.writeText(text).then(
      () => { copy.textContent = 'copied'; setTimeout(() => (copy.textContent = 'copy'), 1200); },
      () => { copy.textContent = 'failed'; },
    );
  });
  wrap.append(pre, copy);
  return wrap;
}

// diffLines colors a unified diff line by line.
export function diffLines(text) {
  const frag = document.createDocumentFragment();
  const lines = String(text).replace(/\n$/, '').split('\n');
  for (const l of lines) {
    let cls = 'dl';
    if (l.startsWith('+++') || l.startsWith('---') || l.startsWith('diff ') || l.startsWith('index ')) cls += ' dl-head';
    else if (l.startsWith('@@')) cls += ' dl-hunk';
    else if (l.startsWith('+')) cls += ' dl-add';
    else if (l.startsWith('-')) cls += ' dl-del';
    else if (l.startsWith('\\')) cls += ' dl-meta';
    const s = el('span', cls);
    s.textContent = l + '\n';
    frag.append(s);
  }
  return frag;
}

function splitRow(line) {
  let s = line.trim();
  if (s.startsWith('|')) s = s.slice(1);
  if (s.endsWith('|') && !s.endsWith('\\|')) s = s.slice(0, -1);
  const cells = [];
  let cur = '';
  let inCode = false;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (c === '\\' && s[i + 1] === '|') {
      cur += '|';
      i++;
    } else if (c === '`') {
      inCode = !inCode;
      cur += c;
    } else if (c === '|' && !inCode) {
      cells.push(cur.trim());
      cur = '';
    } else cur += c;
  }
  cells.push(cur.trim());
  return cells;
}

function parseTable(lines, i, parent, depth) {
  const head = splitRow(lines[i]);
  const align = splitRow(lines[i + 1]).map((d) =>
    d.startsWith(':') && d.endsWith(':') ? 'center' : d.endsWith(':') ? 'right' : '');
  const wrap = el('div', 'table');
  const table = el('table');
  const thead = el('thead');
  const tr = el('tr');
  head.forEach((c, k) => {
    const th = el('th', align[k] ? 'al-' + align[k] : '');
    parseInline(c, th, undefined, depth);
    tr.append(th);
  });
  thead.append(tr);
  table.append(thead);
  const tbody = el('tbody');
  i += 2;
  while (i < lines.length && !isBlank(lines[i]) && lines[i].includes('|')) {
    const row = splitRow(lines[i]);
    const r = el('tr');
    for (let k = 0; k < head.length; k++) {
      const td = el('td', align[k] ? 'al-' + align[k] : '');
      parseInline(row[k] ?? '', td, undefined, depth);
      r.append(td);
    }
    tbody.append(r);
    i++;
  }
  table.append(tbody);
  wrap.append(table);
  parent.append(wrap);
  return i;
}

function parseList(lines, i, parent, depth) {
  const first = reItem.exec(lines[i]);
  const base = indentOf(first[1]);
  const ordered = /\d/.test(first[2]);
  const list = el(ordered ? 'ol' : 'ul');
  if (ordered) {
    const start = parseInt(first[2], 10);
    if (start !== 1) list.start = start;
  }
  const items = [];
  let cur = null;
  while (i < lines.length) {
    const line = lines[i];
    const m = reItem.exec(line);
    if (m && indentOf(m[1]) <= base + 1 && /\d/.test(m[2]) === ordered) {
      const pad = m[3].length > 4 ? 1 : Math.max(m[3].length, 1);
      cur = { offset: indentOf(m[1]) + m[2].length + pad, body: [m[4]] };
      items.push(cur);
      i++;
      continue;
    }
    if (m && indentOf(m[1]) <= base + 1) break; // a list of the other kind
    if (isBlank(line)) {
      let j = i + 1;
      while (j < lines.length && isBlank(lines[j])) j++;
      if (j >= lines.length) break;
      const n = reItem.exec(lines[j]);
      const sibling = n && indentOf(n[1]) <= base + 1 && /\d/.test(n[2]) === ordered;
      if (!sibling && indentOf(lines[j]) < Math.min(cur.offset, base + 2)) break;
      cur.loose = true;
      for (; i < j; i++) cur.body.push('');
      continue;
    }
    if (indentOf(line) > base) {
      cur.body.push(stripIndent(line, cur.offset));
      i++;
      continue;
    }
    // A lazy continuation of the item's paragraph.
    if (!isBlank(cur.body[cur.body.length - 1]) && !startsBlock(lines, i)) {
      cur.body.push(line.trim());
      i++;
      continue;
    }
    break;
  }
  for (const it of items) {
    const li = el('li');
    const task = /^\[([ xX])\][ \t]+/.exec(it.body[0]);
    if (task) {
      li.className = 'task';
      const box = el('span', task[1] === ' ' ? 'box' : 'box done');
      box.textContent = task[1] === ' ' ? '☐' : '☑';
      li.append(box, ' ');
      it.body[0] = it.body[0].slice(task[0].length);
    }
    const frag = document.createDocumentFragment();
    parseBlocks(it.body, frag, depth + 1);
    // A tight item holding one paragraph shows its text without the <p>.
    if (frag.childNodes.length >= 1 && frag.firstChild.nodeName === 'P' && !it.loose) {
      const p = frag.firstChild;
      frag.removeChild(p);
      li.append(...p.childNodes);
    }
    li.append(frag);
    list.append(li);
  }
  parent.append(list);
  return i;
}
