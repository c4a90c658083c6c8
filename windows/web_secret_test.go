package windows

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/aci-dev/aci/protocol"
)

// A URL that carries a secret in its query is asked before anything is
// sent; denied, the server never hears of it.
func TestWebFetchSecretInURLIsAsked(t *testing.T) {
	const secret = "sk-windows-url-secret-42"
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Header().Set("Content-Type", "text/plain")
		w.Write([]byte("hello"))
	}))
	t.Cleanup(srv.Close)
	var asked []ApprovalRequest
	m, _ := newAppsManager(t, ApproverFunc(func(_ context.Context, req ApprovalRequest) Decision {
		asked = append(asked, req)
		return Decision{Message: "no"}
	}))
	m.env.Secrets.Add(secret)
	r := do(t, m, "launcher", "open", `{"app":"web_fetch","target":"`+srv.URL+`/?token=`+secret+`"}`)
	if r.Status != protocol.StatusDenied || len(asked) != 1 || !strings.Contains(asked[0].Reason, "secret") {
		t.Fatalf("open = %+v, asked %+v", r, asked)
	}
	if strings.Contains(asked[0].Subject, secret) || strings.Contains(r.Text, secret) {
		t.Errorf("the secret is shown: %q / %q", asked[0].Subject, r.Text)
	}
	if hits.Load() != 0 {
		t.Error("the URL was fetched")
	}
	if r := do(t, m, "launcher", "open", `{"app":"web_fetch","target":"`+srv.URL+`/?q=harmless"}`); r.Status != protocol.StatusOK || len(asked) != 1 {
		t.Errorf("harmless URL: %+v, asked %d", r, len(asked))
	}
}
