// The inline part of the Markdown renderer (md.js): code spans, emphasis,
// strong, strikethrough, links, autolinks and bare URLs, built as DOM nodes
// with the text as text nodes. Every scan is linear in the text, whatever
// it holds.

import { icon } from './dom.js';

// MAX_DEPTH bounds the nesting of quotes, lists, links and emphasis: deeper
// shows as text (and the renderer's recursion stays far from the stack's end).
export const MAX_DEPTH = 16;

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
