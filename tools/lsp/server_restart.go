package lsp

// offServer is a language's server that is not started, with why.
func offServer(lang Language, l launch, why string) *server {
	name := lang.Name
	if len(l.argv) > 0 {
		name = l.argv[0]
	} else if len(lang.Commands) > 0 && len(lang.Commands[0]) > 0 {
		name = lang.Commands[0][0]
	}
	return &server{lang: lang, argv: []string{name}, off: true, note: why + "; no diagnostics for " + lang.Name + " files this session",
		docs: map[string]*doc{}, holds: map[string]int{}, changed: make(chan struct{}), opt: &Options{}}
}

// restart starts the server again (the workspace became read-only, or
// writable again): the documents are sent to the new process.
func (s *server) restart() {
	ro := s.pool != nil && s.pool.readOnly()
	s.mu.Lock()
	if s.off && s.planOff && !ro {
		s.off, s.planOff, s.note = false, false, ""
	}
	if s.off || s.closing {
		s.mu.Unlock()
		return
	}
	s.gen++
	gen := s.gen
	p, starting := s.proc, s.starting
	s.proc, s.starting, s.ready = nil, nil, false
	for _, d := range s.docs {
		d.sent = 0
	}
	s.wakeLocked()
	s.mu.Unlock()
	p.stop()
	starting.stop()
	go s.run(gen)
}

// stale says a start of generation gen was overtaken by a restart.
func (s *server) staleLocked(gen int) bool { return s.closing || s.gen != gen }

// lockFor locks s for the start of generation gen, with its process p;
// when that start is stale it stops p and reports false, s unlocked.
func (s *server) lockFor(gen int, p *process) bool {
	s.mu.Lock()
	if s.staleLocked(gen) {
		s.mu.Unlock()
		p.stop()
		return false
	}
	return true
}
