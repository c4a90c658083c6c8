package imagefile

import (
	"bytes"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// PNG is a small real picture, for tests in other packages too.
func pngBytes(t *testing.T, w, h int) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := png.Encode(&b, image.NewRGBA(image.Rect(0, 0, w, h))); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestLoad(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	mkdir := func(name string) string {
		p := filepath.Join(dir, name)
		os.Mkdir(p, 0o755)
		return p
	}
	mkfifo := func(name string) string {
		p := filepath.Join(dir, name)
		if err := syscall.Mkfifo(p, 0o644); err != nil {
			t.Skip(err)
		}
		return p
	}
	good := write("shot.png", pngBytes(t, 3, 2))
	webp := write("a.webp", append([]byte("RIFF\x00\x00\x00\x00WEBPVP8X\x0a\x00\x00\x00\x00\x00\x00\x00"), 0x09, 0, 0, 0x04, 0, 0))
	liar := write("fake.png", []byte("GIF89a\x01\x00\x01\x00"))
	text := write("notes.png", []byte("hello, not a picture"))
	big := write("big.png", append([]byte("\x89PNG\r\n\x1a\n"), make([]byte, MaxBytes)...))
	unreadable := write("locked.png", pngBytes(t, 1, 1))
	os.Chmod(unreadable, 0)
	cases := []struct {
		name, path, mime, err string
		w, h                  int
	}{
		{"png", good, "image/png", "", 3, 2},
		{"webp extended", webp, "image/webp", "", 10, 5},
		{"mislabelled", liar, "", "named PNG but the bytes are GIF", 0, 0},
		{"not a picture", text, "", "not a PNG, JPEG, GIF or WebP", 0, 0},
		{"too big", big, "", "over the 20.0 MB limit", 0, 0},
		{"missing", filepath.Join(dir, "none.png"), "", "no such file", 0, 0},
		{"wrong extension", write("a.txt", []byte("x")), "", "not a picture by its name", 0, 0},
		{"a folder", mkdir("shots.png"), "", "not a regular file", 0, 0},
		{"a fifo", mkfifo("pipe.png"), "", "not a regular file", 0, 0},
	}
	if os.Geteuid() != 0 {
		cases = append(cases, struct {
			name, path, mime, err string
			w, h                  int
		}{"unreadable", unreadable, "", "permission denied", 0, 0})
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			im, err := Load(c.path)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("err = %v, want %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if im.MIME != c.mime || im.Width != c.w || im.Height != c.h {
				t.Fatalf("got %s %dx%d", im.MIME, im.Width, im.Height)
			}
			if !strings.HasPrefix(im.DataURL(), "data:"+c.mime+";base64,") {
				t.Fatal(im.DataURL()[:30])
			}
		})
	}
}

func TestDescribe(t *testing.T) {
	im, err := FromBytes("shot.png", "image/png", pngBytes(t, 640, 480))
	if err != nil {
		t.Fatal(err)
	}
	if d := im.Describe(); !strings.HasPrefix(d, "shot.png (PNG, ") || !strings.HasSuffix(d, ", 640×480)") {
		t.Fatal(d)
	}
}
