package main

import (
	"errors"
	"flag"
	"io"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/aci-dev/aci/session"
	"github.com/aci-dev/aci/tools/sandbox"
	"github.com/aci-dev/aci/tools/settings"
)

// setting is one row of aci's settings: the variable and the flag it is
// read from, its default, whether it is a safety switch (read from the
// environment and flags only, never from .env: a file in the workspace,
// which the model can write, must not turn approvals or containment off,
// choose the server's token or name a program to run outside containment)
// and how its value is parsed into the config. Rows are read in order, the
// flag winning over the variable; a row with no parse is read elsewhere
// (its variable is listed for the safety rule).
type setting struct {
	name   string // what it sets, for the reader
	env    string // its variable ("": none)
	flag   string // its flag ("": none)
	def    string // its default, as text ("": none or computed)
	safety bool
	parse  func(l *loading, in settingInput) error
}

// settingInput is what a row is given: its variable's raw value, and its
// flag's value and whether the flag was given.
type settingInput struct {
	env     string
	flag    string
	flagSet bool
	def     string
}

// loading is the state of one loadConfig: the config being filled and what
// the rows may need besides their own input.
type loading struct {
	c       *config
	stderr  io.Writer
	set     map[string]bool // the flags given
	sources []envSource     // the files variables were read from
	flag    func(name string) string
	budgets settings.Budgets // the person's limits (config_budgets.go)
}

// settingRows are aci's settings, in the order they are read.
var settingRows = []setting{
	{name: "serve address, token, approval timeout", env: "ACI_SERVE_TOKEN", flag: "addr", safety: true,
		parse: func(l *loading, _ settingInput) error { return l.c.checkServe(l.set) }},
	{name: "the REPL's --serve", flag: "serve",
		parse: func(l *loading, _ settingInput) error { return l.c.checkServeREPL() }},
	{name: "API key", env: "OPENAI_API_KEY",
		parse: func(l *loading, in settingInput) error { l.c.APIKey = in.env; return nil }},
	{name: "base URL", env: "OPENAI_BASE_URL", def: defaultBaseURL,
		parse: func(l *loading, in settingInput) error { l.c.BaseURL = trimmedOr(in.env, in.def); return nil }},
	{name: "model", env: "OPENAI_MODEL", flag: "model", def: defaultModel, parse: parseModel},
	{name: "reasoning effort", env: "ACI_REASONING_EFFORT", flag: "effort",
		parse: func(l *loading, in settingInput) error { return l.c.loadEffort(in.flag, in.flagSet) }},
	{name: "providers and prices (settings.json)",
		parse: func(l *loading, _ settingInput) error { return l.c.loadModels(l.stderr) }},
	{name: "budgets (settings.json limits)", parse: loadBudgets},
	{name: "max steps", env: "ACI_MAX_STEPS", flag: "max-steps", def: "50", parse: parseMaxSteps},
	{name: "max turns", flag: "max-turns", parse: parseMaxTurns},
	{name: "max budget", flag: "max-budget-usd", parse: parseMaxBudget},
	{name: "output schema", flag: "output-schema", parse: parseOutputSchema},
	{name: "compress tokens", env: "ACI_COMPRESS_TOKENS", def: "100000",
		parse: func(l *loading, in settingInput) error {
			n, err := wholeNumber("ACI_COMPRESS_TOKENS", in)
			l.c.CompressTokens = int64(n)
			return err
		}},
	{name: "output limit", env: "ACI_OUTPUT_LIMIT", def: "30000", parse: parseOutputLimit},
	{name: "first byte timeout", env: "ACI_FIRST_BYTE_TIMEOUT", def: "0",
		parse: func(l *loading, in settingInput) error {
			n, err := wholeNumber("ACI_FIRST_BYTE_TIMEOUT", in)
			l.c.FirstByteTimeout = time.Duration(n) * time.Second
			return err
		}},
	{name: "cache TTL", env: "ACI_CACHE_TTL", def: strconv.Itoa(int(session.DefaultCacheTTL / time.Second)), parse: parseCacheTTL},
	{name: "local server discovery", flag: "model", parse: parseDiscovery},
	{name: "streaming", env: "ACI_STREAM", def: "1", parse: parseStream},
	{name: "approve everything", env: "ACI_YES", flag: "yes", safety: true,
		parse: func(l *loading, in settingInput) error {
			if in.env == "1" || strings.EqualFold(in.env, "true") {
				l.c.Yes = true
			}
			return nil
		}},
	{name: "permission mode", flag: "permission-mode",
		parse: func(l *loading, in settingInput) error { return l.c.setPermissionMode(in.flag) }},
	{name: "sandbox", env: "ACI_SANDBOX", flag: "sandbox", safety: true, parse: parseSandbox},
	{name: "base URL check", env: "OPENAI_BASE_URL", parse: checkBaseURL},
	{name: "a workspace's endpoint gets no key of the person's", parse: checkEndpointKey},
	{name: "notification command (read by ui)", env: "ACI_NOTIFY", safety: true},
}

// safetySwitches are the variables of the safety rows: never taken from
// .env.
var safetySwitches = func() map[string]bool {
	m := map[string]bool{}
	for _, s := range settingRows {
		if s.safety && s.env != "" {
			m[s.env] = true
		}
	}
	return m
}()

// readSettings runs every row in order; the first error stops.
func (l *loading) readSettings() error {
	for _, s := range settingRows {
		if s.parse == nil {
			continue
		}
		in := settingInput{def: s.def}
		if s.env != "" {
			in.env = os.Getenv(s.env)
		}
		if s.flag != "" {
			in.flag, in.flagSet = l.flag(s.flag), l.set[s.flag]
		}
		if err := s.parse(l, in); err != nil {
			return err
		}
	}
	return nil
}

// flagValue reads a flag's value as text from fs.
func flagValue(fs *flag.FlagSet) func(string) string {
	return func(name string) string {
		if f := fs.Lookup(name); f != nil {
			return f.Value.String()
		}
		return ""
	}
}

func trimmedOr(v, def string) string {
	if v = strings.TrimSpace(v); v != "" {
		return v
	}
	return def
}

// wholeNumber is in's variable as a whole number, its default when unset.
func wholeNumber(name string, in settingInput) (int, error) {
	v := strings.TrimSpace(in.env)
	if v == "" {
		return strconv.Atoi(in.def)
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		return 0, usageErr("%s must be a whole number, got %q", name, v)
	}
	return n, nil
}

func parseModel(l *loading, in settingInput) error {
	l.c.Model = trimmedOr(in.env, in.def)
	if !in.flagSet {
		return nil
	}
	if strings.TrimSpace(in.flag) == "" {
		return usageErr("--model needs a model name, got an empty one")
	}
	l.c.Model = strings.TrimSpace(in.flag)
	return nil
}

func parseMaxSteps(l *loading, in settingInput) error {
	if strings.TrimSpace(in.env) == "" && l.budgets.MaxSteps > 0 {
		in.def = strconv.Itoa(l.budgets.MaxSteps)
	}
	n, err := wholeNumber("ACI_MAX_STEPS", in)
	if err != nil {
		return err
	}
	if in.flagSet {
		if n, err = strconv.Atoi(strings.TrimSpace(in.flag)); err != nil {
			return usageErr("--max-steps must be a whole number, got %q", in.flag)
		}
	}
	l.c.MaxSteps = n
	if n < 1 {
		return usageErr("--max-steps must be at least 1, got %d", n)
	}
	return nil
}

func parseOutputLimit(l *loading, in settingInput) error {
	n, err := wholeNumber("ACI_OUTPUT_LIMIT", in)
	if err != nil {
		return err
	}
	l.c.OutputLimit = n
	if n < 1000 {
		return usageErr("ACI_OUTPUT_LIMIT must be at least 1000, got %d", n)
	}
	return nil
}

func parseCacheTTL(l *loading, in settingInput) error {
	ttl, err := wholeNumber("ACI_CACHE_TTL", in)
	if err != nil {
		return err
	}
	l.c.CacheTTL = time.Duration(ttl) * time.Second
	if ttl == 0 {
		l.c.CacheTTL = -1 // a local server keeps its cache until it needs the room
	}
	return nil
}

// parseDiscovery points aci at a local server when nothing names one and
// there is no key to reach the default.
func parseDiscovery(l *loading, in settingInput) error {
	if os.Getenv("OPENAI_BASE_URL") != "" || l.c.APIKey != "" || l.c.OnProvider {
		return nil
	}
	err := l.c.discoverLocal(in.flag)
	var none *session.NoServerError
	if errors.As(err, &none) {
		return &noKeyError{host: hostOf(defaultBaseURL), sources: l.sources, user: userEnvPath(), tried: none.Tried}
	}
	return err
}

func parseStream(l *loading, in settingInput) error {
	switch v := strings.ToLower(strings.TrimSpace(in.env)); v {
	case "", "1", "true", "on", "yes":
		l.c.Stream = true
	case "0", "false", "off", "no":
		l.c.Stream = false
	default:
		return usageErr("ACI_STREAM must be 0 or 1, got %q", v)
	}
	return nil
}

func parseSandbox(l *loading, in settingInput) error {
	v := in.env
	if in.flag != "" {
		v = in.flag
	}
	mode, err := sandbox.ParseMode(v)
	if err != nil {
		return usageErr("%v", err)
	}
	l.c.Sandbox = mode
	return nil
}

// checkBaseURL refuses a base URL that is not http(s), and a remote one
// with no key.
func checkBaseURL(l *loading, _ settingInput) error {
	c := l.c
	u, err := url.Parse(c.BaseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return usageErr("OPENAI_BASE_URL %q is not an http(s) URL", c.BaseURL)
	}
	c.BaseURL = strings.TrimRight(c.BaseURL, "/")
	if c.APIKey == "" && !isLoopback(u.Hostname()) && !c.OnProvider {
		return &noKeyError{host: u.Host, sources: l.sources, user: userEnvPath()}
	}
	return nil
}
