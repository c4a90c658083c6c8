// What the page says about its server: not signed in (no token, or one the
// server does not take), gone (it stopped answering), restarted (it
// answers again, as a new run). One banner at the top says it plainly.

import { el } from './dom.js';
import { token, printedAddress } from './auth.js';

let banner = null;
let shown = ''; // the kind on screen: '', 'signin', 'gone', 'restarted'
let instance = ''; // the X-Aci-Instance of the server the page first reached
let reached = false; // a request with the token has succeeded

export function initServerStatus(node) {
  banner = node;
}

function show(kind, ...content) {
  if (!banner) return;
  shown = kind;
  banner.dataset.kind = kind;
  banner.replaceChildren(...content);
  banner.hidden = false;
}

function hide(kind) {
  if (banner && shown === kind) {
    banner.hidden = true;
    shown = '';
    delete banner.dataset.kind;
  }
}

const open = () => [
  'Open the address that ', el('code', {}, 'aci serve'), ' printed, ', el('code', {}, printedAddress()),
  ' (its terminal shows it; it changes at every start unless ', el('code', {}, 'ACI_SERVE_TOKEN'), ' is set).'];

// unauthorized: the server refused the token (401).
export function unauthorized() {
  if (!token()) {
    show('signin', el('strong', {}, 'This page has no token. '), ...open());
  } else if (reached) {
    show('signin', el('strong', {}, 'aci serve was restarted with a new token. '), ...open());
  } else {
    show('signin', el('strong', {}, 'The token this page holds is not this server’s (it is from an earlier run of aci serve). '), ...open());
  }
}

// unreachable: a request got no answer at all.
export function unreachable() {
  if (shown === 'signin') return;
  show('gone', el('strong', {}, 'aci serve is not answering. '),
    'It was stopped, or its machine cannot be reached; the page reconnects by itself once it is back. If it was stopped, the turns that were running have ended.');
}

// answered notes a response of the API: the server is there, and which run
// of it answered.
export function answered(res) {
  if (res.status === 401) return;
  const id = res.headers.get('X-Aci-Instance') || '';
  hide('gone');
  if (res.ok) {
    reached = true;
    hide('signin');
  }
  if (!id) return;
  if (instance && id !== instance) {
    show('restarted', el('strong', {}, 'aci serve was restarted. '),
      'Turns that were running when it stopped have ended; what they did up to then is kept. ',
      el('button', { type: 'button', class: 'small', onclick: () => location.reload() }, 'Reload'));
  }
  instance = id;
}
