//go:build linux

package sandbox

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"sync"

	"github.com/aci-dev/aci/tools/sandbox/sessiond"
)

// sessionLayers is what the session's helper layers (spec, a JSON
// sessiond.Layers), the binds its bwrap needs for that (the kept layers,
// at their place in the session folder) and release, which unlocks the
// kept layers once the session's sandbox is gone.
type sessionLayers struct {
	spec    string
	binds   []string
	release func()
}

// pruneOnce removes idle kept layers once per process.
var pruneOnce sync.Once

// layers lays each cache of the policy over a writable folder, so that
// what a command writes there never reaches the person's cache: the
// workspace's kept layer of that cache (layers_kept_linux.go) or, when
// another session holds it, a fresh folder of this session's; and the
// folders on PATH read-only again above them. spec is "" when there is
// nothing to layer or no session folder to hold the writes.
func (s *Sandbox) layers() sessionLayers {
	out := sessionLayers{release: func() {}}
	p := s.policy
	if len(p.Layered) == 0 || s.tmpDir == "" {
		return out
	}
	base, err := os.MkdirTemp(s.tmpDir, "layers-")
	if err != nil {
		return out
	}
	keptBase := keptLayersBase(p)
	if keptBase != "" {
		pruneOnce.Do(func() { go pruneKeptLayers(keptBase) })
	}
	var held []*keptLayer
	var l sessiond.Layers
	for i, d := range p.Layered {
		dir := filepath.Join(base, strconv.Itoa(i))
		var k *keptLayer
		if keptBase != "" {
			k = acquireKeptLayer(keptBase, p.Workspace, d)
		}
		if k != nil {
			// Bound below the session folder, where the helper reaches it
			// and commands do not (each command's bwrap hides that folder).
			if os.MkdirAll(dir, 0o700) != nil {
				k.release()
				continue
			}
			held = append(held, k)
			out.binds = append(out.binds, "--bind", k.dir, dir)
		}
		ly := sessiond.Layer{Dir: d, Upper: filepath.Join(dir, "upper"), Work: filepath.Join(dir, "work")}
		if k == nil && (os.MkdirAll(ly.Upper, 0o700) != nil || os.MkdirAll(ly.Work, 0o700) != nil) {
			continue
		}
		l.Layers = append(l.Layers, ly)
	}
	out.release = func() {
		for _, k := range held {
			k.release()
		}
	}
	l.ReadOnly = p.ReadOnly
	b, err := json.Marshal(l)
	if err != nil || len(l.Layers) == 0 {
		out.release()
		return sessionLayers{release: func() {}}
	}
	out.spec = string(b)
	return out
}
