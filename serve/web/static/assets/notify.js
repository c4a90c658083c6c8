// Notifications on the page (docs/protocol.md §9), as the terminal gives them:
// when a turn that ran 10 s or more ends, or a question waits, and the
// page is not focused, the tab's title says so (until the page is looked
// at again) and, when the person allowed it, a browser notification does.
// window.ACI_NOTIFY_MIN_S, when set, replaces the 10 s: a testing knob.

import { el } from './dom.js';

const MIN_S = 10;
const MARK = '● ';

let attention = false;
// What is news: a session's past comes again when it is opened (its
// buffered events are replayed), so a turn counts only when it began
// after the turns the session held then; a question, when it comes in
// such a turn or a moment after opening.
let known = 0;
let liveTurn = false;
let armedAt = 0;

// markTitle is the tab's title with the mark while something waits for
// the person; the page sets every title through it.
export function markTitle(base) {
  return attention ? MARK + base : base;
}

// arm starts a session's notifications when it is opened, holding turns
// turns.
export function arm(turns) {
  known = turns;
  liveTurn = false;
  armedAt = Date.now() + 1000;
}

// notifyEvent sees every event of the open session.
export function notifyEvent(type, d, sessionID) {
  const minS = typeof window.ACI_NOTIFY_MIN_S === 'number' ? window.ACI_NOTIFY_MIN_S : MIN_S;
  if (type === 'turn') {
    liveTurn = (d.turn || 0) > known;
  } else if (type === 'result' && liveTurn) {
    liveTurn = false;
    if ((d.duration_ms || 0) >= minS * 1000) {
      tell(d.is_error ? 'aci: the turn ended: ' + (d.error || 'interrupted') : 'aci: done' + (d.result ? ': ' + d.result : ''), sessionID);
    }
  } else if (type === 'approval' && (liveTurn || Date.now() > armedAt)) {
    tell('aci: a question waits: ' + (d.subject || d.reason || 'an action'), sessionID);
  }
}

function tell(text, sessionID) {
  if (document.hasFocus()) return;
  text = text.split(/\s+/).join(' ').trim().slice(0, 200);
  if (!attention) {
    attention = true;
    document.title = MARK + document.title;
  }
  if ('Notification' in window && Notification.permission === 'granted') {
    try {
      new Notification('aci', { body: text, tag: 'aci-' + sessionID });
    } catch {
      // Some browsers allow notifications only from a service worker: the title says it.
    }
  }
}

window.addEventListener('focus', () => {
  if (!attention) return;
  attention = false;
  if (document.title.startsWith(MARK)) document.title = document.title.slice(MARK.length);
});

// offerPermission puts a button in the header while the browser has not
// been told yet whether the page may notify.
export function offerPermission(where) {
  if (!('Notification' in window) || Notification.permission !== 'default') return;
  const btn = el('button', {
    type: 'button', class: 'ghost small', id: 'notify-allow',
    title: 'Let the page notify you when a long turn ends or a question waits while you are elsewhere',
    onclick: async () => {
      try {
        await Notification.requestPermission();
      } finally {
        btn.remove();
      }
    },
  }, 'notify me');
  where.prepend(btn);
}
