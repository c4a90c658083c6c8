// "rewind to here" on every turn (docs/protocol.md §9): go back to just before
// that question — the files and the conversation (the default), the
// conversation only, or the files only. The conversation continues in a
// new session (the server's answer names it; the one left keeps the later
// turns) and the question comes back in the message box to edit.

import * as API from './api.js';
import { el } from './dom.js';

// offerRewind shows the three choices under the question of turn; a second
// click on the button takes them away. page: { id(), open(id), putBack(text),
// toast(text), fail(err) }.
export function offerRewind(btn, turn, page) {
  const q = btn.closest('.q');
  const open = q.parentElement.querySelector('.rewind-menu');
  if (open) {
    open.remove();
    return;
  }
  const go = (files, conversation) => {
    menu.remove();
    rewindTo(page, turn, files, conversation);
  };
  const menu = el('div', { class: 'rewind-menu', role: 'group', 'aria-label': `Rewind to just before question ${turn}` },
    el('span', { class: 'rewind-say' }, `Back to just before question ${turn}:`),
    el('button', { type: 'button', class: 'primary small rw-both', onclick: () => go(true, true) }, 'files and conversation'),
    el('button', { type: 'button', class: 'ghost small rw-conv', onclick: () => go(false, true) }, 'conversation only'),
    el('button', { type: 'button', class: 'ghost small rw-files', onclick: () => go(true, false) }, 'files only'),
    el('button', { type: 'button', class: 'ghost small rw-cancel', onclick: () => menu.remove() }, 'cancel'));
  q.after(menu);
  menu.querySelector('button').focus();
}

async function rewindTo(page, turn, files, conversation) {
  let r;
  try {
    r = await API.rewind(page.id(), turn, files, conversation);
  } catch (err) {
    page.fail(err);
    return;
  }
  const said = summary(r.files);
  if (said) page.toast(said);
  if (conversation) {
    await page.open(r.id);
    page.putBack(r.question || '');
  }
}

// summary says what happened to the files, as the terminal says it.
function summary(f) {
  if (!f) return '';
  const parts = [];
  if (f.restored && f.restored.length) parts.push('restored ' + f.restored.join(', '));
  if (f.removed && f.removed.length) parts.push('removed ' + f.removed.join(', ') + ' (created since)');
  if (f.refused && f.refused.length) parts.push('not restored, changed since by someone else: ' + f.refused.join(', '));
  if (f.failed && f.failed.length) parts.push('could not restore ' + f.failed.join('; '));
  if (!parts.length) parts.push(f.note ? 'files: ' + f.note : 'the files were already as they were');
  if (f.untracked) parts.push(f.untracked);
  return parts.join(' · ');
}
