// A small Markdown renderer for the model's answers. It builds DOM nodes
// itself: model text only ever enters the page as text nodes, and the only
// elements are the ones made here, so no markup in an answer can run (there
// is no HTML parsing at all). Links go only to http(s) or the page's own
// origin; images are never loaded (an image is a link to click).
//
// Covered: paragraphs, headings, fenced code, block quotes, bullet, ordered
// and task lists (nested by indentation), tables, rules; code spans,
// emphasis, strong, strikethrough, links, autolinks and bare URLs.

import { icon } from './dom.js';

const PUNCT = '!"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~';

// safeHref returns an absolute http(s) or mailto URL for raw, or null.
export function safeHref(raw) {
  const s = String(raw).trim();
  if (s === '') return null;
  let u;
  try {
    u = new URL(s, document.baseURI);
  } catch {
    return null;
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:' && u.protocol !== 'mailto:') return null;
  return u.href;
}

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

// MAX_DEPTH bounds the nesting of quotes, lists, links and emphasis: deeper
// shows as text (and the renderer's recursion stays far from the stack's end).
const MAX_DEPTH = 16;

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

// ---- inline ----------------------------------------------------------------

// The scans for a closing delimiter remember where none is left, so text
// full of unmatched `*`, `_` or backticks renders in linear time: a memo
// belongs to one string.
const newMemo = () => ({ code: new Map(), closer: new Map() });

// LINK_SCAN bounds how far a link's text and address may reach.
const LINK_SCAN = 4000;

// codeSpanEnd returns the index after the code span opening at i, or -1.
function codeSpanEnd(s, i, memo) {
  let n = 0;
  while (s[i + n] === '`') n++;
  const none = memo.code.get(n);
  if (none !== undefined && i + n >= none) return -1;
  let j = i + n;
  while ((j = s.indexOf('`', j)) !== -1) {
    let k = 0;
    while (s[j + k] === '`') k++;
    if (k === n) return j + k;
    j += k;
  }
  memo.code.set(n, i + n);
  return -1;
}

const isSpace = (c) => c === undefined || /\s/.test(c);
const isWord = (c) => c !== undefined && /[\p{L}\p{N}]/u.test(c);

// findCloser finds delim closing an emphasis opened before from, skipping
// escapes and code spans; -1 when there is none.
function findCloser(s, from, delim, memo) {
  const none = memo.closer.get(delim);
  if (none !== undefined && from >= none) return -1;
  for (let j = from; j < s.length; j++) {
    const c = s[j];
    if (c === '\\') {
      j++;
      continue;
    }
    if (c === '`') {
      const end = codeSpanEnd(s, j, memo);
      if (end !== -1) {
        j = end - 1;
        continue;
      }
    }
    if (s.startsWith(delim, j) && j > from && !isSpace(s[j - 1])) {
      const after = s[j + delim.length];
      if (after === delim[0]) {
        // Part of a longer run: skip the whole run.
        while (s[j + 1] === delim[0]) j++;
        continue;
      }
      if (delim[0] === '_' && isWord(after)) continue;
      return j;
    }
  }
  memo.closer.set(delim, from);
  return -1;
}

// brackets pairs every '[' of s with its ']' in one pass (escapes and
// code spans skipped), so that looking for a link's end costs nothing.
function brackets(s, memo) {
  if (memo.brackets) return memo.brackets;
  const pairs = new Map();
  const open = [];
  for (let j = 0; j < s.length; j++) {
    const c = s[j];
    if (c === '\\') {
      j++;
    } else if (c === '`') {
      const end = codeSpanEnd(s, j, memo);
      if (end !== -1) j = end - 1;
      else while (s[j + 1] === '`') j++;
    } else if (c === '[') {
      open.push(j);
    } else if (c === ']' && open.length) {
      pairs.set(open.pop(), j);
    }
  }
  memo.brackets = pairs;
  return pairs;
}

// find is s.indexOf(ch, from), remembering where ch no longer occurs.
function find(s, ch, from, memo) {
  const none = memo.closer.get('find' + ch);
  if (none !== undefined && from >= none) return -1;
  const at = s.indexOf(ch, from);
  if (at === -1) memo.closer.set('find' + ch, from);
  return at;
}

// linkAt parses [text](dest "title") at i: {text, dest, end} or null.
function linkAt(s, i, memo) {
  const j = brackets(s, memo).get(i);
  if (j === undefined || j - i > LINK_SCAN) return null;
  if (s[j + 1] !== '(') return null;
  const text = s.slice(i + 1, j);
  let k = j + 2;
  while (s[k] === ' ') k++;
  let dest = '';
  if (s[k] === '<') {
    const close = find(s, '>', k, memo);
    if (close === -1) return null;
    dest = s.slice(k + 1, close);
    k = close + 1;
  } else {
    let parens = 0;
    const start = k;
    for (const end = Math.min(s.length, k + LINK_SCAN); k < end; k++) {
      const c = s[k];
      if (c === '\\') {
        k++;
        continue;
      }
      if (/\s/.test(c)) break;
      if (c === '(') parens++;
      else if (c === ')') {
        if (parens === 0) break;
        parens--;
      }
    }
    dest = s.slice(start, k);
  }
  while (s[k] === ' ') k++;
  if (s[k] === '"' || s[k] === "'") {
    const close = find(s, s[k], k + 1, memo);
    if (close === -1) return null;
    k = close + 1;
    while (s[k] === ' ') k++;
  }
  if (s[k] !== ')') return null;
  return { text, dest, end: k + 1 };
}

function link(href, parent) {
  const a = el('a');
  a.href = href;
  a.target = '_blank';
  a.rel = 'noopener noreferrer';
  parent.append(a);
  return a;
}

// Sticky: they match at lastIndex, with no copy of the rest of the text.
const reBareURL = /https?:\/\/[^\s<>"'`]+/iy;
const reAutolink = /<((?:https?:\/\/|mailto:)[^\s<>]+)>/iy;

export function parseInline(s, parent, memo = newMemo(), depth = 0) {
  if (depth > MAX_DEPTH) {
    parent.append(s);
    return;
  }
  let buf = '';
  const flush = () => {
    if (buf) parent.append(buf);
    buf = '';
  };
  let i = 0;
  while (i < s.length) {
    const c = s[i];
    if (c === '\\') {
      if (PUNCT.includes(s[i + 1] ?? '')) {
        buf += s[i + 1];
        i += 2;
        continue;
      }
      if (s[i + 1] === '\n') {
        flush();
        parent.append(el('br'));
        i += 2;
        continue;
      }
    }
    if (c === '`') {
      const end = codeSpanEnd(s, i, memo);
      let n = 0;
      while (s[i + n] === '`') n++;
      if (end === -1) {
        buf += s.slice(i, i + n);
        i += n;
        continue;
      }
      let code = s.slice(i + n, end - n).replace(/\n/g, ' ');
      if (code.length > 1 && code.startsWith(' ') && code.endsWith(' ') && code.trim() !== '') code = code.slice(1, -1);
      flush();
      const e = el('code');
      e.textContent = code;
      parent.append(e);
      i = end;
      continue;
    }
    if (c === '*' || c === '_' || c === '~') {
      let n = 0;
      while (s[i + n] === c) n++;
      const opensOK = !isSpace(s[i + n]) && !(c === '_' && isWord(s[i - 1]));
      const sizes = c === '~' ? (n === 2 ? [2] : []) : n <= 3 ? [n] : [];
      if (opensOK && sizes.length) {
        const delim = c.repeat(n);
        const close = findCloser(s, i + n, delim, memo);
        if (close !== -1) {
          flush();
          let outer;
          let inner;
          if (c === '~') outer = inner = el('del');
          else if (n === 1) outer = inner = el('em');
          else if (n === 2) outer = inner = el('strong');
          else {
            outer = el('strong');
            inner = el('em');
            outer.append(inner);
          }
          parseInline(s.slice(i + n, close), inner, undefined, depth + 1);
          parent.append(outer);
          i = close + n;
          continue;
        }
      }
      buf += s.slice(i, i + n);
      i += n;
      continue;
    }
    if (c === '[' || (c === '!' && s[i + 1] === '[')) {
      const image = c === '!';
      const l = linkAt(s, image ? i + 1 : i, memo);
      if (l) {
        const href = safeHref(l.dest);
        if (href) {
          flush();
          const a = link(href, parent);
          if (image) {
            // Never load it: an image from elsewhere is a request off the page's origin.
            a.className = 'image-link';
            a.title = 'image: ' + href;
            a.append(icon('image'), ' ', l.text || href);
          } else parseInline(l.text, a, undefined, depth + 1);
          i = l.end;
          continue;
        }
        // A link to anything else shows as the text it is.
        buf += s.slice(i, l.end);
        i = l.end;
        continue;
      }
    }
    if (c === '<') {
      reAutolink.lastIndex = i;
      const m = reAutolink.exec(s);
      const href = m && safeHref(m[1]);
      if (href) {
        flush();
        link(href, parent).textContent = m[1];
        i += m[0].length;
        continue;
      }
    }
    if ((c === 'h' || c === 'H') && !isWord(s[i - 1])) {
      reBareURL.lastIndex = i;
      const m = reBareURL.exec(s);
      if (m) {
        let url = m[0];
        // Trailing punctuation belongs to the sentence, as does an unmatched ')'.
        for (;;) {
          const last = url[url.length - 1];
          if ('.,;:!?*_\''.includes(last)) url = url.slice(0, -1);
          else if (last === ')' && (url.match(/\(/g) || []).length < (url.match(/\)/g) || []).length) url = url.slice(0, -1);
          else break;
        }
        const href = safeHref(url);
        if (href) {
          flush();
          link(href, parent).textContent = url;
          i += url.length;
          continue;
        }
      }
    }
    buf += c;
    i++;
  }
  flush();
}
