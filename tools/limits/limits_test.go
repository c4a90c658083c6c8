package limits

import (
	"testing"

	"github.com/aci-dev/aci/tools/settings"
)

// The person's settings replace the defaults; the workspace's only lower
// them, whatever it asks.
func TestFromSettings(t *testing.T) {
	d := Defaults()
	if d.MemoryMB < 512 || d.Processes < 256 || d.Processes > 4096 || d.FileSizeMB != 32768 {
		t.Fatalf("defaults %+v", d)
	}
	for _, tc := range []struct {
		name     string
		user, ws settings.Limits
		want     Values
	}{
		{"defaults", settings.Limits{}, settings.Limits{}, d},
		{"user raises", settings.Limits{MemoryMB: d.MemoryMB * 2, Processes: 9000}, settings.Limits{}, Values{d.MemoryMB * 2, 9000, d.FileSizeMB}},
		{"workspace lowers", settings.Limits{}, settings.Limits{MemoryMB: 100, FileSizeMB: 5}, Values{100, d.Processes, 5}},
		{"workspace cannot raise", settings.Limits{Processes: 50}, settings.Limits{Processes: 100000, MemoryMB: d.MemoryMB * 4}, Values{d.MemoryMB, 50, d.FileSizeMB}},
	} {
		got := FromSettings(settings.Settings{Limits: tc.user, WorkspaceLimits: tc.ws})
		if got != tc.want {
			t.Errorf("%s: %+v, want %+v", tc.name, got, tc.want)
		}
	}
}

// The defaults scale with the machine and always leave the person part of
// it: half the memory (at most all but 2 GiB, at least 512 MB), 128
// processes per core between 256 and 4096.
func TestDefaultsScale(t *testing.T) {
	for _, tc := range []struct {
		totalMB    int64
		cores      int
		mem, procs int64
	}{
		{2048, 1, 512, 256},
		{4096, 2, 2048, 256},
		{8192, 4, 4096, 512},
		{16384, 8, 8192, 1024},
		{65536, 64, 32768, 4096},
		{0, 2, 4096, 256},
	} {
		v := defaultsFor(tc.totalMB, tc.cores)
		if v.MemoryMB != tc.mem || v.Processes != tc.procs {
			t.Errorf("%d MB, %d cores: %+v, want memory %d, processes %d", tc.totalMB, tc.cores, v, tc.mem, tc.procs)
		}
	}
}
