// Managing sessions from the page as the API allows: the model of a new
// session (GET /api/models, as the REPL's /model lists them) and ending a
// session (DELETE /api/sessions/{id}), asked first.

import { el } from './dom.js';
import * as API from './api.js';

// ModelPicker fills a <select> with the server's models, the configured
// one first and chosen; chosen() is '' while that one is chosen, so a new
// session gets the server's default as when none is named.
export class ModelPicker {
  constructor(select) {
    this.select = select;
    this.def = '';
  }

  async load() {
    let got;
    try {
      got = await API.listModels();
    } catch (err) {
      // The model server lists none: new sessions get the configured model.
      this.select.hidden = true;
      this.select.title = err.message || String(err);
      return;
    }
    this.def = got.default || '';
    const names = [...new Set([this.def, ...(got.models || [])].filter(Boolean))];
    const keep = this.select.value;
    // A provider's models go in a group of their own (docs/protocol.md §2).
    const groups = new Map((got.providers || []).map((p) => [p.name, []]));
    const plain = [];
    for (const n of names) {
      const g = n !== this.def && groups.get(n.split('/')[0]);
      (g || plain).push(el('option', { value: n }, n === this.def ? `${n} (default)` : n));
    }
    this.select.replaceChildren(...plain, ...[...groups].filter(([, opts]) => opts.length)
      .map(([name, opts]) => el('optgroup', { label: name }, ...opts)));
    this.select.value = names.includes(keep) ? keep : this.def;
    this.select.hidden = names.length < 2;
  }

  chosen() {
    const v = this.select.hidden ? '' : this.select.value;
    return v === this.def ? '' : v;
  }
}

// confirmEnd asks, in the page, whether to end the session id; it resolves
// to true only on the person's explicit yes.
export function confirmEnd(dialog, id, title) {
  const ok = el('button', { type: 'button', class: 'danger', value: 'end' }, 'End session');
  const no = el('button', { type: 'button', value: 'keep' }, 'Keep it');
  dialog.replaceChildren(
    el('h2', {}, 'End this session?'),
    el('p', {}, el('strong', {}, title || 'New session'), ' ', el('span', { class: 'mono muted' }, id)),
    el('p', {}, 'A running turn is cancelled; its commands, background tasks and MCP servers end. ',
      'Its transcript stays: the session can be opened here again, or continued with ',
      el('code', {}, 'aci --resume ' + id), '.'),
    el('div', { class: 'dialog-row' }, no, ok));
  return new Promise((resolve) => {
    const done = (yes) => {
      dialog.close();
      resolve(yes);
    };
    ok.addEventListener('click', () => done(true));
    no.addEventListener('click', () => done(false));
    dialog.addEventListener('cancel', () => resolve(false), { once: true }); // Escape
    dialog.showModal();
    no.focus();
  });
}
