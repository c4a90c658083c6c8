package session

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/aci-dev/aci/agent"
	"github.com/aci-dev/aci/internal/fakeai"
	"github.com/aci-dev/aci/tools/secrets"
)

// A secret split between two streamed pieces — of the model's words, of a
// command's output — never goes out, in any piece.
func TestSecretSplitAcrossPiecesStaysOut(t *testing.T) {
	const secret = "sk-split-secret-0123456789"
	srv := fakeai.New(t,
		fakeai.Reply{Content: "Opening. The key is " + secret + ", see." + call("launcher", "open", `{"app":"bash"}`), ChunkDelay: time.Millisecond},
		fakeai.Reply{Content: call("bash_1", "run", `{"command":"printf 'key=sk-split-sec'; sleep 0.4; printf 'ret-0123456789 done\\n'"}`)},
		fakeai.Reply{Content: "Done."},
	)
	set := secrets.NewRedactor(secret)
	f := NewFactory(Config{
		Client:      agent.ClientConfig{BaseURL: srv.URL, APIKey: "sk-test-secret-key-123456", Model: "m", Stream: true},
		Agent:       agent.Config{BasePrompt: "You are aci."},
		Secrets:     set,
		SessionsDir: t.TempDir(),
	})
	var texts, outputs []string
	s, err := f.New(context.Background(), Options{Workdir: t.TempDir(), Events: func(ev Event) {
		switch e := ev.(type) {
		case Text:
			texts = append(texts, e.Text)
		case Output:
			outputs = append(outputs, e.Text)
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := asked(context.Background(), s, "go"); err != nil {
		t.Fatal(err)
	}
	for name, pieces := range map[string][]string{"text": texts, "output": outputs} {
		if len(pieces) < 2 {
			t.Errorf("%s came in %d pieces: the test needs it split", name, len(pieces))
		}
		for _, p := range pieces {
			for _, part := range []string{"split-sec", "ret-0123456789"} {
				if strings.Contains(p, part) {
					t.Errorf("a %s piece holds part of the secret: %q", name, p)
				}
			}
		}
		if joined := strings.Join(pieces, ""); !strings.Contains(joined, secrets.Redacted) {
			t.Errorf("the %s pieces join to %q, without the secret masked", name, joined)
		}
	}
}
