package lsp

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// maxWatched bounds the files a pool keeps stamps of: a workspace with
// more gets no news of the files no window shows.
const maxWatched = 20000

// stamp is what tells a file changed.
type stamp struct {
	mod  time.Time
	size int64
}

// scan stamps the workspace's files of the pool's started languages,
// skipping hidden folders and node_modules. ok is false past maxWatched.
func (p *Pool) scan(exts map[string]bool) (map[string]stamp, bool) {
	out := map[string]stamp{}
	ok := true
	_ = filepath.WalkDir(p.root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() {
			if path != p.root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if !exts[strings.ToLower(filepath.Ext(path))] || !d.Type().IsRegular() {
			return nil
		}
		if len(out) >= maxWatched {
			ok = false
			return filepath.SkipAll
		}
		if fi, err := d.Info(); err == nil {
			out[path] = stamp{fi.ModTime(), fi.Size()}
		}
		return nil
	})
	return out, ok
}

// Refresh tells the started servers of the workspace files that changed
// on disk since the last Refresh, other than those open in them (a
// command's change to a file no window shows), and waits, at most the
// pool's Wait, for one of the open files' diagnostics to be published
// again.
func (p *Pool) Refresh(ctx context.Context) {
	if p == nil {
		return
	}
	p.mu.Lock()
	exts := map[string]bool{}
	var servers []*server
	for _, s := range p.servers {
		if s == nil {
			continue
		}
		servers = append(servers, s)
		for _, e := range s.lang.Extensions {
			exts[strings.ToLower(e)] = true
		}
	}
	p.mu.Unlock()
	if len(servers) == 0 {
		return
	}
	changed := p.changes(exts)
	if len(changed) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, p.opt.Wait)
	defer cancel()
	done := make(chan struct{}, len(servers))
	for _, s := range servers {
		go func() {
			s.filesChanged(ctx, changed)
			done <- struct{}{}
		}()
	}
	for range servers {
		<-done
	}
}

// changes are the workspace files of the extensions exts that changed
// since the last call (LSP FileChangeType by path): told by the kernel
// where it can (notify_linux.go: a cost by the changes, not by the
// workspace), else found by a scan compared with the last one. The first
// call is the baseline.
func (p *Pool) changes(exts map[string]bool) map[string]int {
	p.mu.Lock()
	w, off := p.watcher, p.watchOff
	p.mu.Unlock()
	if off {
		return nil
	}
	if w == nil && !p.noNotify() {
		nw, err := newWatcher(p.root)
		p.mu.Lock()
		if err == nil && p.watcher == nil && !p.closed {
			p.watcher = nw
			p.mu.Unlock()
			return nil // the baseline: nothing changed yet
		}
		p.noNotifyWhy = "no notification"
		if err != nil {
			p.noNotifyWhy = err.Error()
		}
		p.mu.Unlock()
		if nw != nil {
			nw.close()
		}
	}
	if w != nil {
		if ch, ok := w.take(exts); ok {
			return ch
		}
		// The kernel's queue overflowed: scans from now on.
		p.mu.Lock()
		p.watcher, p.noNotifyWhy = nil, "the change queue overflowed"
		p.mu.Unlock()
		w.close()
	}
	return p.scanChanges(exts)
}

// noNotify says notification was given up on for this pool.
func (p *Pool) noNotify() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.noNotifyWhy != ""
}

// scanChanges finds the changes by a scan of the workspace compared with
// the last scan (nil the first time, and past maxWatched files).
func (p *Pool) scanChanges(exts map[string]bool) map[string]int {
	p.mu.Lock()
	before := p.stamps
	p.mu.Unlock()
	now, ok := p.scan(exts)
	p.mu.Lock()
	p.stamps, p.watchOff = now, !ok
	p.mu.Unlock()
	if before == nil || !ok {
		return nil // the first scan is the baseline
	}
	changed := map[string]int{} // path → LSP FileChangeType
	for path, st := range now {
		if old, seen := before[path]; !seen {
			changed[path] = 1
		} else if old != st {
			changed[path] = 2
		}
	}
	for path := range before {
		if _, ok := now[path]; !ok {
			if _, err := os.Lstat(path); err != nil {
				changed[path] = 3
			}
		}
	}
	return changed
}

// filesChanged sends a server the changes to files of its language not
// open in it. When one is in the folder of an open file (its package, in
// most languages) it waits, until ctx, for a publish about an open file; a
// server need not publish again for a change elsewhere, and then its news
// come when they come.
func (s *server) filesChanged(ctx context.Context, changed map[string]int) {
	var changes []map[string]any
	s.mu.Lock()
	dirs := map[string]bool{}
	for uri := range s.docs {
		dirs[filepath.Dir(uriPath(uri))] = true
	}
	near := false
	for path, kind := range changed {
		uri := fileURI(path)
		if _, open := s.docs[uri]; open {
			continue
		}
		if _, ok := languageOf([]Language{s.lang}, path); ok {
			changes = append(changes, map[string]any{"uri": uri, "type": kind})
			near = near || dirs[filepath.Dir(path)]
		}
	}
	if len(changes) == 0 || !s.ready || len(s.docs) == 0 {
		s.mu.Unlock()
		return
	}
	pubs := 0
	for _, d := range s.docs {
		pubs += d.pubs
	}
	_ = s.proc.conn.send("workspace/didChangeWatchedFiles", map[string]any{"changes": changes})
	if !near {
		s.mu.Unlock()
		return
	}
	for {
		n := 0
		for _, d := range s.docs {
			n += d.pubs
		}
		if n > pubs || s.off || !s.ready {
			s.mu.Unlock()
			return
		}
		if !s.awaitChangeLocked(ctx) {
			return
		}
	}
}
