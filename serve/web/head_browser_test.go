package web_test

import (
	"testing"

	"github.com/aci-dev/aci/internal/fakeai"
	"github.com/chromedp/chromedp"
)

// TestPageHeadKeepsTitleAndID: at 1400 and 1024 px, with every badge the
// header can show at once (cost, mode, "needs approval", Accept plan,
// Cancel, End), the session's title and id stay readable: the badges wrap
// rather than squeeze them.
func TestPageHeadKeepsTitleAndID(t *testing.T) {
	ctx := browser(t)
	ai := fakeai.New(t, fakeai.Reply{Content: "hello"})
	base, token := pageServer(t, ai, t.TempDir())
	showPage(t, ctx, base, token)
	ask(t, ctx, "fix the flaky parser test")
	waitFor(t, ctx, "the session idle", `document.getElementById('state').textContent === 'idle' && !document.getElementById('mode').hidden`)
	for _, w := range []int64{1400, 1024} {
		if err := chromedp.Do(ctx, chromedp.EmulateViewport(w, 900)); err != nil {
			t.Fatal(err)
		}
		// Every badge at once: states that do not come together in one real
		// turn are set here, on the page the session drew.
		eval[bool](t, ctx, `(() => {
			const $ = (id) => document.getElementById(id);
			$('usage').textContent = '123.4k in · 12.3k out · 98.7k cached · $0.4321 ($0.1234 saved)';
			$('state').textContent = 'needs approval';
			$('state').className = 'state st-awaiting_approval';
			for (const id of ['accept-plan', 'cancel', 'end', 'state']) $(id).hidden = false;
			return true;
		})()`)
		// Set again and measured in one go: the page's own state events
		// may hide Cancel in between.
		got := eval[map[string]float64](t, ctx, `(() => {
			for (const id of ['accept-plan', 'cancel', 'end', 'state']) document.getElementById(id).hidden = false;
			const title = document.getElementById('title');
			const meta = document.getElementById('meta');
			const id = meta.querySelector('span.mono');
			const m = meta.getBoundingClientRect(), r = id.getBoundingClientRect();
			const b = document.getElementById('cancel').getBoundingClientRect();
			return {title: title.clientWidth, titleFull: title.scrollWidth, id: r.width,
				idShown: Math.min(r.right, m.right) - Math.max(r.left, m.left), cancel: b.width};
		})()`)
		t.Logf("%d px: %v", w, got)
		if got["title"] < got["titleFull"] || got["title"] < 150 {
			t.Errorf("%d px: the title is squeezed to %.0f px (it needs %.0f)", w, got["title"], got["titleFull"])
		}
		if got["id"] == 0 || got["idShown"] < got["id"]-0.5 {
			t.Errorf("%d px: the session id shows %.0f of its %.0f px", w, got["idShown"], got["id"])
		}
		if got["cancel"] == 0 {
			t.Errorf("%d px: Cancel is not drawn", w)
		}
	}
}
