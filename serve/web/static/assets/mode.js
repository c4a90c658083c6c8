// The permission mode's selector and the "Accept plan" button in the
// session's header (PROTOCOL.md section 10). The session's mode events keep
// them current, whoever changed the mode (the terminal, an editor, here).

import * as API from './api.js';

export class ModeSelector {
  // select: the <select>; accept: the button; onError(err) shows a failure.
  constructor(select, accept, onError) {
    this.select = select;
    this.accept = accept;
    this.onError = onError;
    this.id = null;
    for (const m of ['default', 'ask', 'plan', 'yes']) {
      const o = document.createElement('option');
      o.value = m;
      o.textContent = 'mode: ' + m;
      select.append(o);
    }
    select.addEventListener('change', async () => {
      const id = this.id;
      try {
        const r = await API.setMode(id, select.value);
        if (id === this.id) this.show(id, r.mode, false);
      } catch (err) {
        onError(err);
        if (id === this.id) this.refresh();
      }
    });
    accept.addEventListener('click', async () => {
      accept.disabled = true;
      try {
        await API.acceptPlan(this.id);
        accept.hidden = true;
      } catch (err) {
        onError(err);
      } finally {
        accept.disabled = false;
      }
    });
  }

  // show puts session id's mode in the header ("" id: none open).
  show(id, mode, planReady) {
    this.id = id;
    this.mode = mode || 'default';
    this.select.hidden = !id;
    this.select.value = this.mode;
    this.accept.hidden = !id || !planReady || this.mode !== 'plan';
  }

  // event takes a mode event of the open session.
  event(d) {
    this.show(this.id, d.mode, !!d.plan_ready);
  }

  async refresh() {
    if (!this.id) return;
    try {
      const info = await API.getSession(this.id);
      this.show(this.id, info.mode, info.plan_ready);
    } catch {
      // the next event says it again
    }
  }
}
