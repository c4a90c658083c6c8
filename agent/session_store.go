package agent

import (
	"path/filepath"
	"sort"

	"github.com/aci-dev/aci/transcript"
)

// The sessions of a store of transcripts (package transcript).

// ListSessions replays every transcript of workdir in dir, newest first.
func ListSessions(dir, workdir string) ([]Session, error) {
	names, err := transcript.Files(dir)
	if err != nil {
		return nil, err
	}
	var out []Session
	for _, name := range names {
		s, wd, err := replay(filepath.Join(dir, name))
		if err == nil && wd == workdir {
			out = append(out, s)
		}
	}
	// Names sort by the second a session started; within one second its
	// meta record's time decides.
	sort.SliceStable(out, func(i, j int) bool { return out[i].Started.After(out[j].Started) })
	return out, nil
}
