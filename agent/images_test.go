package agent

import (
	"bytes"
	"context"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aci-dev/aci/internal/fakeai"
	"github.com/aci-dev/aci/prompt"
	"github.com/aci-dev/aci/tools/imagefile"
	"github.com/aci-dev/aci/windows"
)

func pngOf(t *testing.T, w, h int) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := png.Encode(&b, image.NewGray(image.Rect(0, 0, w, h))); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// newImageAgent is an agent with file and image windows, and the lines
// its client's Notify said.
func newImageAgent(t *testing.T, srv *fakeai.Server, dir string) (*Agent, *[]string) {
	t.Helper()
	wm := windows.NewManager(windows.Env{Workdir: dir, Approver: windows.ApproverFunc(func(context.Context, windows.ApprovalRequest) windows.Decision {
		return windows.Decision{}
	})}, windows.FileApp, windows.ImageApp)
	t.Cleanup(wm.CloseAll)
	var notes []string
	client := NewOpenAIClient(ClientConfig{BaseURL: srv.URL, APIKey: "sk-test", Model: "m", Notify: func(s string) { notes = append(notes, s) }})
	a := New(client, wm, Config{BasePrompt: "You are aci.", Hints: prompt.Hints{Workdir: dir, OS: "linux", Date: "2026-01-01"}, MaxSteps: 10}, func(Event) {})
	return a, &notes
}

func TestAttachedImageIsOneImagePart(t *testing.T) {
	srv := fakeai.New(t, fakeai.Reply{Content: "a grey square"}, fakeai.Reply{Content: "still grey"})
	a, _ := newImageAgent(t, srv, t.TempDir())
	im, err := imagefile.FromBytes("shot.png", "image/png", pngOf(t, 4, 4))
	if err != nil {
		t.Fatal(err)
	}
	a.AttachImages([]imagefile.Image{im})
	if _, err := a.Run(context.Background(), "what is this?"); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Run(context.Background(), "and now?"); err != nil {
		t.Fatal(err)
	}
	reqs := srv.Requests()
	for i, r := range reqs {
		if r.Invalid != nil {
			t.Fatalf("request %d: %v", i+1, r.Invalid)
		}
		// The history keeps the picture with its question: once in each.
		if urls := r.ImageURLs(); len(urls) != 1 || urls[0] != im.DataURL() {
			t.Fatalf("request %d: %d image parts", i+1, len(urls))
		}
	}
}

func TestImageWindowSentOnceAndAgainWhenChanged(t *testing.T) {
	dir := t.TempDir()
	shot := filepath.Join(dir, "shot.png")
	if err := os.WriteFile(shot, pngOf(t, 8, 6), 0o644); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("hello\n"), 0o644)
	srv := fakeai.New(t,
		fakeai.Reply{Content: fakeai.ToolCall(openCall("image", "shot.png"))},
		fakeai.Reply{Content: openFile("a.txt")},
		fakeai.Reply{Content: "an 8 by 6 picture"},
		fakeai.Reply{Content: "it changed"},
	)
	a, _ := newImageAgent(t, srv, dir)
	if _, err := a.Run(context.Background(), "look at shot.png"); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(shot, pngOf(t, 16, 12), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Run(context.Background(), "and now?"); err != nil {
		t.Fatal(err)
	}
	reqs := srv.Requests()
	want := []int{0, 1, 1, 2} // sent with the opening, kept, sent again once changed
	for i, r := range reqs {
		if r.Invalid != nil {
			t.Fatalf("request %d: %v", i+1, r.Invalid)
		}
		if n := len(r.ImageURLs()); n != want[i] {
			t.Fatalf("request %d: %d image parts, want %d", i+1, n, want[i])
		}
	}
	if !strings.Contains(reqs[1].LastUser(), "shot.png (PNG, ") || !strings.Contains(reqs[1].LastUser(), "8×6") {
		t.Fatalf("rendering: %s", reqs[1].LastUser())
	}
	if !strings.Contains(reqs[3].LastUser(), "16×12") {
		t.Fatalf("changed rendering: %s", reqs[3].LastUser())
	}
}

func TestImageWindowBadInput(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "fake.png"), []byte("not a picture at all"), 0o644)
	srv := fakeai.New(t,
		fakeai.Reply{Content: fakeai.ToolCall(openCall("image", "fake.png"))},
		fakeai.Reply{Content: "it is not a picture"},
	)
	a, _ := newImageAgent(t, srv, dir)
	if _, err := a.Run(context.Background(), "look"); err != nil {
		t.Fatal(err)
	}
	r := srv.Requests()[1]
	if len(r.ImageURLs()) != 0 || !strings.Contains(r.LastUser(), "not a PNG, JPEG, GIF or WebP") {
		t.Fatalf("%d parts: %s", len(r.ImageURLs()), r.LastUser())
	}
}

func TestImagesRefusedGoOnWithANote(t *testing.T) {
	cases := []struct{ name, body string }{
		{"openai", `{"error":{"message":"Invalid content type. image_url is only supported by certain models.","type":"invalid_request_error","param":"messages.[1].content.[1].type","code":null}}`},
		{"llama.cpp", `{"error":{"code":500,"message":"image input is not supported - hint: if this is unexpected, you may need to provide the mmproj","type":"server_error"}}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			status := 400
			if c.name == "llama.cpp" {
				status = 500
			}
			srv := fakeai.New(t,
				fakeai.Reply{Status: status, RawBody: c.body},
				fakeai.Reply{Content: "I cannot see it"},
				fakeai.Reply{Content: "nor this one"},
			)
			a, notes := newImageAgent(t, srv, t.TempDir())
			for _, q := range []string{"what is this?", "and this?"} {
				im, _ := imagefile.FromBytes("shot.png", "image/png", pngOf(t, 2, 2))
				a.AttachImages([]imagefile.Image{im})
				if got, err := a.Run(context.Background(), q); err != nil {
					t.Fatalf("%s: %q %v", q, got, err)
				}
			}
			reqs := srv.Requests()
			if len(reqs) != 3 || len(reqs[0].ImageURLs()) != 1 {
				t.Fatalf("%d requests", len(reqs))
			}
			for _, r := range reqs[1:] {
				if len(r.ImageURLs()) != 0 || !strings.Contains(r.LastUser(), "not sent: this model does not take images]") {
					t.Fatalf("request %d: %s", r.N, r.LastUser())
				}
			}
			if len(*notes) != 1 || !strings.Contains((*notes)[0], "does not take images") {
				t.Fatalf("notes %q", *notes)
			}
		})
	}
}

// A transcript keeps pictures up to its cap; past it a picture is a
// placeholder, and the resumed request carries a note in its place.
func TestTranscriptImageCap(t *testing.T) {
	dir := t.TempDir()
	tr, err := newTestLog(dir, "/work", "m", "sk-secret-key")
	if err != nil {
		t.Fatal(err)
	}
	small, _ := imagefile.FromBytes("small.png", "image/png", pngOf(t, 2, 2))
	big := small
	big.Name, big.Data = "big.png", append(append([]byte(nil), small.Data...), make([]byte, transcriptImageCap)...)
	tr.Write(Record{Type: "message", Role: "user", Content: "first", Images: []imagefile.Image{small}})
	tr.Write(Record{Type: "message", Role: "user", Content: "second", Images: []imagefile.Image{big}})
	tr.Close()
	s, err := LatestSession(dir, "/work")
	if err != nil {
		t.Fatal(err)
	}
	if len(s.History) != 2 {
		t.Fatalf("%d entries", len(s.History))
	}
	kept, dropped := s.History[0].Images[0], s.History[1].Images[0]
	if kept.Dropped || !bytes.Equal(kept.Data, small.Data) || !dropped.Dropped || dropped.Data != nil || dropped.Name != "big.png" {
		t.Fatalf("kept %v/%d bytes, dropped %v/%d bytes", kept.Dropped, len(kept.Data), dropped.Dropped, len(dropped.Data))
	}
	if len(big.Data) <= transcriptImageCap {
		t.Fatal("the history's own picture was changed")
	}
	parts, _ := content(s.History[1].message()).([]contentPart)
	if len(parts) != 2 || parts[1].Type != "text" || !strings.Contains(parts[1].Text, "big.png was not kept") {
		t.Fatalf("parts %+v", parts)
	}
}

// On a model that caches at breakpoints, a message with pictures carries
// the mark on its last part, so the pictures are in the cached prefix.
func TestImagePartsCarryTheCacheMark(t *testing.T) {
	srv := fakeai.New(t, fakeai.Reply{Content: "seen"})
	client := NewOpenAIClient(ClientConfig{BaseURL: srv.URL, APIKey: "sk-test", Model: "anthropic/claude-sonnet-4.5"})
	im, _ := imagefile.FromBytes("shot.png", "image/png", pngOf(t, 2, 2))
	if _, err := client.Complete(context.Background(), []Message{{Role: "system", Content: "sys"}, {Role: "user", Content: "look", Images: []imagefile.Image{im}}}, nil); err != nil {
		t.Fatal(err)
	}
	req := srv.Requests()[0]
	if req.Invalid != nil {
		t.Fatal(req.Invalid)
	}
	msgs := req.Raw["messages"].([]any)
	parts := msgs[1].(map[string]any)["content"].([]any)
	last := parts[len(parts)-1].(map[string]any)
	if len(parts) != 3 || last["type"] != "image_url" || last["cache_control"] == nil {
		t.Fatalf("parts %v", parts)
	}
	// The picture is named in a text part of its own (docs/images.md).
	if named := parts[1].(map[string]any); named["type"] != "text" || named["text"] != "[image shot.png (PNG, 75 B, 2×2)]" {
		t.Errorf("the picture is not named: %v", named)
	}
}
