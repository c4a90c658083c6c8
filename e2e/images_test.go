package e2e

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

// A model server that takes no pictures: one line says so, the turn goes
// on with a note in the picture's place.
func TestImageRefusedByTheModel(t *testing.T) {
	dir := t.TempDir()
	writePNG(t, filepath.Join(dir, "shot.png"), 3, 3)
	srv := fakeai.New(t,
		fakeai.Reply{Status: 500, RawBody: `{"error":{"code":500,"message":"image input is not supported - hint: if this is unexpected, you may need to provide the mmproj","type":"server_error"}}`},
		fakeai.Reply{Content: "I cannot see pictures, but the name suggests a screenshot."},
	)
	r := aci(t, dir, srv, "", nil, "-p", "what is this?", "-i", "shot.png")
	if r.code != 0 || !strings.Contains(r.stdout, "I cannot see pictures") {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if n := strings.Count(r.stderr, "does not take images"); n != 1 {
		t.Fatalf("the refusal said %d times:\n%s", n, r.stderr)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 || len(reqs[0].ImageURLs()) != 1 || len(reqs[1].ImageURLs()) != 0 {
		t.Fatalf("%d requests", len(reqs))
	}
	if !strings.Contains(reqs[1].LastUser(), "[image shot.png (PNG, ") || !strings.Contains(reqs[1].LastUser(), "not sent: this model does not take images]") {
		t.Fatalf("the retried request: %s", reqs[1].LastUser())
	}
}

// The model opens an image window: its picture goes with the rendering,
// once; a later request repeats the history, not the picture.
func TestImageWindowInTheBinary(t *testing.T) {
	dir := t.TempDir()
	shot := writePNG(t, filepath.Join(dir, "ui.png"), 7, 5)
	srv := fakeai.New(t,
		act(call("launcher", "open", map[string]any{"app": "image", "target": "ui.png"})),
		act(call("image_1", "close", nil)),
		fakeai.Reply{Content: "The picture is 7 by 5."},
	)
	r := aci(t, dir, srv, "", nil, "-p", "look at ui.png")
	if r.code != 0 || !strings.Contains(r.stdout, "7 by 5") {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	reqs := srv.Requests()
	want := []int{0, 1, 1}
	for i, req := range reqs {
		urls := req.ImageURLs()
		if len(urls) != want[i] || (len(urls) == 1 && urls[0] != shot) {
			t.Fatalf("request %d: %d image parts, want %d", i+1, len(urls), want[i])
		}
	}
	if !strings.Contains(reqs[1].LastUser(), "image ui.png (PNG, ") || !strings.Contains(reqs[1].LastUser(), "7×5") {
		t.Fatalf("rendering: %s", reqs[1].LastUser())
	}
}
