// The permission mode's selector and the "Accept plan" button in the
// session's header (docs/protocol.md section 10). The session's mode events keep
// them current, whoever changed the mode (the terminal, an editor, here).

import * as API from './api.js';

// CLAUDE are Claude Code's names for aci's modes, shown beside them.
const CLAUDE = { default: 'acceptEdits', ask: "Claude Code's default", yes: 'bypassPermissions' };

export class ModeSelector {
  // select: the <select>; accept: the button; onError(err) shows a failure.
  constructor(select, accept, onError) {
    this.select = select;
    this.accept = accept;
    this.onError = onError;
    this.id = null;
    this.offered = '';
    this.options(['ask', 'default', 'plan']); // the server's order (windows.Modes), before its list arrives
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

  // options offers modes: only those the server lets a client take (the
  // session's info lists them), and the session's own mode.
  options(modes) {
    const key = modes.join(',');
    if (key === this.offered) return;
    this.offered = key;
    this.select.replaceChildren();
    for (const m of modes) {
      const o = document.createElement('option');
      o.value = m;
      o.textContent = 'mode: ' + m + (CLAUDE[m] ? ' (' + CLAUDE[m] + ')' : '');
      this.select.append(o);
    }
  }

  // show puts session id's mode in the header ("" id: none open); modes,
  // when given, are the ones this server offers.
  show(id, mode, planReady, modes) {
    this.id = id;
    this.mode = mode || 'default';
    const offer = (modes && modes.length ? modes : this.offered.split(',')).filter((m) => m);
    if (!offer.includes(this.mode)) offer.push(this.mode);
    this.options(offer);
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
      this.show(this.id, info.mode, info.plan_ready, info.modes);
    } catch {
      // the next event says it again
    }
  }
}

// askTrust asks once, when the folder's project hooks or MCP servers are
// not trusted as they are now, whether they may run (docs/protocol.md section
// 10): yes is kept by the server for the sessions made from then on.
export async function askTrust(dialog, el, onError) {
  let info;
  try {
    info = await API.trustInfo();
  } catch (err) {
    return; // an older server, or not reachable: nothing to ask
  }
  if (info.trusted || !info.lines || info.lines.length === 0) return;
  const ok = el('button', { type: 'button', class: 'primary', value: 'trust' }, 'Trust this folder');
  const no = el('button', { type: 'button', value: 'no' }, 'Not now');
  const changed = info.changes && info.changes.length
    ? [el('p', {}, 'Asked again: this folder changed since you trusted it:'),
      el('ul', { class: 'mono' }, ...info.changes.map((l) => el('li', {}, l)))]
    : [];
  dialog.replaceChildren(
    el('h2', {}, 'Trust this folder?'),
    ...changed,
    el('p', {}, "This folder's project settings would run code on your machine or send your key:"),
    el('ul', { class: 'mono' }, ...info.lines.map((l) => el('li', {}, l))),
    el('p', {}, 'Trusted, they run in the sessions started from now on, until they change. Not trusted, they are skipped.'),
    el('div', { class: 'dialog-row' }, no, ok));
  const yes = await new Promise((resolve) => {
    const done = (v) => {
      dialog.close();
      resolve(v);
    };
    ok.addEventListener('click', () => done(true));
    no.addEventListener('click', () => done(false));
    dialog.addEventListener('cancel', () => resolve(false), { once: true });
    dialog.showModal();
    no.focus();
  });
  if (!yes) return;
  try {
    await API.trust();
  } catch (err) {
    onError(err);
  }
}
