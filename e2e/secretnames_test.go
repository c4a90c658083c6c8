package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aci-dev/aci/internal/fakeai"
)

// The secret files the guard and the sandbox once disagreed on
// (credentials.json, .netrc, prod.env, *.p12 were secrets to the guard
// only, .env.dist to the sandbox only) and a token-bearing .npmrc: a
// contained command reading one by a name the guard cannot see (cat of
// a computed name, Python, Node) reads it as empty, and the result names
// the file kept back (or the guard, seeing through the spelling, asks:
// denied in pipe mode); no byte of any reaches the model; the file window asks before opening each (denied
// in pipe mode); .env.example, a template, reads as it is.
func TestE2EEverySecretNameKeptBack(t *testing.T) {
	work, gitEnv := gitWorkspace(t)
	containedOrSkip(t, work)
	files := map[string]string{
		"credentials.json": `{"token": "MARK-credjson-4410"}`,
		".netrc":           "machine example.com login u password MARK-netrc-4411\n",
		"prod.env":         "PAY_KEY=MARK-prodenv-4412\n",
		"x.p12":            "MARK-p12-4413\n",
		".env.dist":        "PAY_KEY=MARK-envdist-4414\n",
		".npmrc":           "//registry.npmjs.org/:_authToken=MARK-npmrc-4415\n",
	}
	const template = "PAY_KEY=MARK-template-4416\n"
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(work, name), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(work, ".env.example"), []byte(template), 0o644)

	// Each name split in two, so that no command spells it.
	names := []string{"credentials.json", ".netrc", "prod.env", "x.p12", ".env.dist", ".npmrc"}
	type step struct {
		file, route string
	}
	var steps []step
	replies := []fakeai.Reply{{Content: fakeai.ToolCall(call("launcher", "open", map[string]any{"app": "bash"}))}}
	for _, n := range names {
		a, b := n[:2], n[2:]
		for _, r := range []string{
			fmt.Sprintf(`cat "$(printf %%s '%s')%s" | rev`, a, b),
			fmt.Sprintf(`python3 -c "print(open('%s'+'%s').read()[::-1])"`, a, b),
			fmt.Sprintf(`node -e "console.log(require('fs').readFileSync('%s'+'%s','utf8').split('').reverse().join(''))"`, a, b),
		} {
			steps = append(steps, step{n, r})
			replies = append(replies, runCall(r))
		}
	}
	firstOpen := len(replies) + 1
	for _, n := range append(names, ".env.example") {
		replies = append(replies, fakeai.Reply{Content: fakeai.ToolCall(call("launcher", "open", map[string]any{"app": "file", "target": n}))})
	}
	replies = append(replies, fakeai.Reply{Content: "done"})
	srv := fakeai.New(t, replies...)
	r := aci(t, work, srv, "look", append([]string{"HOME=" + t.TempDir()}, gitEnv...))
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	var sent strings.Builder
	for _, q := range srv.Requests() {
		for _, m := range q.Messages {
			sent.WriteString(m.Content)
		}
	}
	for _, body := range files {
		mark := body[strings.Index(body, "MARK-"):]
		mark = mark[:strings.IndexAny(mark, "\"\n")]
		for _, enc := range []string{mark, reverse(mark)} {
			if strings.Contains(sent.String(), enc) || strings.Contains(r.stdout+r.stderr, enc) {
				t.Errorf("the model or the output got %q", enc)
			}
		}
	}
	for i, s := range steps {
		got := resultOf(t, srv, fmt.Sprintf("call_%d_1", i+2))
		// The guard sees through some spellings (Python joining two
		// literals) and asks first: denied here, which holds too; a
		// computed name in the shell it cannot see, so cat runs
		// contained, and the sandbox is the wall.
		guardAsked := strings.Contains(got, `status="denied"`) && strings.Contains(got, "reads a secret file")
		if !strings.Contains(got, "it tried to read "+s.file+", which aci keeps back") && (!guardAsked || strings.HasPrefix(s.route, "cat")) {
			t.Errorf("%s: the result does not name %s kept back: %q", s.route, s.file, got)
		}
	}
	for i, n := range names {
		got := resultOf(t, srv, fmt.Sprintf("call_%d_1", firstOpen+i))
		if !strings.Contains(got, `status="denied"`) {
			t.Errorf("open %s: the file window did not ask (denied in pipe mode): %q", n, got)
		}
	}
	got := resultOf(t, srv, fmt.Sprintf("call_%d_1", firstOpen+len(names)))
	if strings.Contains(got, `status="denied"`) || !strings.Contains(sent.String(), "MARK-template-4416") {
		t.Errorf(".env.example is a template, not a secret: %q", got)
	}
}
