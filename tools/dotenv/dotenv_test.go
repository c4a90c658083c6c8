package dotenv

import (
	"slices"
	"testing"

	"github.com/aci-dev/aci/internal/testfs"
)

func TestLooksSecret(t *testing.T) {
	for _, tc := range []struct {
		name, value string
		want        bool
	}{
		{"API_KEY", "sk-abc123def456", true},
		{"DB_PASSWORD", "hunter2-horse", true},
		{"SENTRY_DSN", "https://abc123@o1.ingest.sentry.io/12345678", true},
		{"DATABASE_URL", "postgres://app:s3cret-pass@db/app", true},
		{"DATABASE_URL", "postgres://localhost/app", false},
		{"WEBHOOK_URL", "https://hooks.slack.com/services/T000/B000/XyZ123abc", true},
		{"SESSION_SECRET", "changeme", false},
		{"API_KEY", "your-api-key-here", false},
		{"API_KEY", "short", false},
		{"NODE_ENV", "development", false},
		{"PORT", "3000", false},
		{"HOST", "localhost", false},
		{"APP_NAME", "my cool application 2", false},
		{"BUILD_DIR", "/var/lib/app/build2024", false},
		{"API_BASE", "https://api.example.com/v1/things", false},
		{"STRIPE", "rk_live_51Habc123XYZ987", true},
		{"REDIS", "redis://:p4ssw0rd-x@cache:6379", true},
	} {
		if got := LooksSecret(tc.name, tc.value); got != tc.want {
			t.Errorf("LooksSecret(%s, %q) = %v, want %v", tc.name, tc.value, got, tc.want)
		}
	}
}

func TestSecrets(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		".env":                   "API_TOKEN=tok-1234567890abcdef\nNODE_ENV=development\n",
		".env.local":             "DB_PASSWORD=local-pass-99\n",
		".env.example":           "API_TOKEN=example-token-0000000000\n",
		"apps/web/.env":          "WEB_SECRET=web-secret-abc123\n",
		"node_modules/x/.env":    "NPM_SECRET=not-ours-123456789\n",
		".envrc":                 "export X_TOKEN=direnv-token-123456\n",
		"apps/web/.env.template": "WEB_SECRET=template-123456789\n",
	}
	testfs.Write(t, dir, 0o600, files)
	got := Values(dir)
	slices.Sort(got)
	want := []string{"local-pass-99", "tok-1234567890abcdef", "web-secret-abc123"}
	if !slices.Equal(got, want) {
		t.Fatalf("Values = %q, want %q", got, want)
	}
	for _, s := range Secrets(dir) {
		if s.Label == "" || slices.Contains([]string{s.Label}, s.Value) {
			t.Errorf("label %q must name the file and variable, not the value", s.Label)
		}
	}
	if v := Values(t.TempDir()); len(v) != 0 {
		t.Errorf("no .env: got %q", v)
	}
}
