// Pictures for the next message: dropped on the composer or pasted into
// the box, shown as chips until the message goes (docs/protocol.md §9). The
// server checks each picture's bytes; the page only keeps what a model
// could take from being sent at all.

import { el } from './dom.js';

const TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'];
const MAX = 20 * 1024 * 1024; // together, as the server counts

const size = (n) => (n >= 1 << 20 ? `${(n / (1 << 20)).toFixed(1)} MB` : `${Math.max(1, Math.round(n / 1024))} KB`);

export class Attachments {
  constructor(input, composer, say) {
    this.items = []; // {name, mime, data (base64), bytes}
    this.say = say;
    this.box = el('div', { class: 'attachments', id: 'attachments', hidden: true });
    input.before(this.box);
    input.addEventListener('paste', (e) => {
      const files = [...(e.clipboardData?.files || [])].filter((f) => f.type.startsWith('image/'));
      if (!files.length) return;
      e.preventDefault();
      files.forEach((f) => this.add(f));
    });
    composer.addEventListener('dragover', (e) => {
      if ([...(e.dataTransfer?.types || [])].includes('Files')) {
        e.preventDefault();
        composer.classList.add('dropping');
      }
    });
    composer.addEventListener('dragleave', () => composer.classList.remove('dropping'));
    composer.addEventListener('drop', (e) => {
      composer.classList.remove('dropping');
      const files = [...(e.dataTransfer?.files || [])];
      if (!files.length) return;
      e.preventDefault();
      files.forEach((f) => this.add(f));
    });
  }

  async add(file) {
    const name = file.name || 'pasted image';
    if (!TYPES.includes(file.type)) {
      this.say(`${name}: not a picture aci can send (PNG, JPEG, GIF or WebP)`);
      return;
    }
    const total = this.items.reduce((n, it) => n + it.bytes, 0);
    if (total + file.size > MAX) {
      this.say(`${name} (${size(file.size)}): the pictures of one message may weigh 20 MB together`);
      return;
    }
    const url = await new Promise((resolve, reject) => {
      const r = new FileReader();
      r.onload = () => resolve(r.result);
      r.onerror = () => reject(r.error);
      r.readAsDataURL(file);
    }).catch((err) => {
      this.say(`${name}: cannot be read: ${err}`);
      return null;
    });
    if (!url) return;
    this.items.push({ name, mime: file.type, data: url.slice(url.indexOf(',') + 1), bytes: file.size });
    this.render();
  }

  // images is what the next message sends (undefined when none).
  images() {
    if (!this.items.length) return undefined;
    return this.items.map(({ name, mime, data }) => ({ name, mime, data }));
  }

  // sent drops the first n pictures: those the message took (more may
  // have come while it went).
  sent(n) {
    this.items.splice(0, n);
    this.render();
  }

  render() {
    this.box.replaceChildren(
      ...this.items.map((it, i) => {
        const remove = el('button', { type: 'button', class: 'ghost small', title: `Remove ${it.name}`, 'aria-label': `Remove ${it.name}` }, '×');
        remove.addEventListener('click', () => {
          this.items.splice(i, 1);
          this.render();
        });
        return el('span', { class: 'attachment', title: it.name }, el('span', { class: 'name' }, `🖼 ${it.name}`), el('span', { class: 'size' }, size(it.bytes)), remove);
      }),
    );
    this.box.hidden = this.items.length === 0;
  }
}
