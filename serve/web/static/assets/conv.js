// The conversation of one session: its turns, each with the question, the
// model's words rendered as Markdown, a line per action with its output or
// diff, notices, approval questions and the turn's result.

import { el, icon, tokens, usd, duration, nearBottom } from './dom.js';
import { renderMarkdown, diffLines } from './md.js';

// A window's params worth showing on the action's line, first found wins.
const SUMMARY_KEYS = ['command', 'path', 'target', 'url', 'query', 'pattern', 'uri', 'n', 'text'];
const MAX_OPEN_LINES = 24; // outputs up to this long start unfolded
const LIVE_MAX = 64 * 1024; // a running command's output kept in its row

// decisionText says how a question was answered, and by whom when not
// here (the terminal, or aci when no one answered in time).
// ASK_MODE_FILE is the reason of a file change asked only for ask mode
// (windows.AskModeFileReason).
const ASK_MODE_FILE = 'ask mode: every file change is asked';

function decisionText(d) {
  const what = { allow: 'allowed', always: 'allowed always', always_project: 'allowed for this project' }[d.decision] || 'denied';
  if (d.by === 'aci') return what + ': no one answered in time';
  return d.by && d.by !== 'web page' ? `${what} in the ${d.by}` : what;
}

function summarize(params) {
  if (!params || typeof params !== 'object') return { arg: '', rest: null };
  const keys = Object.keys(params);
  const key = SUMMARY_KEYS.find((k) => k in params);
  if (!key) return { arg: keys.length ? compact(params) : '', rest: null };
  const v = params[key];
  const arg = typeof v === 'string' ? v : JSON.stringify(v);
  const rest = keys.length > 1 ? Object.fromEntries(keys.filter((k) => k !== key).map((k) => [k, params[k]])) : null;
  return { arg, rest };
}

function compact(v) {
  const s = JSON.stringify(v);
  return s.length > 200 ? s.slice(0, 200) + '…' : s;
}

function looksLikeDiff(s) {
  return /^(--- |\+\+\+ |@@ |diff )/m.test(s) && /^@@ /m.test(s);
}

function firstLine(s) {
  const l = String(s).split('\n').find((x) => x.trim() !== '') || '';
  return l.length > 160 ? l.slice(0, 160) + '…' : l;
}

export class Conversation {
  // hooks: onFork(turn), onRewind(turn, button), onDecide(requestID, decision) → Promise, forkTurn(index) → fork's "turn".
  constructor(root, hooks) {
    this.root = root;
    this.hooks = hooks;
    this.reset();
  }

  reset() {
    this.root.replaceChildren();
    this.turns = new Map(); // index → turn record
    this.current = null;
    this.calls = new Map(); // call_id → action record
    this.pending = new Set(); // approval cards still waiting
    this.dirty = new Set(); // text segments to render on the next frame
    this.frame = 0;
    this.running = false;
  }

  // load shows the turns the session already has (GET /api/sessions/{id});
  // running: a turn is under way, so events before its `turn` event (which
  // may have left the server's buffer) belong to the last turn.
  load(turns, running) {
    this.running = running;
    for (const t of turns || []) {
      const rec = this.turn(t.index, t.question);
      // A past turn as it looked live: its actions with their output, the
      // messages added to it, then its answer.
      const cur = this.current;
      this.current = rec;
      for (const a of t.actions || []) {
        this.toolCall(a);
        this.toolResult({ call_id: a.call_id, status: a.status, output: a.output });
      }
      for (const text of t.steers || []) this.steer(rec, text);
      this.current = cur;
      if (t.answer) this.appendText(rec, t.answer, true);
    }
    this.scroll(true);
  }

  get empty() {
    return this.turns.size === 0;
  }

  // turn returns the record of turn index, making its block when new.
  turn(index, question) {
    let rec = this.turns.get(index);
    if (!rec) {
      const body = el('div', { class: 'turn-body' });
      const forkBtn = el('button', {
        class: 'fork ghost',
        type: 'button',
        title: 'Start a new branch holding the turns up to this one',
        onclick: () => this.hooks.onFork(this.hooks.forkTurn(index)),
      }, icon('branch'), 'fork');
      const rewindBtn = el('button', {
        class: 'rewind ghost',
        type: 'button',
        title: 'Go back to just before this question: files and conversation, or either',
        onclick: () => this.hooks.onRewind && this.hooks.onRewind(index, rewindBtn),
      }, '↺ rewind to here');
      const qtext = el('div', { class: 'q-text' });
      const sec = el('section', { class: 'turn', 'data-turn': index },
        el('div', { class: 'q' }, el('span', { class: 'turn-no' }, String(index)), qtext, rewindBtn, forkBtn),
        body);
      rec = { index, sec, body, qtext, text: null, foot: null };
      // Keep the blocks in turn order whatever order they come in.
      const after = [...this.turns.values()].filter((r) => r.index > index).sort((a, b) => a.index - b.index)[0];
      this.root.insertBefore(sec, after ? after.sec : null);
      this.turns.set(index, rec);
    }
    if (question !== undefined) rec.qtext.textContent = question;
    return rec;
  }

  // at is the turn events go to: the one begun last; before any, the last
  // shown if it is still running; else none (its events are shown already).
  at() {
    if (this.current) return this.current;
    if (!this.running) return null;
    let last = null;
    for (const r of this.turns.values()) if (!last || r.index > last.index) last = r;
    return last;
  }

  handle(type, d) {
    const stick = nearBottom(this.root.parentElement || this.root);
    switch (type) {
      case 'turn': {
        const rec = this.turn(d.turn, d.question);
        // A replayed turn is shown again from its events, with its actions.
        rec.body.replaceChildren();
        rec.text = null;
        rec.foot = null;
        this.current = rec;
        break;
      }
      case 'text': {
        const rec = this.at();
        if (rec && d.text) this.appendText(rec, d.text, false);
        break;
      }
      case 'tool_call':
        this.toolCall(d);
        break;
      case 'output':
        this.output(d);
        break;
      case 'tool_result':
        this.toolResult(d);
        break;
      case 'notice': {
        if (d.request_id && d.by) {
          // A question the terminal was asked too, answered there.
          const how = (d.text || '').replace(/^[^:]*:\s*/, '').replace(/ in the terminal$/, '');
          for (const p of this.pending) if (p.id === d.request_id) this.settle(p, `answered in the ${d.by}: ${how}`, 'elsewhere');
          break;
        }
        const rec = this.at();
        if (rec) {
          rec.text = null;
          rec.body.append(el('div', { class: 'notice notice-' + (d.kind || 'info') },
            el('span', { class: 'notice-kind' }, d.kind || 'note'), ' ', d.text || ''));
        }
        break;
      }
      case 'approval':
        this.approval(d);
        break;
      case 'decision':
        // How a question was answered, and by whom (a past session's too).
        for (const p of this.pending) if (p.id === d.request_id) this.settle(p, decisionText(d), d.decision);
        break;
      case 'steer': {
        const rec = this.at();
        if (rec) this.steer(rec, d.text || '');
        break;
      }
      case 'state': {
        // The question is settled: answered if the turn goes on, else ended with it.
        if (d.state !== 'awaiting_approval') this.expireApprovals(d.state === 'idle' ? 'no longer waiting' : 'answered');
        // The running turn says what it waits for at its end.
        const busy = { awaiting_model: 'thinking', executing: 'running' }[d.state];
        for (const r of this.turns.values()) delete r.body.dataset.busy;
        const rec = this.at();
        if (rec && busy) rec.body.dataset.busy = busy;
        break;
      }
      case 'result':
        this.result(d);
        break;
    }
    this.scroll(stick);
  }

  appendText(rec, text, whole) {
    if (!rec.text) {
      const node = el('div', { class: 'md' });
      rec.body.append(node);
      rec.text = { node, src: '' };
    }
    rec.text.src = whole ? text : rec.text.src + text;
    this.dirty.add(rec.text);
    this.schedule();
  }

  schedule() {
    if (this.frame) return;
    // A long answer costs a noticeable time to render: a few times a second is enough.
    const big = [...this.dirty].some((seg) => seg.src.length > 16000);
    const run = () => requestAnimationFrame(() => this.flush());
    this.frame = big ? setTimeout(run, 250) : run();
  }

  // flush renders the text that changed since the last frame, at most once a frame.
  flush() {
    this.frame = 0;
    const scroller = this.root.parentElement || this.root;
    const stick = nearBottom(scroller, 120);
    for (const seg of this.dirty) seg.node.replaceChildren(renderMarkdown(seg.src));
    this.dirty.clear();
    this.scroll(stick);
  }

  toolCall(d) {
    const rec = this.at();
    if (!rec) return;
    rec.text = null;
    const status = el('span', { class: 'act-status' }, 'running');
    const body = el('div', { class: 'act-body' });
    // The call as its one description says it to a person ("edit calc.py"),
    // live and in a loaded turn alike: the page has no names of its own.
    const title = d.title || '';
    const head = [el('span', { class: 'act-arg', title }, firstLine(title))];
    if (d.kind && d.kind !== 'other') head.unshift(el('span', { class: 'act-kind' }, d.kind));
    const node = el('details', { class: 'action running' }, el('summary', {}, ...head, status), body);
    rec.body.append(node);
    this.calls.set(d.call_id, { node, body, status, target: (d.window_id || '') + '.' + (d.action_id || '') });
  }

  // output grows a running command's row as its output comes (pieces join).
  output(d) {
    const a = d.call_id && this.calls.get(d.call_id);
    if (!a) return;
    if (!a.live) {
      a.live = el('pre', { class: 'act-out act-live' });
      a.body.append(a.live);
      a.node.open = true;
    }
    const stick = nearBottom(a.live, 24);
    let text = (a.live.textContent + d.text);
    // A long run keeps its last part in view, as a terminal does.
    if (text.length > LIVE_MAX) text = '…' + text.slice(text.length - LIVE_MAX);
    a.live.textContent = text;
    if (stick) a.live.scrollTop = a.live.scrollHeight;
  }

  toolResult(d) {
    const a = this.calls.get(d.call_id);
    if (!a) return;
    const st = d.status || 'ok';
    a.node.classList.remove('running');
    a.node.classList.add('st-' + st);
    // The live output gives way to what the command left, cut as for the model.
    a.live?.remove();
    a.live = null;
    // A denial is said once: by this row (who, what, why); the question's
    // card, answered, goes.
    if (st === 'denied') for (const c of this.root.querySelectorAll('.approval.settled')) c.remove();
    a.status.textContent = st === 'ok' ? '✓' : st === 'error' ? '✗ error' : st === 'denied' ? '⊘' : st;
    // A command that exited non-zero did what it was asked, and failed.
    const failed = typeof d.exit_code === 'number' && d.exit_code !== 0;
    if (failed) {
      a.node.classList.add('st-failed');
      a.status.textContent = `✗ exit ${d.exit_code}`;
    }
    const out = typeof d.output === 'string' && d.output !== '' ? d.output : d.text || '';
    if (!out) return;
    const lines = out.replace(/\n$/, '').split('\n').length;
    const pre = el('pre', { class: 'act-out' });
    if (looksLikeDiff(out)) {
      pre.classList.add('diff');
      pre.append(diffLines(out));
    } else pre.textContent = out;
    a.body.append(pre);
    a.status.append(el('span', { class: 'act-lines' }, ` ${lines} line${lines === 1 ? '' : 's'}`));
    if (lines <= MAX_OPEN_LINES || st !== 'ok' || failed) a.node.open = true;
  }

  approval(d) {
    const rec = this.at();
    const holder = rec ? rec.body : this.root;
    if (rec) rec.text = null;
    // subject: the command, or "write PATH"; diff: the change a write would make.
    const what = d.subject || summarize(d.params).arg;
    const buttons = el('div', { class: 'ap-buttons' });
    const note = el('span', { class: 'ap-note' });
    const target = (d.window_id || '') + (d.action_id ? '.' + d.action_id : '');
    let diff = null;
    if (d.diff) {
      diff = el('pre', { class: 'act-out diff ap-diff' });
      diff.append(diffLines(d.diff));
    }
    const card = el('div', { class: 'approval', role: 'group', 'aria-label': 'approval' },
      el('div', { class: 'ap-head' }, el('span', { class: 'ap-icon' }, '?'),
        el('span', {}, 'Allow ', d.title ? el('span', { class: 'ap-title' }, d.title) : el('code', {}, target), '?'),
        d.kind ? el('span', { class: 'ap-kind' }, d.kind) : null),
      what ? el('pre', { class: 'ap-arg' }, what) : null,
      diff,
      d.reason ? el('div', { class: 'ap-reason' }, d.reason) : null,
      el('div', { class: 'ap-foot' }, buttons, note));
    const rec2 = { id: d.request_id, card, buttons, note };
    const choose = async (decision) => {
      for (const b of buttons.querySelectorAll('button')) b.disabled = true;
      note.textContent = '…';
      try {
        await this.hooks.onDecide(d.request_id, decision);
        this.settle(rec2, decision === 'deny' ? 'denied' : decision === 'always' ? 'allowed always' : decision === 'always_project' ? 'allowed for this project'
          : decision === 'accept_edits' ? 'allowed; edits accepted for this session (mode default)' : 'allowed', decision);
      } catch (err) {
        if (err.status === 404) this.settle(rec2, 'no longer waiting', 'gone');
        else {
          note.textContent = err.message;
          for (const b of buttons.querySelectorAll('button')) b.disabled = false;
        }
      }
    };
    buttons.append(
      el('button', { type: 'button', class: 'allow', onclick: () => choose('allow') }, 'Allow'),
      el('button', { type: 'button', class: 'deny', onclick: () => choose('deny') }, 'Deny'),
      el('button', { type: 'button', class: 'always', title: 'Allow this and the same kind of action from now on', onclick: () => choose('always') }, 'Always'),
      el('button', { type: 'button', class: 'always', title: 'Keep a rule for this project in your configuration (/permissions lists it)', onclick: () => choose('always_project') }, 'Always (project)'));
    // A file change asked only because of ask mode: Claude Code's "allow all
    // edits during this session", which is default mode here.
    if (d.kind === 'file' && d.reason === ASK_MODE_FILE) {
      buttons.append(el('button', { type: 'button', class: 'always accept-edits', title: 'Switch this session to mode default (acceptEdits): file changes in the workspace are not asked', onclick: () => choose('accept_edits') }, 'Accept edits (session)'));
    }
    // The card goes above the row of the call it asks about, so that it
    // reads in order: asked, answered, then what the call did.
    const asked = [...this.calls.values()].reverse().find((a) => a.node.classList.contains('running') && a.target === target);
    if (asked && holder.contains(asked.node)) asked.node.before(card);
    else holder.append(card);
    this.pending.add(rec2);
  }

  // steer shows a message added to the running turn, where the model read it.
  steer(rec, text) {
    rec.text = null;
    rec.body.append(el('div', { class: 'steer' }, el('span', { class: 'steer-mark' }, '↳ '), text));
  }

  settle(rec, text, kind) {
    this.pending.delete(rec);
    rec.buttons.remove();
    rec.note.textContent = text;
    rec.card.classList.add('settled', 'ap-' + kind);
  }

  expireApprovals(text) {
    for (const rec of [...this.pending]) this.settle(rec, text, 'gone');
  }

  result(d) {
    const rec = this.at();
    if (!rec) return;
    this.expireApprovals('no longer waiting');
    for (const a of this.calls.values()) {
      if (a.node.classList.contains('running')) {
        a.node.classList.remove('running');
        a.status.textContent = '–';
      }
    }
    // The answer comes whole in the result: it replaces words streamed after
    // the last action, or follows the actions.
    if (d.result) this.appendText(rec, d.result, true);
    const u = d.usage || {};
    const bits = [];
    if (d.num_steps) bits.push(`${d.num_steps} step${d.num_steps === 1 ? '' : 's'}`);
    if (d.duration_ms) bits.push(duration(d.duration_ms));
    if (u.prompt_tokens || u.completion_tokens) {
      bits.push(`${tokens(u.prompt_tokens)} in · ${tokens(u.completion_tokens)} out` +
        (u.cached_tokens ? ` · ${tokens(u.cached_tokens)} cached` : ''));
    }
    if (d.total_cost_usd != null) bits.push(usd(d.total_cost_usd));
    if (d.denials && d.denials.length) bits.push(`${d.denials.length} denied`);
    rec.foot?.remove();
    rec.foot = el('div', { class: 'turn-foot' + (d.is_error ? ' error' : '') },
      d.is_error ? el('span', { class: 'err' }, d.error || 'the turn failed') : null,
      bits.join(' · '));
    rec.body.append(rec.foot);
    rec.text = null;
    this.current = null;
  }

  scroll(stick) {
    const scroller = this.root.parentElement || this.root;
    if (stick) scroller.scrollTop = scroller.scrollHeight;
  }
}
