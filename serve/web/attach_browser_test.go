package web_test

import (
	"bytes"
	"encoding/base64"
	"image"
	"image/png"
	"testing"

	"github.com/aci-dev/aci/internal/fakeai"
)

// TestPageImages: a picture pasted into the box and one dropped on the
// composer show as chips and go with the next message as image parts; a
// file that is no picture is refused with a line, not attached.
func TestPageImages(t *testing.T) {
	ctx := browser(t)
	ai := fakeai.New(t, fakeai.Reply{Content: "Two grey squares."})
	w, base := openWatched(t, ctx, ai, t.TempDir())
	var b bytes.Buffer
	png.Encode(&b, image.NewGray(image.Rect(0, 0, 3, 2)))
	data := base64.StdEncoding.EncodeToString(b.Bytes())

	eval[bool](t, ctx, `(() => {
		const bytes = Uint8Array.from(atob('`+data+`'), c => c.charCodeAt(0));
		const file = (name, type) => new File([bytes], name, { type });
		const paste = new DataTransfer();
		paste.items.add(file('shot.png', 'image/png'));
		document.getElementById('input').dispatchEvent(new ClipboardEvent('paste', { clipboardData: paste, bubbles: true, cancelable: true }));
		const drop = new DataTransfer();
		drop.items.add(file('dropped.png', 'image/png'));
		drop.items.add(new File(['hello'], 'notes.txt', { type: 'text/plain' }));
		document.getElementById('composer').dispatchEvent(new DragEvent('drop', { dataTransfer: drop, bubbles: true, cancelable: true }));
		return true;
	})()`)
	waitFor(t, ctx, "two chips", `document.querySelectorAll('#attachments .attachment').length === 2`)
	waitFor(t, ctx, "the refusal", `!document.getElementById('toast').hidden && document.getElementById('toast').textContent.includes('notes.txt: not a picture')`)
	ask(t, ctx, "what are these?")
	waitFor(t, ctx, "the answer", `[...document.querySelectorAll('.turn .md')].some(e => e.textContent.includes('Two grey squares.'))`)
	waitFor(t, ctx, "the chips gone", `document.getElementById('attachments').hidden`)
	urls := ai.Requests()[0].ImageURLs()
	want := "data:image/png;base64," + data
	if len(urls) != 2 || urls[0] != want || urls[1] != want {
		t.Fatalf("%d image parts", len(urls))
	}
	w.check(t, base)
}
