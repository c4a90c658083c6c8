// The server's token, kept in this tab's origin (docs/protocol.md §7, Access).
// aci serve prints http://HOST:PORT/#token=TOKEN: a fragment is never sent
// to any server, so the token reaches only this script, which keeps it in
// the origin's own storage (this host and port, no other) and sends it as
// `Authorization: Bearer` on every API call and on the event stream. No
// cookie carries it: a browser would send a cookie to every port of the
// host, that is to any other local server the person opens.

const KEY = 'aci-serve-token';
let memory = ''; // when storage is refused (a private window's settings)

// takeToken reads a token from the address's fragment, keeps it and
// removes it from the address bar and the history, so it is not left on
// screen or copied with the address, nor ever read as a session id (a
// request path). It runs as the module loads (before the page routes on
// its fragment) and again when the fragment changes (a new address pasted
// into an open tab); it says whether there was one.
export function takeToken() {
  const m = /^#token=([^&]+)/.exec(location.hash);
  if (!m) return false;
  memory = decodeURIComponent(m[1]).trim();
  try {
    localStorage.setItem(KEY, memory);
  } catch { /* kept for this tab only */ }
  // What follows the token (the terminal's session: &session=ID) stays,
  // for the router.
  const rest = location.hash.slice(m[0].length).replace(/^&/, '');
  history.replaceState(null, '', location.pathname + location.search + (rest ? '#' + rest : ''));
  return true;
}
takeToken();

// token is the token this page holds, or ''.
export function token() {
  if (memory) return memory;
  try {
    return localStorage.getItem(KEY) || '';
  } catch {
    return '';
  }
}

// authHeaders are the headers that carry it.
export function authHeaders() {
  const t = token();
  return t ? { Authorization: 'Bearer ' + t } : {};
}

// printedAddress is the address aci serve printed, with the token left out.
export function printedAddress() {
  return `${location.origin}/#token=…`;
}
