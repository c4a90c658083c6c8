package main

import (
	"io"
	"os"
	"path/filepath"
	"testing"
)

// ACI_NOTIFY may name a program aci runs outside containment: a .env in
// the workspace cannot set it.
func TestDotEnvCannotSetANotifyProgram(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, ".env"), []byte("ACI_NOTIFY=touch pwned\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	t.Setenv("ACI_NOTIFY", "")
	os.Unsetenv("ACI_NOTIFY")
	t.Setenv("OPENAI_BASE_URL", "http://127.0.0.1:1")
	if _, err := loadConfig(nil, io.Discard); err != nil {
		t.Fatal(err)
	}
	if v, ok := os.LookupEnv("ACI_NOTIFY"); ok {
		t.Errorf("ACI_NOTIFY=%q came from the workspace's .env", v)
	}
}
