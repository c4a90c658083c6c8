package netproxy

import (
	"github.com/aci-dev/aci/tools/settings"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func mustRules(t *testing.T, list ...string) []Rule {
	t.Helper()
	rules, errs := ParseRules(list)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	return rules
}

func TestDecide(t *testing.T) {
	p := Policy{
		Allow: append(Builtin(), mustRules(t, "*.corp.example", "api.example.com:8443", "10.1.2.3",
			"192.168.0.0/16:*", "[2001:db8::1]:443", "fd00::/8", "files.example.org:*")...),
		Deny: mustRules(t, "gitlab.com", "evil.corp.example", "192.168.66.0/24:*"),
	}
	for _, tc := range []struct {
		host string
		port int
		want Verdict
	}{
		// The built-in list: registries and forges, on the web's ports.
		{"registry.npmjs.org", 443, Allow},
		{"files.pythonhosted.org", 443, Allow},
		{"proxy.golang.org", 443, Allow},
		{"github.com", 80, Allow},
		{"GitHub.COM.", 443, Allow}, // case and the root dot do not matter
		{"github.com", 22, Ask},     // ssh is not the web
		{"github.com", 8443, Ask},
		{"api.openai.com", 443, Ask}, // the model's endpoint is not built in
		{"github.com.evil.example", 443, Ask},
		{"evilgithub.com", 443, Ask},
		{"us.archive.ubuntu.com", 80, Allow}, // a wildcard of the built-in list
		{"archive.ubuntu.com.attacker.example", 80, Ask},
		// The person's rules: wildcards cover subdomains, not the domain.
		{"git.corp.example", 443, Allow},
		{"a.b.corp.example", 443, Allow},
		{"corp.example", 443, Ask},
		{"xcorp.example", 443, Ask},
		{"api.example.com", 8443, Allow},
		{"api.example.com", 443, Ask}, // a rule with a port covers that port only
		{"files.example.org", 9000, Allow},
		// Deny wins over allow, built-in or wildcard.
		{"gitlab.com", 443, Deny},
		{"evil.corp.example", 443, Deny},
		// IP literals: only address rules cover them.
		{"10.1.2.3", 443, Allow},
		{"10.1.2.4", 443, Ask},
		{"192.168.5.5", 5432, Allow},
		{"192.168.66.1", 443, Deny},
		{"140.82.112.3", 443, Ask}, // github.com's address is not github.com
		{"::ffff:10.1.2.3", 443, Allow},
		{"[2001:db8::1]", 443, Allow},
		{"2001:db8::1", 443, Allow},
		{"2001:db8::2", 443, Ask},
		{"fd00::5", 80, Allow},
		{"::1", 443, Ask},
		{"127.0.0.1", 80, Ask},
		{"localhost", 80, Ask},
		// Nonsense is refused outright.
		{"", 443, Deny},
		{"github.com", 0, Deny},
		{"github.com", 70000, Deny},
		{"bad host", 443, Deny},
		{"ex ample.com", 443, Deny},
		{"exämple.com", 443, Deny},
	} {
		if got, why := p.Decide(tc.host, tc.port); got != tc.want {
			t.Errorf("Decide(%q, %d) = %v (%s), want %v", tc.host, tc.port, got, why, tc.want)
		}
	}
}

func TestParseRuleErrors(t *testing.T) {
	for _, bad := range []string{"", "exa mple.com", "example.com:", "example.com:0", "example.com:x",
		"[::1", "[::1]x", "*.", "..com", "ex/ample.com"} {
		if _, err := ParseRule(bad); err == nil {
			t.Errorf("ParseRule(%q) accepted", bad)
		}
	}
}

func TestBuiltinParses(t *testing.T) {
	if len(Builtin()) != len(BuiltinHosts()) {
		t.Fatal("a built-in host does not parse")
	}
}

// A person's file adds and narrows; a workspace file only narrows.
func TestLoadSettings(t *testing.T) {
	cfg, ws := t.TempDir(), t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", cfg)
	write := func(path, body string) {
		t.Helper()
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(cfg, "aci", "settings.json"), `{"network": {"allow": ["internal.example", "bad host"], "deny": ["pypi.org"]}}`)
	write(filepath.Join(ws, ".aci", "settings.json"), `{"network": {"allow": ["evil.example"], "deny": ["github.com"]}}`)
	p, problems := FromSettings(settings.ReadPerson(), settings.ReadProject(ws))
	for host, want := range map[string]Verdict{
		"internal.example": Allow, "pypi.org": Deny, "github.com": Deny, "evil.example": Ask, "crates.io": Allow,
	} {
		if got, _ := p.Decide(host, 443); got != want {
			t.Errorf("%s: %v, want %v", host, got, want)
		}
	}
	var text []string
	for _, e := range problems {
		text = append(text, e.Error())
	}
	all := strings.Join(text, "\n")
	if !strings.Contains(all, "bad host") || !strings.Contains(all, "can only narrow") {
		t.Errorf("problems not said: %q", all)
	}

	write(filepath.Join(cfg, "aci", "settings.json"), `{"network": `)
	if person := settings.ReadPerson(); person.Err == nil || !strings.Contains(person.Err.Error(), "settings.json") {
		t.Errorf("a broken settings file was not said: %v", person.Err)
	}
}
