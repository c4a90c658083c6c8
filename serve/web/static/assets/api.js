// The HTTP API of aci serve (docs/protocol.md §7). Paths are relative to the
// page, which is served at the server's root; the token goes in the
// Authorization header of every request (auth.js), never in a cookie.

import { authHeaders } from './auth.js';
import { answered, unreachable } from './server.js';

export class APIError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

export async function api(method, path, body) {
  const init = { method, credentials: 'omit', headers: authHeaders() };
  if (body !== undefined) {
    init.headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  let res;
  try {
    res = await fetch(path, init);
  } catch (err) {
    unreachable();
    throw new APIError(0, 'the server cannot be reached');
  }
  answered(res);
  const text = await res.text();
  let data = null;
  if (text) {
    try {
      data = JSON.parse(text);
    } catch {
      data = null;
    }
  }
  if (!res.ok) {
    const msg = (data && typeof data.error === 'string' && data.error) || `${res.status} ${res.statusText}`;
    throw new APIError(res.status, msg);
  }
  return data;
}

const enc = encodeURIComponent;

export const listSessions = () => api('GET', 'api/sessions');
export const listModels = () => api('GET', 'api/models');
export const endSession = (id) => api('DELETE', `api/sessions/${enc(id)}`);
export const createSession = (model) => api('POST', 'api/sessions', model ? { model } : {});
export const getSession = (id) => api('GET', `api/sessions/${enc(id)}`);
export const sendMessage = (id, text, images) =>
  api('POST', `api/sessions/${enc(id)}/messages`, images ? { text, images } : { text });
export const cancelTurn = (id) => api('POST', `api/sessions/${enc(id)}/cancel`);
export const decide = (id, requestID, decision) =>
  api('POST', `api/sessions/${enc(id)}/approvals/${enc(requestID)}`, { decision });
export const getWindow = (id, windowID) => api('GET', `api/sessions/${enc(id)}/windows/${enc(windowID)}`);
export const fork = (id, turn) => api('POST', `api/sessions/${enc(id)}/fork`, { turn });
export const rewind = (id, turn, files, conversation) =>
  api('POST', `api/sessions/${enc(id)}/rewind`, { turn, files, conversation });
export const setMode = (id, mode) => api('POST', `api/sessions/${enc(id)}/mode`, { mode });
export const acceptPlan = (id) => api('POST', `api/sessions/${enc(id)}/plan/accept`);
export const trustInfo = () => api('GET', 'api/trust');
export const trust = () => api('POST', 'api/trust', { trust: true });
export const eventsURL = (id) => `api/sessions/${enc(id)}/events`;

// The event types of §7.
export const EVENT_TYPES = ['text', 'tool_call', 'output', 'tool_result', 'notice', 'result', 'state', 'approval', 'window', 'turn', 'steer', 'mode', 'decision'];

// EventStream reads a session's Server-Sent Events with fetch rather than
// EventSource, for one reason: the first request can send Last-Event-ID 0
// and so get the session's buffered events (the actions of the turns so
// far, the window contents), which an EventSource cannot ask for. After
// that it behaves as EventSource does: it reconnects with the last id seen
// and the server sends what came after it.
export class EventStream {
  // onEvent(type, data, id); onStatus('live' | 'retry' | 'down', error?)
  constructor(url, onEvent, onStatus) {
    this.url = url;
    this.onEvent = onEvent;
    this.onStatus = onStatus;
    this.last = 0;
    this.closed = false;
    this.ctrl = null;
    this.run();
  }

  close() {
    this.closed = true;
    this.ctrl?.abort();
  }

  async run() {
    let failures = 0;
    while (!this.closed) {
      this.ctrl = new AbortController();
      try {
        let res;
        try {
          res = await fetch(this.url, {
            credentials: 'omit',
            cache: 'no-store',
            headers: { ...authHeaders(), Accept: 'text/event-stream', 'Last-Event-ID': String(this.last) },
            signal: this.ctrl.signal,
          });
        } catch (err) {
          if (!this.closed && failures > 0) unreachable(); // one failed try may be a blip
          throw err;
        }
        answered(res);
        if (!res.ok) {
          let msg = `${res.status} ${res.statusText}`;
          try {
            msg = (await res.json()).error || msg;
          } catch { /* not JSON */ }
          throw new APIError(res.status, msg);
        }
        failures = 0;
        this.onStatus('live');
        await this.read(res.body);
      } catch (err) {
        if (this.closed) return;
        // A refusal (signed out, no such session) will not mend by retrying.
        if (err instanceof APIError && (err.status === 401 || err.status === 403 || err.status === 404)) {
          this.onStatus('down', err);
          return;
        }
      }
      if (this.closed) return;
      this.onStatus('retry');
      failures++;
      await new Promise((r) => setTimeout(r, Math.min(500 * 2 ** failures, 15000)));
    }
  }

  // read parses the stream as the EventSource specification does, and
  // returns when it ends.
  async read(body) {
    const reader = body.pipeThrough(new TextDecoderStream()).getReader();
    let buf = '';
    let type = '';
    let data = [];
    let id = null;
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buf += value;
      let nl;
      while ((nl = buf.search(/\r\n|\r|\n/)) !== -1) {
        if (buf[nl] === '\r' && nl === buf.length - 1) break; // a \r\n may be cut in two
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + (buf.startsWith('\r\n', nl) ? 2 : 1));
        if (line === '') {
          if (id !== null && /^\d+$/.test(id)) this.last = Number(id);
          if (data.length && !this.closed) {
            let obj = null;
            try {
              obj = JSON.parse(data.join('\n'));
            } catch { /* not an object of ours */ }
            // The page reads the event types the server documents, no others.
            if (obj && EVENT_TYPES.includes(type)) this.onEvent(type, obj, Number(id) || 0);
          }
          type = '';
          data = [];
          id = null;
          continue;
        }
        if (line.startsWith(':')) continue;
        const colon = line.indexOf(':');
        const field = colon === -1 ? line : line.slice(0, colon);
        let val = colon === -1 ? '' : line.slice(colon + 1);
        if (val.startsWith(' ')) val = val.slice(1);
        if (field === 'event') type = val;
        else if (field === 'data') data.push(val);
        else if (field === 'id' && !val.includes('\0')) id = val;
      }
    }
  }
}
export const getDiff = (id) => api('GET', `api/sessions/${enc(id)}/diff`);
