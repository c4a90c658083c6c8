package sandbox

import "sync"

// trustedFiles are workspace files a trusted folder's hooks and MCP
// servers run (docs/protocol.md §10): a session adds them once the person
// trusted them, and contained commands get them read-only, as the
// protected table's files (protectedPresent). One that does not exist is
// not bound; the session checks each file again before running it.
type trustedFiles struct {
	mu    sync.Mutex
	paths []string
}

// ProtectTrusted adds paths (absolute) to the files contained commands
// of s get read-only. A nil Sandbox (commands not contained) ignores it.
func (s *Sandbox) ProtectTrusted(paths ...string) {
	if s == nil {
		return
	}
	s.trusted.mu.Lock()
	defer s.trusted.mu.Unlock()
	for _, p := range paths {
		s.trusted.paths = appendUnique(s.trusted.paths, p)
	}
}

// withTrusted is list with the trusted files added.
func (s *Sandbox) withTrusted(list []string) []string {
	s.trusted.mu.Lock()
	defer s.trusted.mu.Unlock()
	if len(s.trusted.paths) == 0 {
		return list
	}
	out := append([]string(nil), list...)
	for _, p := range s.trusted.paths {
		out = appendUnique(out, p)
	}
	return out
}
