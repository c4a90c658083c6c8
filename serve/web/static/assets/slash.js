// The "/" menu of the composer: typing "/" at the start of a message lists
// the workspace's slash commands (GET api/commands: /init, /review, the
// command files and the skills), filtered as the name is typed. Arrow keys
// move, Tab or Enter takes one ("/name " in the box), Escape closes. The
// server expands a command when the message is sent (docs/protocol.md §9).

import { api } from './api.js';
import { el } from './dom.js';

export class SlashMenu {
  constructor(input, composer) {
    this.input = input;
    this.list = [];
    this.shown = [];
    this.sel = 0;
    this.loaded = 0;
    this.menu = el('ul', { id: 'slash-menu', class: 'slash-menu', role: 'listbox', 'aria-label': 'Commands', hidden: true });
    composer.querySelector('.composer-box').prepend(this.menu);
    input.addEventListener('input', () => this.update());
    input.addEventListener('blur', () => setTimeout(() => this.close(), 150));
    // Capturing on the form runs before the composer's own Enter handler.
    composer.addEventListener('keydown', (e) => this.key(e), true);
  }

  // word is the command name being typed, or null when the box holds
  // something else.
  word() {
    const m = /^\/([^\s]*)$/.exec(this.input.value);
    return m ? m[1].toLowerCase() : null;
  }

  async update() {
    const w = this.word();
    if (w === null) return this.close();
    // The files may change under the page: fetch again after a few seconds.
    if (Date.now() - this.loaded > 5000) {
      this.loaded = Date.now();
      try {
        this.list = (await api('GET', 'api/commands')).commands || [];
      } catch {
        this.list = [];
      }
      if (this.word() === null) return this.close();
    }
    const typed = this.word();
    this.shown = this.list.filter((c) => c.name.startsWith(typed));
    this.sel = Math.min(this.sel, Math.max(0, this.shown.length - 1));
    this.render();
  }

  render() {
    this.menu.replaceChildren(...this.shown.map((c, i) => {
      const bad = !!c.problem;
      return el('li', {
        class: 'slash-item' + (i === this.sel ? ' sel' : '') + (bad ? ' bad' : ''),
        role: 'option', 'aria-selected': i === this.sel ? 'true' : 'false', 'data-name': c.name,
        onmousedown: (e) => { e.preventDefault(); this.take(i); },
      },
      el('span', { class: 'slash-name mono' }, '/' + c.name + (c.argument_hint ? ' ' + c.argument_hint : '')),
      el('span', { class: 'slash-desc' }, bad ? 'cannot run: ' + c.problem : (c.description || '')),
      c.scope !== 'built-in' ? el('span', { class: 'slash-scope' }, c.scope) : null);
    }));
    this.menu.hidden = this.shown.length === 0;
  }

  take(i) {
    const c = this.shown[i];
    if (!c) return;
    this.input.value = '/' + c.name + ' ';
    this.input.dispatchEvent(new Event('input'));
    this.close();
    this.input.focus();
  }

  close() {
    this.menu.hidden = true;
    this.shown = [];
  }

  key(e) {
    if (this.menu.hidden || e.target !== this.input) return;
    const n = this.shown.length;
    switch (e.key) {
      case 'ArrowDown': this.sel = (this.sel + 1) % n; break;
      case 'ArrowUp': this.sel = (this.sel + n - 1) % n; break;
      case 'Escape': this.close(); break;
      case 'Tab':
      case 'Enter':
        if (e.shiftKey || e.isComposing) return;
        // A name typed whole with Enter is sent as it is.
        if (e.key === 'Enter' && this.shown[this.sel] && this.shown[this.sel].name === this.word()) return;
        this.take(this.sel);
        break;
      default: return;
    }
    e.preventDefault();
    e.stopPropagation();
    if (!this.menu.hidden) this.render();
  }
}
