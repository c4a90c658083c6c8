package main

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aci-dev/aci/internal/testfs"
	"github.com/joho/godotenv"
)

// userEnvSetup gives a test its own config folder, workspace and clean
// variables; it returns the workspace and the person's env file path.
func userEnvSetup(t *testing.T, vars ...string) (work, user string) {
	t.Helper()
	cfg := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", cfg)
	work = t.TempDir()
	t.Chdir(work)
	for _, k := range vars {
		t.Setenv(k, "") // restored afterwards; empty counts as unset
	}
	return work, filepath.Join(cfg, "aci", ".env")
}

// Flags win over the environment, which wins over the workspace's .env,
// which wins over the person's file; the person's file is read from any
// folder, and never for the safety switches.
func TestConfigPrecedence(t *testing.T) {
	tests := []struct {
		name                 string
		env, work, user, flg string // OPENAI_MODEL from each place ("": not set there)
		want                 string
	}{
		{name: "default", want: defaultModel},
		{name: "person's file alone", user: "user-m", want: "user-m"},
		{name: "workspace over person", work: "work-m", user: "user-m", want: "work-m"},
		{name: "environment over both", env: "env-m", work: "work-m", user: "user-m", want: "env-m"},
		{name: "flag over all", env: "env-m", work: "work-m", user: "user-m", flg: "flag-m", want: "flag-m"},
		{name: "environment over person", env: "env-m", user: "user-m", want: "env-m"},
		{name: "flag over person", user: "user-m", flg: "flag-m", want: "flag-m"},
		{name: "an empty entry sets nothing", work: "-", user: "user-m", want: "user-m"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			work, user := userEnvSetup(t, "OPENAI_MODEL", "OPENAI_API_KEY", "OPENAI_BASE_URL")
			t.Setenv("OPENAI_API_KEY", "sk-precedence-test-1")
			t.Setenv("OPENAI_MODEL", tt.env)
			if tt.work != "" {
				testfs.FileMode(t, filepath.Join(work, ".env"), "OPENAI_MODEL="+strings.TrimPrefix(tt.work, "-")+"\n", 0o600)
			}
			if tt.user != "" {
				testfs.FileMode(t, user, "OPENAI_MODEL="+tt.user+"\n", 0o600)
			}
			var args []string
			if tt.flg != "" {
				args = []string{"--model", tt.flg}
			}
			c, err := loadConfig(args, io.Discard)
			if err != nil {
				t.Fatal(err)
			}
			if c.Model != tt.want {
				t.Errorf("model %q, want %q", c.Model, tt.want)
			}
		})
	}
}

// The person's file carries the key and aci's settings, but not the
// safety switches nor anything that is not aci's.
func TestUserEnvFile(t *testing.T) {
	_, user := userEnvSetup(t, "OPENAI_API_KEY", "OPENAI_BASE_URL", "ACI_MAX_STEPS", "ACI_YES", "ACI_SANDBOX", "ACI_SERVE_TOKEN", "PROJECT_THING")
	testfs.FileMode(t, user, "OPENAI_API_KEY=sk-user-file-key-123\nACI_MAX_STEPS=7\nACI_YES=1\nACI_SANDBOX=off\nACI_SERVE_TOKEN=0123456789abcdef0123\nPROJECT_THING=x\n", 0o600)
	os.Unsetenv("ACI_YES")
	os.Unsetenv("PROJECT_THING")
	var stderr bytes.Buffer
	c, err := loadConfig([]string{"serve"}, &stderr)
	if err != nil {
		t.Fatal(err)
	}
	if c.APIKey != "sk-user-file-key-123" || c.MaxSteps != 7 {
		t.Errorf("key %q steps %d: the person's file was not read", c.APIKey, c.MaxSteps)
	}
	if c.Yes || c.Sandbox != "workspace" || c.ServeToken != "" {
		t.Errorf("yes %v sandbox %q token %q: a safety switch came from the file", c.Yes, c.Sandbox, c.ServeToken)
	}
	if _, ok := os.LookupEnv("PROJECT_THING"); ok {
		t.Error("a variable that is not aci's was set from the person's file")
	}
	if stderr.Len() != 0 {
		t.Errorf("stderr %q for a 0600 file", stderr.String())
	}
	if c.DotEnv["OPENAI_API_KEY"] != "sk-user-file-key-123" {
		t.Error("the file's entries are not listed for the secret checks")
	}

	// Others may read it: aci says so, and still reads it.
	if err := os.Chmod(user, 0o644); err != nil {
		t.Fatal(err)
	}
	stderr.Reset()
	if _, err := loadConfig(nil, &stderr); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stderr.String(), "others can read it: chmod 600 "+user) || strings.Contains(stderr.String(), "sk-user-file-key-123") {
		t.Errorf("stderr %q", stderr.String())
	}
}

// The missing-key message names each place aci looked, in short lines.
func TestNoKeyMessage(t *testing.T) {
	work, user := userEnvSetup(t, "OPENAI_API_KEY", "OPENAI_BASE_URL", "OPENAI_MODEL")
	t.Setenv("OPENAI_BASE_URL", "https://api.example.com/v1")
	testfs.FileMode(t, filepath.Join(work, ".env"), "OPENAI_MODEL=m\n", 0o600)
	_, err := loadConfig(nil, io.Discard)
	var nk *noKeyError
	if !errors.As(err, &nk) {
		t.Fatalf("err %v, want the missing-key error", err)
	}
	msg := err.Error()
	for _, want := range []string{
		"OPENAI_API_KEY is not set (the key for api.example.com)",
		"  the environment\n",
		filepath.Join(work, ".env") + " (no OPENAI_API_KEY in it)",
		user + " (no such file)",
		"OPENAI_API_KEY=sk-... in " + user,
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("message lacks %q:\n%s", want, msg)
		}
	}
	lines := strings.Split(msg, "\n")
	if len(lines) > 8 {
		t.Errorf("%d lines, want a few:\n%s", len(lines), msg)
	}
	for _, l := range lines {
		if len(l) > 80 && !strings.Contains(l, work) && !strings.Contains(l, user) {
			t.Errorf("line of %d characters: %q", len(l), l)
		}
	}
}

// The key is written whole, readable only by the person, next to what the
// file already held.
func TestSaveKey(t *testing.T) {
	tests := []struct {
		name, before, want string
		mode               os.FileMode
	}{
		{name: "new file", want: "OPENAI_API_KEY=sk-new-1234567890\n"},
		{name: "kept settings", before: "OPENAI_MODEL=m\n# note\n", mode: 0o644, want: "OPENAI_MODEL=m\n# note\nOPENAI_API_KEY=sk-new-1234567890\n"},
		{name: "replaced key", before: "export OPENAI_API_KEY=sk-old\nACI_MAX_STEPS=9", mode: 0o600, want: "OPENAI_API_KEY=sk-new-1234567890\nACI_MAX_STEPS=9"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "aci", ".env")
			if tt.before != "" {
				testfs.FileMode(t, path, tt.before, tt.mode)
			}
			if err := saveKey(path, "sk-new-1234567890"); err != nil {
				t.Fatal(err)
			}
			got, _ := os.ReadFile(path)
			if !strings.HasSuffix(string(got), tt.want) {
				t.Errorf("file:\n%s\nwant it to end with:\n%s", got, tt.want)
			}
			fi, _ := os.Stat(path)
			if fi.Mode().Perm() != 0o600 {
				t.Errorf("mode %o, want 600", fi.Mode().Perm())
			}
			if di, _ := os.Stat(filepath.Dir(path)); tt.before == "" && di.Mode().Perm() != 0o700 {
				t.Errorf("folder mode %o, want 700", di.Mode().Perm())
			}
			if m, _ := filepath.Glob(filepath.Join(filepath.Dir(path), ".*aci-*")); len(m) > 0 {
				t.Errorf("temporary files left: %v", m)
			}
		})
	}
}

// The key prompt reads a raw terminal: editing keys work, escape
// sequences (a bracketed paste) are dropped, Ctrl-C and Ctrl-D cancel.
func TestScanSecret(t *testing.T) {
	tests := []struct {
		in, want string
		err      error
	}{
		{in: "sk-abc\r", want: "sk-abc"},
		{in: "sk-abx\x7fc\n", want: "sk-abc"},
		{in: "junk\x15sk-abc\r", want: "sk-abc"},
		{in: "\x1b[200~sk-pasted\x1b[201~\r", want: "sk-pasted"},
		{in: "sk\x1b[Dx\r", want: "skx"},
		{in: "sk-a\x03", err: errCancelled},
		{in: "\x04", err: errCancelled},
		{in: "\r", want: ""},
	}
	for _, tt := range tests {
		got, err := scanSecret(strings.NewReader(tt.in))
		if got != tt.want || !errors.Is(err, tt.err) {
			t.Errorf("%q: got %q, %v; want %q, %v", tt.in, got, err, tt.want, tt.err)
		}
	}
}

// Each command takes its own flags; a wrong one is named with the right
// spelling.
func TestCommandFlags(t *testing.T) {
	tests := []struct {
		args []string
		err  string
	}{
		{args: []string{"serve", "--port", "8000"}, err: "unknown flag --port; did you mean --addr? (see aci serve --help)"},
		{args: []string{"serve", "--adr", "127.0.0.1:1"}, err: "unknown flag --adr; did you mean --addr?"},
		{args: []string{"--yolo"}, err: "unknown flag --yolo; did you mean --yes?"},
		{args: []string{"--max-turn", "3"}, err: "did you mean --max-turns?"},
		{args: []string{"--json-schema", "s.json"}, err: "did you mean --output-schema?"},
		{args: []string{"serve", "--output-schema", "s.json"}, err: "aci serve takes --addr"},
		{args: []string{"--frobnicate"}, err: "unknown flag --frobnicate (see aci --help)"},
		{args: []string{"acp", "--yes"}, err: "aci acp does not take --yes"},
		{args: []string{"acp", "--resume"}, err: "aci acp does not take --resume"},
		{args: []string{"acp", "--addr", "1:2"}, err: "aci acp does not take --addr (see aci acp --help)"},
		{args: []string{"acp", "--port", "1"}, err: "unknown flag --port (see aci acp --help)"},
		{args: []string{"acp", "extra"}, err: `aci acp takes no argument, got "extra"`},
		{args: []string{"--addr", "1:2"}, err: "--addr is for aci serve"},
		{args: []string{"--model"}, err: "--model needs a value"},
		{args: []string{"acp", "--model", "m"}},
		{args: []string{"serve", "--addr", "127.0.0.1:0", "--yes"}},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			userEnvSetup(t, "OPENAI_BASE_URL")
			t.Setenv("OPENAI_BASE_URL", "http://127.0.0.1:1")
			_, err := loadConfig(tt.args, io.Discard)
			if tt.err == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			var u errUsage
			if err == nil || !strings.Contains(err.Error(), tt.err) || !asUsage(err, &u) {
				t.Errorf("err %v, want a usage error with %q", err, tt.err)
			}
		})
	}
}

// A -p with no question after it takes the question from stdin.
func TestBareP(t *testing.T) {
	tests := []struct {
		args       []string
		prompt     string
		model      string
		promptSet  bool
		wantFormat string
	}{
		{args: []string{"-p"}, promptSet: true},
		{args: []string{"-p", "-"}, promptSet: true},
		{args: []string{"-p", "--model", "m"}, promptSet: true, model: "m"},
		{args: []string{"--p", "--output-format=json"}, promptSet: true, wantFormat: "json"},
		{args: []string{"-p", "-- not a flag"}, prompt: "-- not a flag", promptSet: true},
		{args: []string{"-p", "question"}, prompt: "question", promptSet: true},
	}
	for _, tt := range tests {
		userEnvSetup(t, "OPENAI_BASE_URL")
		t.Setenv("OPENAI_BASE_URL", "http://127.0.0.1:1")
		c, err := loadConfig(tt.args, io.Discard)
		if err != nil {
			t.Fatalf("%q: %v", tt.args, err)
		}
		if c.Prompt != tt.prompt || c.PromptSet != tt.promptSet || (tt.model != "" && c.Model != tt.model) || (tt.wantFormat != "" && string(c.OutputFormat) != tt.wantFormat) {
			t.Errorf("%q: prompt %q set %v model %q format %q", tt.args, c.Prompt, c.PromptSet, c.Model, c.OutputFormat)
		}
	}
}

// Every command's help lists each flag it takes, its environment and an
// example, and points to nothing only a checkout has.
func TestHelpTexts(t *testing.T) {
	for _, c := range []command{mainCmd, serveCmd, acpCmd} {
		for f := range c.flags {
			if f == "h" {
				continue
			}
			if !strings.Contains(c.help, dashed(f)+" ") && !strings.Contains(c.help, dashed(f)+"\n") {
				t.Errorf("%s --help does not list %s", c.name, dashed(f))
			}
		}
		for _, want := range []string{"Usage:", "Flags:", "Example", "OPENAI_API_KEY", ".config/aci/.env"} {
			if !strings.Contains(c.help, want) {
				t.Errorf("%s --help lacks %q", c.name, want)
			}
		}
		if strings.Contains(c.help, "docs/") || strings.Contains(c.help, ".env.example") {
			t.Errorf("%s --help points into the repository", c.name)
		}
		for i, l := range strings.Split(c.help, "\n") {
			if n := len([]rune(l)); n > 100 {
				t.Errorf("%s --help line %d is %d characters", c.name, i+1, n)
			}
		}
	}
	for _, want := range []string{"aci serve", "aci acp", "--serve [HOST:PORT]"} {
		if !strings.Contains(mainHelp, want) {
			t.Errorf("aci --help lacks %q", want)
		}
	}
	for _, want := range []string{"ACI_SERVE_TOKEN", "ACI_SERVE_APPROVAL_TIMEOUT", "--addr HOST:PORT"} {
		if !strings.Contains(serveHelp, want) {
			t.Errorf("aci serve --help lacks %q", want)
		}
	}
}

// Copying .env.example as it is leaves local-server discovery on: it sets
// no base URL, and names no variable aci does not read.
func TestEnvExample(t *testing.T) {
	vars, err := godotenv.Read(".env.example")
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := vars["OPENAI_BASE_URL"]; ok {
		t.Error(".env.example sets OPENAI_BASE_URL: copied, it turns discovery off")
	}
	for k := range vars {
		if !ownVar(k) || safetySwitches[k] {
			t.Errorf(".env.example sets %s, which aci does not read from a file", k)
		}
	}
	data, _ := os.ReadFile(".env.example")
	if !strings.Contains(string(data), "# OPENAI_BASE_URL=") {
		t.Error(".env.example does not show OPENAI_BASE_URL, commented out")
	}
}
