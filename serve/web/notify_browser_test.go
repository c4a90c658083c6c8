package web_test

import (
	"strings"
	"testing"

	"github.com/aci-dev/aci/internal/fakeai"
)

// The page, not focused, says a turn's end in its tab title and as a
// browser notification (the person allowed them); looked at again, the
// title is plain. The threshold is the testing knob's 0 s.
func TestPageNotifiesWhenNotFocused(t *testing.T) {
	ctx := browser(t)
	ai := fakeai.New(t, fakeai.Reply{Content: "All **done** here."})
	w, base := openWatched(t, ctx, ai, t.TempDir())
	// The browser's side: notifications allowed, the page in the background.
	eval[bool](t, ctx, `(() => {
		window.__notes = [];
		window.Notification = class { constructor(title, o) { window.__notes.push(title + ': ' + o.body); } static get permission() { return 'granted'; } };
		window.ACI_NOTIFY_MIN_S = 0;
		document.hasFocus = () => false;
		return true;
	})()`)
	ask(t, ctx, "Is it done?")
	waitFor(t, ctx, "the title marked", `document.title.startsWith('● ')`)
	waitFor(t, ctx, "the notification", `window.__notes.length === 1`)
	if got := eval[string](t, ctx, `window.__notes[0]`); got != "aci: aci: done: All **done** here." {
		t.Errorf("notified %q", got)
	}
	eval[bool](t, ctx, `(() => { document.hasFocus = () => true; window.dispatchEvent(new Event('focus')); return true; })()`)
	if got := eval[string](t, ctx, `document.title`); strings.HasPrefix(got, "●") {
		t.Errorf("the title still marked once looked at: %q", got)
	}
	w.check(t, base)
}
