//go:build linux

package sandbox

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"

	"github.com/aci-dev/aci/tools/sandbox/sessiond"
)

// layers is what the session's helper layers (sessiond.Layers, as JSON):
// each cache of the policy over a fresh folder of this session's, so that
// what a command writes there never reaches the person's cache, and the
// folders on PATH read-only again above them. "" when there is nothing to
// layer or no session folder to hold the writes.
func (s *Sandbox) layers() string {
	p := s.policy
	if len(p.Layered) == 0 || s.tmpDir == "" {
		return ""
	}
	base, err := os.MkdirTemp(s.tmpDir, "layers-")
	if err != nil {
		return ""
	}
	var l sessiond.Layers
	for i, d := range p.Layered {
		ly := sessiond.Layer{Dir: d, Upper: filepath.Join(base, strconv.Itoa(i), "upper"), Work: filepath.Join(base, strconv.Itoa(i), "work")}
		if os.MkdirAll(ly.Upper, 0o700) != nil || os.MkdirAll(ly.Work, 0o700) != nil {
			continue
		}
		l.Layers = append(l.Layers, ly)
	}
	l.ReadOnly = p.ReadOnly
	b, err := json.Marshal(l)
	if err != nil || len(l.Layers) == 0 {
		return ""
	}
	return string(b)
}
