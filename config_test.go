package main

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aci-dev/aci/tools/fetch"
	"github.com/aci-dev/aci/tools/secrets"
)

// A workspace .env must not turn the safety switches off; its other
// entries load, and the environment still wins.
func TestDotEnvCannotSetSafetySwitches(t *testing.T) {
	dir := t.TempDir()
	env := "ACI_YES=1\nACI_SANDBOX=off\naci_sandbox=off\nACI_TEST_FROM_DOTENV=loaded\nACI_TEST_IN_ENV=dotenv\nOPENAI_API_KEY=sk-from-dotenv-123456\n" +
		"ACI_TEST_PROJECT_DB_PASSWORD=x\nPROJECT_DB_PASSWORD=hunter2-project-secret\nPROJECT_MODE=development\n"
	if err := os.WriteFile(filepath.Join(dir, ".env"), []byte(env), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	for _, k := range []string{"ACI_YES", "ACI_SANDBOX", "aci_sandbox", "ACI_TEST_FROM_DOTENV", "OPENAI_API_KEY",
		"ACI_TEST_PROJECT_DB_PASSWORD", "PROJECT_DB_PASSWORD", "PROJECT_MODE"} {
		old, had := os.LookupEnv(k)
		os.Unsetenv(k)
		t.Cleanup(func() {
			if had {
				os.Setenv(k, old)
			} else {
				os.Unsetenv(k)
			}
		})
	}
	t.Setenv("ACI_TEST_IN_ENV", "environment")
	t.Setenv("OPENAI_BASE_URL", "http://127.0.0.1:1")
	c, err := loadConfig(nil, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if c.Yes {
		t.Error("ACI_YES=1 in .env turned approvals off")
	}
	if c.Sandbox != "workspace" {
		t.Errorf("sandbox = %q: .env changed it", c.Sandbox)
	}
	for _, k := range []string{"ACI_YES", "ACI_SANDBOX", "aci_sandbox"} {
		if v, ok := os.LookupEnv(k); ok {
			t.Errorf("%s=%s was set from .env", k, v)
		}
	}
	if os.Getenv("ACI_TEST_FROM_DOTENV") != "loaded" || os.Getenv("ACI_TEST_IN_ENV") != "environment" {
		t.Errorf("ordinary .env entries: from=%q in=%q", os.Getenv("ACI_TEST_FROM_DOTENV"), os.Getenv("ACI_TEST_IN_ENV"))
	}
	if c.APIKey != "sk-from-dotenv-123456" || c.DotEnv["ACI_TEST_FROM_DOTENV"] != "loaded" {
		t.Errorf("key %q dotenv %v", c.APIKey, c.DotEnv)
	}
	if _, ok := c.DotEnv["ACI_YES"]; ok {
		t.Error("ACI_YES listed as set from .env")
	}
	// The project's own entries are not aci's: they stay out of its
	// environment, so commands do not inherit them.
	for _, k := range []string{"PROJECT_DB_PASSWORD", "PROJECT_MODE"} {
		if v, ok := os.LookupEnv(k); ok {
			t.Errorf("%s=%s was set from .env; only OPENAI_* and ACI_* are aci's", k, v)
		}
	}
}

func TestSafetySwitchesFromEnvAndFlags(t *testing.T) {
	t.Chdir(t.TempDir())
	t.Setenv("OPENAI_BASE_URL", "http://127.0.0.1:1")
	for _, tc := range []struct {
		env, flag, want string
		bad             bool
	}{
		{"", "", "workspace", false},
		{"off", "", "off", false},
		{"workspace", "off", "off", false},
		{"off", "workspace", "workspace", false},
		{"nope", "", "", true},
		{"", "strict", "", true},
	} {
		t.Setenv("ACI_SANDBOX", tc.env)
		var args []string
		if tc.flag != "" {
			args = []string{"--sandbox", tc.flag}
		}
		c, err := loadConfig(args, io.Discard)
		if tc.bad {
			var u errUsage
			if err == nil || !strings.Contains(err.Error(), "ACI_SANDBOX") || !asUsage(err, &u) {
				t.Errorf("env %q flag %q: err %v, want a usage error", tc.env, tc.flag, err)
			}
			continue
		}
		if err != nil || c.Sandbox != tc.want {
			t.Errorf("env %q flag %q: sandbox %q err %v, want %q", tc.env, tc.flag, c.Sandbox, err, tc.want)
		}
	}
	t.Setenv("ACI_SANDBOX", "")
	t.Setenv("ACI_YES", "1")
	if c, err := loadConfig(nil, io.Discard); err != nil || !c.Yes {
		t.Errorf("ACI_YES=1 from the environment: yes %v err %v", c.Yes, err)
	}
}

func asUsage(err error, u *errUsage) bool {
	e, ok := err.(errUsage)
	if ok {
		*u = e
	}
	return ok
}

// applySafety makes the key, credential variables and .env values secret:
// redacted from output, asked about in URLs.
func TestApplySafetyRegistersSecrets(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, ".env"), []byte("STRIPE_SECRET=stripe-dotenv-secret-1\nINTERNAL_ENDPOINT_ID=endpoint-id-998877\nOPENAI_MODEL=model-name-xyz\n"), 0o600)
	t.Chdir(dir)
	for _, k := range []string{"STRIPE_SECRET", "INTERNAL_ENDPOINT_ID", "OPENAI_MODEL"} {
		os.Unsetenv(k)
		t.Cleanup(func() { os.Unsetenv(k) })
	}
	t.Setenv("GITHUB_TOKEN", "ghp-env-token-123456")
	t.Setenv("OPENAI_API_KEY", "sk-apply-safety-123456")
	c, err := loadConfig(nil, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	applySafety(c, &stderr)
	for _, s := range []string{"sk-apply-safety-123456", "ghp-env-token-123456", "stripe-dotenv-secret-1"} {
		if got := c.Secrets.Redact("x " + s + " y"); got != "x "+secrets.Redacted+" y" {
			t.Errorf("%s not redacted: %q", s, got)
		}
	}
	if fetch.SecretInURL("https://x.test/?id=endpoint-id-998877", c.Secrets, c.URLSecrets) == "" {
		t.Error("a .env value in a URL was not caught")
	}
	if fetch.SecretInURL("https://x.test/?m=model-name-xyz", c.Secrets, c.URLSecrets) != "" || c.Secrets.Contains("model-name-xyz") {
		t.Error("aci's own model setting counted as a secret")
	}
}

// ACI_CACHE_TTL is seconds; 0 says the cache never expires.
func TestCacheTTL(t *testing.T) {
	t.Chdir(t.TempDir())
	t.Setenv("OPENAI_BASE_URL", "http://127.0.0.1:1")
	for _, tc := range []struct {
		env  string
		want time.Duration
		err  string
	}{
		{"", 5 * time.Minute, ""},
		{"60", time.Minute, ""},
		{"0", -1, ""},
		{"soon", 0, "ACI_CACHE_TTL must be a whole number"},
		{"-5", 0, "ACI_CACHE_TTL must be a whole number"},
	} {
		t.Setenv("ACI_CACHE_TTL", tc.env)
		c, err := loadConfig(nil, io.Discard)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("ACI_CACHE_TTL=%q: %v, want %q", tc.env, err, tc.err)
			}
			continue
		}
		if err != nil || c.CacheTTL != tc.want {
			t.Errorf("ACI_CACHE_TTL=%q: %v, %v", tc.env, c.CacheTTL, err)
		}
	}
}
