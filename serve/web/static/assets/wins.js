// The windows panel: every open window of the session with what it shows
// now, updated from `window` events.

import { el, nearBottom } from './dom.js';

export class Windows {
  constructor(root, countNode) {
    this.root = root;
    this.countNode = countNode;
    this.reset();
  }

  reset() {
    this.root.replaceChildren();
    this.wins = new Map(); // id → {node, pre, title, app}
    this.count();
  }

  count() {
    this.countNode.textContent = this.wins.size ? String(this.wins.size) : '';
    if (!this.wins.size) {
      this.root.replaceChildren(el('div', { class: 'empty small' }, 'No window open. The model opens windows to run commands, read and edit files, or fetch pages.'));
    }
  }

  // update takes a window's state: {id, app, title, content?, closed?}.
  update(w) {
    if (!w || !w.id) return;
    let rec = this.wins.get(w.id);
    if (w.closed) {
      if (rec) {
        rec.node.remove();
        this.wins.delete(w.id);
        this.count();
      }
      return;
    }
    if (!rec) {
      if (!this.wins.size) this.root.replaceChildren();
      const pre = el('pre', { class: 'win-content' });
      const title = el('span', { class: 'win-title' });
      const app = el('span', { class: 'win-app' });
      // The launcher only lists the apps: folded until asked for.
      const node = el('details', { class: 'win', open: w.app !== 'launcher', 'data-window': w.id },
        el('summary', {}, el('span', { class: 'win-id' }, w.id), app, title),
        pre);
      this.root.append(node);
      rec = { node, pre, title, app, seen: false };
      this.wins.set(w.id, rec);
      this.count();
    }
    if (w.app !== undefined) rec.app.textContent = w.app;
    if (w.title !== undefined) {
      rec.title.textContent = w.title;
      rec.title.title = w.title;
    }
    if (typeof w.content === 'string') {
      // A window whose end was in view keeps its end in view (a command's output grows there).
      const stick = !rec.seen ? rec.app.textContent === 'bash' : nearBottom(rec.pre, 24);
      if (rec.pre.textContent !== w.content) {
        rec.pre.textContent = w.content;
        if (rec.seen) {
          rec.node.classList.remove('flash');
          void rec.node.offsetWidth; // restart the animation
          rec.node.classList.add('flash');
        }
      }
      if (stick) rec.pre.scrollTop = rec.pre.scrollHeight;
      rec.seen = true;
    }
  }
}
