// The page of aci serve: the session list (branches as a tree), the
// conversation of the open session streamed over Server-Sent Events, its
// windows, approvals, state, Cancel, fork and usage. docs/protocol.md §7.

import * as API from './api.js';
import { el, icon, tokens, usd, ago } from './dom.js';
import { Conversation } from './conv.js';
import { Windows } from './wins.js';
import { Changes } from './changes.js';
import { initServerStatus, unauthorized } from './server.js';
import { takeToken } from './auth.js';
import { ModelPicker, confirmEnd } from './manage.js';
import { offerRewind } from './rewind.js';
import { arm, markTitle, notifyEvent, offerPermission } from './notify.js';
import { SlashMenu } from './slash.js';
import { Attachments } from './attach.js';
import { ModeSelector, askTrust } from './mode.js';

const $ = (id) => document.getElementById(id);
$('boot').remove();
$('app').hidden = false;
const ui = {
  sessions: $('sessions'), cwd: $('cwd'), newBtn: $('new'),
  title: $('title'), meta: $('meta'), usage: $('usage'), state: $('state'), conn: $('conn'), cancel: $('cancel'),
  scroll: $('scroll'), log: $('log'), empty: $('empty'),
  composer: $('composer'), input: $('input'), send: $('send'),
  wins: $('wins'), winCount: $('win-count'), banner: $('banner'), toast: $('toast'),
  model: $('model'), end: $('end'), confirm: $('confirm'),
};
initServerStatus(ui.banner);
offerPermission(document.querySelector('.head-right'));
const models = new ModelPicker(ui.model);
const modes = new ModeSelector($('mode'), $('accept-plan'), (err) => fail(err));

const STATE_LABEL = {
  idle: 'idle', awaiting_model: 'thinking', awaiting_approval: 'needs approval', executing: 'running',
};

const S = {
  id: null, // the open session
  gen: 0, // bumps on every switch; late answers for an old session are dropped
  info: null,
  list: [],
  es: null,
  state: 'idle',
  winVersion: new Map(),
};

const conv = new Conversation(ui.log, {
  forkTurn: (index) => index, // a turn's index counts from 1: fork keeps turns 1..index
  onFork: (turn) => forkAt(turn),
  onRewind: (turn, btn) => offerRewind(btn, turn, {
    id: () => S.id, toast, fail,
    open: async (id) => {
      history.pushState(null, '', '#' + encodeURIComponent(id));
      await open(id);
      refreshList();
    },
    putBack: (text) => {
      ui.input.value = text;
      autosize();
      ui.input.focus();
    },
  }),
  // Accepting edits for the session (Claude Code's offer at an edit) is
  // default mode, aci's acceptEdits: the mode is set, then the question
  // allowed (so the turn's next edits find it set).
  onDecide: async (requestID, decision) => {
    if (decision !== 'accept_edits') return API.decide(S.id, requestID, decision);
    const id = S.id;
    await API.setMode(id, 'default');
    return API.decide(id, requestID, 'allow');
  },
});
const wins = new Windows(ui.wins, ui.winCount);
const changes = new Changes($('changes'), $('chg-count'));

// ---- messages to the person ------------------------------------------------

let toastTimer = 0;
function toast(msg) {
  ui.toast.textContent = msg;
  ui.toast.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => (ui.toast.hidden = true), 6000);
}

function fail(err) {
  if (err && err.status === 401) {
    unauthorized();
    return;
  }
  if (err && err.status === 0) return; // the banner says the server is gone
  toast(err && err.message ? err.message : String(err));
}

// ---- the session list --------------------------------------------------------

let listTimer = 0;
function refreshListSoon() {
  clearTimeout(listTimer);
  listTimer = setTimeout(refreshList, 300);
}

async function refreshList() {
  try {
    S.list = (await API.listSessions()) || [];
  } catch (err) {
    fail(err);
    return;
  }
  renderList();
}

function renderList() {
  const nodes = new Map(S.list.map((s) => [s.id, { s, kids: [] }]));
  const roots = [];
  for (const n of nodes.values()) {
    const p = n.s.parent && nodes.get(n.s.parent);
    if (p && p !== n) p.kids.push(n);
    else roots.push(n);
  }
  const item = (n) => {
    const s = n.s;
    const state = s.state || 'idle';
    const meta = [`${s.turns || 0} turn${s.turns === 1 ? '' : 's'}`];
    const when = ago(s.updated || s.created);
    if (when) meta.push(when);
    const a = el('a', {
      class: 'sess' + (s.id === S.id ? ' active' : ''), href: '#' + encodeURIComponent(s.id), title: s.id,
    },
      el('span', { class: 'dot st-' + state, title: STATE_LABEL[state] || state }),
      el('span', { class: 'sess-text' },
        el('span', { class: 'sess-title' }, s.title || 'New session'),
        el('span', { class: 'sess-meta' },
          s.parent ? el('span', { class: 'branch', title: `a branch of ${s.parent} from its turn ${s.from_turn ?? '?'}` },
            icon('branch'), `from turn ${s.from_turn ?? '?'}`) : null,
          meta.join(' · '))));
    const li = el('li', {}, a);
    if (n.kids.length) {
      n.kids.sort((x, y) => String(x.s.created).localeCompare(String(y.s.created)));
      li.append(el('ul', { class: 'kids' }, n.kids.map(item)));
    }
    return li;
  };
  ui.sessions.replaceChildren(...roots.map(item));
  if (!S.list.length) ui.sessions.append(el('li', { class: 'empty small' }, 'No sessions yet.'));
}

// ---- the open session -----------------------------------------------------

function setState(state) {
  S.state = state || 'idle';
  ui.state.className = 'state st-' + S.state;
  ui.state.textContent = STATE_LABEL[S.state] || S.state;
  ui.state.hidden = !S.id;
  ui.cancel.hidden = !S.id || S.state === 'idle';
  ui.end.hidden = !S.id;
  // Sending while a turn runs adds to it (steering): the box stays usable.
  ui.input.placeholder = S.id && S.state !== 'idle' ? 'Add to the running turn…' : 'Ask aci…';
  document.body.dataset.state = S.state;
  const s = S.list.find((x) => x.id === S.id);
  if (s && s.state !== S.state) {
    s.state = S.state;
    renderList();
  }
}

function renderHead() {
  const info = S.info;
  if (!info) {
    ui.title.textContent = S.id ? 'Loading…' : 'aci';
    ui.meta.replaceChildren();
    ui.usage.textContent = '';
    return;
  }
  const listed = S.list.find((x) => x.id === info.id);
  ui.title.textContent = (listed && listed.title) || (info.turns && info.turns[0] && info.turns[0].question) || 'New session';
  const bits = [el('span', { class: 'mono', title: 'session id' }, info.id)];
  if (info.model) bits.push(el('span', { class: 'mono', title: 'model' }, info.model));
  if (info.parent) {
    bits.push(el('span', { class: 'branch' }, icon('branch'), 'branch of ',
      el('a', { href: '#' + encodeURIComponent(info.parent), class: 'mono' }, info.parent),
      ` at turn ${info.from_turn ?? '?'}`));
  }
  ui.meta.replaceChildren(...bits.flatMap((b, i) => (i ? [el('span', { class: 'sep' }, '·'), b] : [b])));
  if (info.cwd) {
    ui.cwd.replaceChildren(el('span', {}, info.cwd));
    ui.cwd.title = info.cwd;
  }
  const u = info.usage || {};
  ui.usage.textContent = u.prompt_tokens || u.completion_tokens
    ? `${tokens(u.prompt_tokens)} in · ${tokens(u.completion_tokens)} out` + (u.cached_tokens ? ` · ${tokens(u.cached_tokens)} cached` : '') +
      money(info.cost)
    : '';
  ui.usage.title = 'this session: tokens (prompt, completion, cached) and cost';
  document.title = markTitle(`${ui.title.textContent} · aci`);
}

// money is the session's cost and what the cache saved, or nothing when a
// price is unknown.
function money(c) {
  if (!c || c.usd == null) return '';
  return ` · ${usd(c.usd)}` + (c.saved_usd > 0 ? ` (cache saved ${usd(c.saved_usd)})` : '');
}

function showEmpty() {
  ui.empty.hidden = !(!S.id || conv.empty);
  ui.empty.replaceChildren(S.id
    ? el('div', {}, el('div', { class: 'empty-big' }, 'Ask anything.'),
      el('div', {}, 'aci works in ', el('code', {}, (S.info && S.info.cwd) || 'the workspace'), ': it runs commands, reads and edits files, and asks before anything risky.'))
    : el('div', {}, el('div', { class: 'empty-big' }, 'No session open.'),
      el('div', {}, 'Type a question below to start one, or pick one on the left.')));
}

async function open(id) {
  closeEvents();
  const gen = ++S.gen;
  S.id = id;
  S.info = null;
  S.winVersion = new Map();
  conv.reset();
  wins.reset();
  renderHead();
  renderList();
  setState('idle');
  showEmpty();
  modes.show(id, 'default', false);
  if (!id) return;
  let info;
  try {
    info = await API.getSession(id);
  } catch (err) {
    if (gen !== S.gen) return;
    fail(err);
    if (err.status === 404) {
      S.id = null;
      history.replaceState(null, '', location.pathname);
      renderHead();
      showEmpty();
    }
    return;
  }
  if (gen !== S.gen) return;
  S.info = info;
  renderHead();
  conv.load(info.turns, info.state && info.state !== 'idle');
  showEmpty();
  setState(info.state);
  modes.show(id, info.mode, info.plan_ready, info.modes);
  changes.load(id);
  for (const w of info.windows || []) {
    wins.update(w);
    loadWindow(gen, w.id);
  }
  arm((info.turns || []).length);
  openEvents(gen);
  ui.input.focus();
}

async function loadWindow(gen, windowID) {
  const v = S.winVersion.get(windowID) || 0;
  try {
    const w = await API.getWindow(S.id, windowID);
    // A `window` event that came meanwhile is newer than this answer.
    if (gen === S.gen && (S.winVersion.get(windowID) || 0) === v) wins.update(w);
  } catch (err) {
    if (gen === S.gen && err.status !== 404) fail(err);
  }
}

let infoTimer = 0;
function refreshInfo() {
  clearTimeout(infoTimer);
  infoTimer = setTimeout(async () => {
    const gen = S.gen;
    try {
      const info = await API.getSession(S.id);
      if (gen !== S.gen) return;
      S.info = info;
      renderHead();
    } catch (err) {
      if (gen === S.gen) fail(err);
    }
  }, 150);
}

// ---- events ------------------------------------------------------------------

function closeEvents() {
  if (S.es) S.es.close();
  S.conn = '';
  S.es = null;
  setConn('');
}

function setConn(c) {
  ui.conn.className = 'conn ' + c;
  ui.conn.title = { live: 'live: events stream in', retry: 'reconnecting…', down: 'disconnected' }[c] || '';
}

function openEvents(gen) {
  // No filtering by id: the server sends only what came after the last id
  // seen, and a restarted server numbers its events from 1 again.
  S.es = new API.EventStream(API.eventsURL(S.id), (type, data) => {
    if (gen !== S.gen) return;
    onEvent(type, data);
  }, (status, err) => {
    if (gen !== S.gen) return;
    const back = status === 'live' && S.conn && S.conn !== 'live';
    S.conn = status;
    setConn(status);
    if (status === 'down') fail(err);
    // Back after a gap (a restarted server ends its turns): take the state as it is now.
    if (back) reconcile(gen);
  });
}

async function reconcile(gen) {
  try {
    const info = await API.getSession(S.id);
    if (gen !== S.gen) return;
    S.info = info;
    renderHead();
    setState(info.state);
    if (info.state === 'idle') conv.handle('state', { state: 'idle' });
  } catch (err) {
    if (gen === S.gen) fail(err);
  }
}

function onEvent(type, d) {
  notifyEvent(type, d, S.id);
  switch (type) {
    case 'state':
      setState(d.state);
      conv.handle(type, d);
      break;
    case 'window':
      S.winVersion.set(d.id, (S.winVersion.get(d.id) || 0) + 1);
      wins.update(d);
      break;
    case 'result':
      conv.handle(type, d);
      changes.load(S.id);
      refreshInfo();
      refreshListSoon();
      break;
    case 'mode':
      modes.event(d);
      break;
    case 'turn': {
      conv.handle(type, d);
      showEmpty();
      // The list learns of the turn at once; the server's view follows.
      const s = S.list.find((x) => x.id === S.id);
      if (s) {
        s.turns = Math.max(s.turns || 0, d.turn || 0);
        // A session is named by its first question, as the server names it.
        if (d.turn === 1) s.title = String(d.question || '').split(/\s+/).join(' ').trim().slice(0, 80);
        renderList();
        renderHead();
      }
      refreshListSoon();
      break;
    }
    default:
      conv.handle(type, d);
  }
}

// ---- actions ------------------------------------------------------------------

async function newSession() {
  try {
    const s = await API.createSession(models.chosen());
    await refreshList();
    location.hash = encodeURIComponent(s.id);
    return s.id;
  } catch (err) {
    fail(err);
    return null;
  }
}

async function forkAt(turn) {
  try {
    const s = await API.fork(S.id, turn);
    await refreshList();
    location.hash = encodeURIComponent(s.id);
  } catch (err) {
    fail(err);
  }
}

async function send() {
  const text = ui.input.value;
  if (!text.trim()) {
    if (attached.images()) toast('write a question to send with the pictures');
    return;
  }
  // No check of the state here: the page's view of it may lag by an event.
  // While a turn runs the text joins it (the answer says steer).
  ui.send.disabled = true;
  try {
    let id = S.id;
    if (!id) {
      const s = await API.createSession(models.chosen());
      id = s.id;
      history.pushState(null, '', '#' + encodeURIComponent(id));
      await open(id);
      refreshList();
    }
    const images = attached.images();
    const r = await API.sendMessage(id, text, images);
    if (r && r.steer) toast('added to the running turn: the model reads it with its next request');
    // Only now: a refused message stays in the box, nothing lost.
    if (ui.input.value === text) ui.input.value = '';
    if (images) attached.sent(images.length);
    autosize();
  } catch (err) {
    fail(err);
  } finally {
    ui.send.disabled = false;
  }
}

function autosize() {
  ui.input.style.height = 'auto';
  ui.input.style.height = Math.min(ui.input.scrollHeight, window.innerHeight * 0.4) + 'px';
}

ui.composer.addEventListener('submit', (e) => {
  e.preventDefault();
  send();
});
ui.input.addEventListener('keydown', (e) => {
  if (e.key === 'Enter' && !e.shiftKey && !e.isComposing && !e.altKey && !e.ctrlKey && !e.metaKey) {
    e.preventDefault();
    send();
  }
});
ui.input.addEventListener('input', autosize);
new SlashMenu(ui.input, ui.composer);
const attached = new Attachments(ui.input, ui.composer, (msg) => toast(msg));
ui.newBtn.addEventListener('click', () => newSession());
// The state says a question waits: a click brings it into view.
ui.state.addEventListener('click', () => {
  const card = [...ui.log.querySelectorAll('.approval:not(.settled)')].pop();
  if (card) {
    card.scrollIntoView({ block: 'center', behavior: 'smooth' });
    card.querySelector('button')?.focus({ preventScroll: true });
  }
});
ui.end.addEventListener('click', async () => {
  const id = S.id;
  if (!id) return;
  const listed = S.list.find((x) => x.id === id);
  if (!(await confirmEnd(ui.confirm, id, listed && listed.title))) return;
  try {
    await API.endSession(id);
  } catch (err) {
    fail(err);
    return;
  }
  toast(`Session ${id} ended; its transcript is kept.`);
  if (S.id === id) {
    history.pushState(null, '', location.pathname);
    open(null);
  }
  refreshList();
});
ui.cancel.addEventListener('click', async () => {
  try {
    await API.cancelTurn(S.id);
  } catch (err) {
    fail(err);
  }
});

function route() {
  // #ID, or #session=ID as the REPL's /serve prints it after the token.
  const id = decodeURIComponent(location.hash.slice(1)).replace(/^session=/, '');
  if (id !== (S.id || '')) open(id || null);
}
window.addEventListener('hashchange', async () => {
  // A new address pasted into the open tab: its token is taken (never
  // routed as a session, so never in a request's path), and the page
  // reads everything again with it.
  if (takeToken()) {
    models.load();
    await refreshList();
    const again = S.id || (S.list[0] && S.list[0].id);
    if (!location.hash && again) history.replaceState(null, '', '#' + encodeURIComponent(again));
    S.id = null;
  }
  route();
});

// The list changes under other clients too: look again now and then.
setInterval(() => {
  if (!document.hidden) refreshList();
}, 10000);

(async () => {
  models.load();
  askTrust(ui.confirm, el, (err) => fail(err));
  await refreshList();
  if (!location.hash && S.list.length) {
    history.replaceState(null, '', '#' + encodeURIComponent(S.list[0].id));
  }
  route();
  if (!S.id) showEmpty();
})();
