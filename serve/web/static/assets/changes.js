// The changes panel (docs/protocol.md §9 "The session's changes"): every file
// the session changed, against its state before the session's first turn,
// from GET /api/sessions/{id}/diff; reloaded when a turn ends.

import { el } from './dom.js';
import { getDiff } from './api.js';

const MARK = { added: 'A', modified: 'M', deleted: 'D' };

export class Changes {
  constructor(root, countNode) {
    this.root = root;
    this.countNode = countNode;
    this.gen = 0;
    this.show([], '');
  }

  // load asks the server for session id's changes; an older answer that
  // comes after a newer request is dropped.
  async load(id) {
    const gen = ++this.gen;
    if (!id) return this.show([], '');
    try {
      const d = await getDiff(id);
      if (gen === this.gen) this.show(d.files || [], d.note || '');
    } catch (err) {
      if (gen === this.gen) this.show([], err.message);
    }
  }

  show(files, note) {
    this.countNode.textContent = files.length ? String(files.length) : '';
    const nodes = files.map((f) => el('details', { class: 'win change', 'data-path': f.path },
      el('summary', {}, el('span', { class: 'chg-mark chg-' + f.status, title: f.status }, MARK[f.status] || '?'),
        el('span', { class: 'win-title mono' }, f.path)),
      diffNode(f.diff)));
    if (!files.length) nodes.push(el('div', { class: 'empty small' }, 'No file changed by this session.'));
    if (note) nodes.push(el('div', { class: 'empty small chg-note' }, note));
    this.root.replaceChildren(...nodes);
  }
}

// diffNode draws a unified diff, each line as text in a span of its kind.
function diffNode(diff) {
  const pre = el('pre', { class: 'win-content diff' });
  for (const line of (diff || '').split('\n')) {
    let cls = '';
    if (line.startsWith('+++') || line.startsWith('---')) cls = 'd-file';
    else if (line.startsWith('+')) cls = 'd-add';
    else if (line.startsWith('-')) cls = 'd-del';
    else if (line.startsWith('@@')) cls = 'd-hunk';
    pre.append(el('span', { class: cls }, line + '\n'));
  }
  return pre;
}
