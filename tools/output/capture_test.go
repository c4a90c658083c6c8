package output

import (
	"fmt"
	"math/rand/v2"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"
)

func TestCaptureHeadTail(t *testing.T) {
	const data = "0123456789abcdefghijklmnopqrstuvwxyz"
	rng := rand.New(rand.NewPCG(1, 2))
	for _, tc := range []struct {
		head, tail, n int // n: bytes of data written
	}{
		{4, 4, 0}, {4, 4, 3}, {4, 4, 8}, {4, 4, 9}, {4, 4, 36},
		{0, 4, 10}, {4, 0, 10}, {0, 0, 10}, {10, 3, 36}, {1, 20, 36},
	} {
		for trial := range 20 {
			name := fmt.Sprintf("h%d_t%d_n%d_%d", tc.head, tc.tail, tc.n, trial)
			c := NewCapture(tc.head, tc.tail)
			in := data[:tc.n]
			for rest := in; len(rest) > 0; { // random chunking
				k := 1 + rng.IntN(len(rest))
				c.Write([]byte(rest[:k]))
				rest = rest[k:]
			}
			head, tail, total, dropped := c.snapshot()
			wantHead := in[:min(tc.head, len(in))]
			wantTail := in[len(wantHead):]
			wantTail = wantTail[max(0, len(wantTail)-tc.tail):]
			if string(head) != wantHead || string(tail) != wantTail || total != int64(tc.n) ||
				dropped != (tc.n > tc.head+tc.tail) {
				t.Fatalf("%s: head %q tail %q total %d dropped %v; want %q %q %d",
					name, head, tail, total, dropped, wantHead, wantTail, tc.n)
			}
		}
	}
}

func TestCaptureText(t *testing.T) {
	t.Run("all kept", func(t *testing.T) {
		c := NewCapture(100, 100)
		fmt.Fprint(c, "\x1b[31mred\x1b[0m\nplain\n")
		if got := c.Text(1000); got != "red\nplain\n" {
			t.Errorf("got %q", got)
		}
	})
	t.Run("middle dropped", func(t *testing.T) {
		c := NewCapture(1000, 1000)
		s := truncTestLines(10000)
		c.Write([]byte(s))
		head, tail, _, total, _ := splitTruncated(t, c.Text(1000))
		if total != int64(len(s)) {
			t.Errorf("total %d, want %d", total, len(s))
		}
		if !strings.HasPrefix(head, "line 0001\n") || !strings.HasSuffix(tail, "line 10000\n") {
			t.Errorf("head %q... tail ...%q", head[:20], tail[len(tail)-20:])
		}
	})
	t.Run("split runes at seams", func(t *testing.T) {
		for h := range 6 {
			for tl := range 6 {
				c := NewCapture(h, tl)
				c.Write([]byte(strings.Repeat("é日🙂", 10)))
				if got := c.Text(100); !utf8.ValidString(got) || strings.ContainsRune(got, utf8.RuneError) {
					t.Errorf("head %d tail %d: %q", h, tl, got)
				}
			}
		}
	})
	t.Run("invalid bytes replaced", func(t *testing.T) {
		c := NewCapture(100, 100)
		c.Write([]byte("a\xffb"))
		if got := c.Text(100); got != "a\uFFFDb" {
			t.Errorf("got %q", got)
		}
	})
}

func TestCaptureTail(t *testing.T) {
	c := NewCapture(8, 8)
	c.Write([]byte("hello "))
	if got := c.Tail(100); got != "hello " {
		t.Errorf("Tail before overflow = %q", got)
	}
	c.Write([]byte("world, 50%\r60%"))
	if got := c.Tail(3); got != "60%" {
		t.Errorf("Tail(3) = %q", got)
	}
	if got := c.Tail(100); got != "60%" { // only the ring is contiguous; \r overwrote
		t.Errorf("Tail(100) = %q", got)
	}
	c2 := NewCapture(4, 4)
	c2.Write([]byte("ab日本"))
	if got := c2.Tail(4); got != "本" {
		t.Errorf("Tail across a rune = %q", got)
	}
}

var captureLineRE = regexp.MustCompile(`^w\d \d{5}$`)

func TestCaptureConcurrent(t *testing.T) {
	c := NewCapture(1000, 1000)
	const writers, lines = 8, 2000
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for i := range lines {
				fmt.Fprintf(c, "w%d %05d\n", w, i) // 9 bytes
			}
		})
	}
	wg.Go(func() { // readers race with writers
		for range 200 {
			c.Text(500)
			c.Tail(100)
			c.Total()
		}
	})
	wg.Wait()
	if got := c.Total(); got != writers*lines*9 {
		t.Errorf("Total = %d, want %d", got, writers*lines*9)
	}
	// Each Write is atomic: every whole line kept is one writer's line.
	head, tail, _, _ := c.snapshot()
	h, tl := string(head), string(tail)
	whole := h[:strings.LastIndexByte(h, '\n')+1] + tl[strings.IndexByte(tl, '\n')+1:]
	for _, l := range strings.Split(strings.TrimSuffix(whole, "\n"), "\n") {
		if !captureLineRE.MatchString(l) {
			t.Fatalf("interleaved line %q", l)
		}
	}
	if !strings.HasPrefix(string(head), "w") || !strings.HasSuffix(string(tail), "\n") {
		t.Errorf("head %q... tail ...%q", head[:10], tail[len(tail)-10:])
	}
}

// BenchmarkCapture200MB streams 200 MB through a Capture with the default
// limit and reports the heap allocated per op and the growth of the heap in
// use: both stay O(limit), not O(output).
func BenchmarkCapture200MB(b *testing.B) {
	const total = 200 << 20
	chunk := []byte(strings.Repeat("y\n", 16<<10)) // 32 KiB, like the pipe reader
	b.SetBytes(total)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	var c *Capture
	for b.Loop() {
		c = NewCapture(DefaultOutputLimit, DefaultOutputLimit)
		for n := 0; n < total; n += len(chunk) {
			c.Write(chunk)
		}
		_ = c.Text(DefaultOutputLimit)
	}
	runtime.ReadMemStats(&after)
	b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/float64(b.N), "heap-B/op")
	runtime.GC()
	runtime.ReadMemStats(&after)
	// Heap still in use with the last Capture alive, over the start.
	b.ReportMetric(float64(int64(after.HeapInuse)-int64(before.HeapInuse)), "heap-inuse-B")
	runtime.KeepAlive(c)
}
