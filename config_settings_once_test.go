package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aci-dev/aci/tools/settings"
)

// A malformed settings file is one message naming it, and stops aci; a
// good one is read once for the whole start (the session factory is
// handed the values, see session.TestSettingsReadOnce).
func TestConfigSettingsReadOnce(t *testing.T) {
	for _, c := range []struct{ person, project, want string }{
		{`{"limits": `, "", "aci/settings.json"},
		{`{"limits": {"max_steps": "many"}}`, "", "limits.max_steps"},
		{"", `{"prices": [`, ".aci/settings.json"},
		{`{"lsp": {}, "prices": {"m": {"input": 1, "output": 2}}}`, `{"permissions": {"deny": ["command:curl"]}}`, ""},
	} {
		moneyEnv(t)
		wd, _ := os.Getwd()
		person := settings.UserPath()
		project := settings.WorkspacePath(wd)
		for path, body := range map[string]string{person: c.person, project: c.project} {
			if body != "" {
				os.MkdirAll(filepath.Dir(path), 0o755)
				if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
					t.Fatal(err)
				}
			}
		}
		var stderr bytes.Buffer
		cfg, err := loadConfig(nil, &stderr)
		if c.want != "" {
			if err == nil || !strings.Contains(err.Error(), c.want) || strings.Count(err.Error(), "settings.json") != 1 || stderr.Len() > 0 {
				t.Errorf("%s %s: error %v, stderr %q: want one message naming %s", c.person, c.project, err, stderr.String(), c.want)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", c.person, err)
		}
		if settings.Reads(person) != 1 || settings.Reads(project) != 1 {
			t.Errorf("read %d and %d times, want once each", settings.Reads(person), settings.Reads(project))
		}
		if cfg.Prices["m"].Output != 2 || len(cfg.Project.Permissions.Deny) != 1 {
			t.Errorf("the values were not kept: %+v %+v", cfg.Prices, cfg.Project)
		}
	}
}
