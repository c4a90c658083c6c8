package main

import (
	"fmt"
	"io"
	"testing"
	"time"
)

// BenchmarkPs100 is aci ps's work for 100 finished background sessions
// (records and the results their server kept; no server running): what
// the command adds to the binary's start.
func BenchmarkPs100(b *testing.B) {
	b.Setenv("XDG_STATE_HOME", b.TempDir())
	work := b.TempDir()
	dir, err := bgDir(work)
	if err != nil {
		b.Fatal(err)
	}
	cost := 0.0123
	for i := range 100 {
		id := fmt.Sprintf("20261207-2100%02d-%08x", i, i)
		if err := saveRecord(work, bgRecord{ID: id, Task: "task", Started: time.Now(), Workdir: work}); err != nil {
			b.Fatal(err)
		}
		saveResult(dir, id, bgResult{State: "idle", Cost: &cost, Last: "the answer is 42"})
	}
	b.ResetTimer()
	for b.Loop() {
		if code := runPs(nil, work, io.Discard, io.Discard); code != 0 {
			b.Fatal(code)
		}
	}
}
