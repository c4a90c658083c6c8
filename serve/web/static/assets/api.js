// The HTTP API of aci serve (PROTOCOL.md §7). Paths are relative to the
// page, which is served at the server's root; the token travels in the
// HttpOnly cookie, so nothing here ever sees it.

export class APIError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

export async function api(method, path, body) {
  const init = { method, credentials: 'same-origin', headers: {} };
  if (body !== undefined) {
    init.headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  let res;
  try {
    res = await fetch(path, init);
  } catch (err) {
    throw new APIError(0, 'the server cannot be reached');
  }
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
export const createSession = (model) => api('POST', 'api/sessions', model ? { model } : {});
export const getSession = (id) => api('GET', `api/sessions/${enc(id)}`);
export const sendMessage = (id, text) => api('POST', `api/sessions/${enc(id)}/messages`, { text });
export const cancelTurn = (id) => api('POST', `api/sessions/${enc(id)}/cancel`);
export const decide = (id, requestID, decision) =>
  api('POST', `api/sessions/${enc(id)}/approvals/${enc(requestID)}`, { decision });
export const getWindow = (id, windowID) => api('GET', `api/sessions/${enc(id)}/windows/${enc(windowID)}`);
export const fork = (id, turn) => api('POST', `api/sessions/${enc(id)}/fork`, { turn });
export const eventsURL = (id) => `api/sessions/${enc(id)}/events`;

// The event types of §7.
export const EVENT_TYPES = ['text', 'tool_call', 'tool_result', 'notice', 'result', 'state', 'approval', 'window', 'turn', 'usage'];
