package main

import (
	"bytes"
	"encoding/base64"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aci-dev/aci/internal/fakeai"
)

// writePNG writes a real w×h picture and returns its data URL.
func writePNG(t *testing.T, path string, w, h int) string {
	t.Helper()
	var b bytes.Buffer
	if err := png.Encode(&b, image.NewRGBA(image.Rect(0, 0, w, h))); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return "data:image/png;base64," + base64.StdEncoding.EncodeToString(b.Bytes())
}

func TestImagesWithAQuestion(t *testing.T) {
	dir := t.TempDir()
	shot := writePNG(t, filepath.Join(dir, "shot.png"), 5, 3)
	other := writePNG(t, filepath.Join(dir, "other.png"), 2, 2)
	cases := []struct {
		name string
		args []string
		want []string
	}{
		{"-i", []string{"-p", "what is this?", "-i", "shot.png"}, []string{shot}},
		{"--image twice", []string{"--image", "shot.png", "--image", filepath.Join(dir, "other.png"), "-p", "compare"}, []string{shot, other}},
		{"@path", []string{"-p", "what is in @shot.png?"}, []string{shot}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv := fakeai.New(t, fakeai.Reply{Content: "a black rectangle"})
			r := aci(t, dir, srv, "", nil, c.args...)
			if r.code != 0 || !strings.Contains(r.stdout, "a black rectangle") {
				t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
			}
			req := srv.Requests()[0]
			if req.Invalid != nil {
				t.Fatal(req.Invalid)
			}
			urls := req.ImageURLs()
			if len(urls) != len(c.want) {
				t.Fatalf("%d image parts, want %d", len(urls), len(c.want))
			}
			for i := range urls {
				if urls[i] != c.want[i] {
					t.Fatalf("part %d: %.40s…, want %.40s…", i, urls[i], c.want[i])
				}
			}
		})
	}
}

func TestImageBadInputSendsNothing(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "fake.png"), []byte("plain text, not a picture"), 0o644)
	writePNG(t, filepath.Join(dir, "real.png"), 1, 1)
	os.Rename(filepath.Join(dir, "real.png"), filepath.Join(dir, "liar.jpg"))
	big := append([]byte("\x89PNG\r\n\x1a\n"), make([]byte, 20<<20)...)
	os.WriteFile(filepath.Join(dir, "big.png"), big, 0o644)
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"missing", []string{"-p", "look", "-i", "gone.png"}, "image gone.png: cannot read it: no such file or directory"},
		{"not a picture", []string{"-p", "look", "-i", "fake.png"}, "image fake.png: the bytes are not a PNG, JPEG, GIF or WebP picture"},
		{"not its name's format", []string{"-p", "look", "-i", "liar.jpg"}, "image liar.jpg: named JPEG but the bytes are PNG"},
		{"too big", []string{"-p", "look", "-i", "big.png"}, "image big.png: 20.0 MB is over the 20.0 MB limit"},
		{"@ not a picture", []string{"-p", "what is @fake.png?"}, "image fake.png: the bytes are not"},
		{"-i in the REPL", []string{"-i", "fake.png"}, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv := fakeai.New(t)
			r := aci(t, dir, srv, "", nil, c.args...)
			if r.code != 2 || !strings.Contains(r.stderr, c.want) {
				t.Fatalf("exit %d, stderr %q, want %q", r.code, r.stderr, c.want)
			}
			if n := len(srv.Requests()); n != 0 {
				t.Fatalf("%d requests sent", n)
			}
		})
	}
}

func TestImageKeptForResume(t *testing.T) {
	dir := t.TempDir()
	shot := writePNG(t, filepath.Join(dir, "shot.png"), 4, 4)
	srv := fakeai.New(t, fakeai.Reply{Content: "a square"}, fakeai.Reply{Content: "still a square"})
	env := []string{"XDG_STATE_HOME=" + t.TempDir()}
	if r := aci(t, dir, srv, "", env, "-p", "what is this?", "-i", "shot.png"); r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if r := aci(t, dir, srv, "", env, "--resume", "-p", "and again?"); r.code != 0 {
		t.Fatalf("resume: exit %d: %s", r.code, r.stderr)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests", len(reqs))
	}
	if urls := reqs[1].ImageURLs(); len(urls) != 1 || urls[0] != shot {
		t.Fatalf("resumed request: %d image parts", len(urls))
	}
}
