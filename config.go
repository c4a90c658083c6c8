package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/aci-dev/aci/internal/otlp"

	"github.com/aci-dev/aci/session"
	"github.com/aci-dev/aci/tools/dotenv"
	"github.com/aci-dev/aci/tools/outschema"
	"github.com/aci-dev/aci/tools/sandbox"
	"github.com/aci-dev/aci/tools/secrets"
	"github.com/aci-dev/aci/tools/settings"
	"github.com/aci-dev/aci/ui"
	"github.com/aci-dev/aci/windows"
)

const (
	defaultBaseURL = "https://api.openai.com/v1"
	defaultModel   = "gpt-5-mini"
)

// config is everything aci is told: flags, the environment, .env, then
// the person's own file (userEnvPath).
type config struct {
	Telemetry      *otlp.Exporter // OTEL_* of the environment (telemetry.go); nil: none
	APIKey         string
	BaseURL        string
	Model          string
	Effort         string                   // --effort, ACI_REASONING_EFFORT: "" for the model's default
	Person         *settings.Person         // the person's settings file, read once (config_money.go)
	Project        *settings.Project        // the workspace's settings files, read once
	Providers      []session.Provider       // settings' providers (config_money.go)
	Prices         map[string]session.Price // settings' prices
	OnProvider     bool                     // the model at start is a provider's: the default endpoint needs no key
	MaxSteps       int
	MaxTurns       int               // --max-turns, settings' limits.max_turns; 0: none
	MaxBudgetUSD   float64           // --max-budget-usd, settings' limits.max_budget_usd; 0: none
	OutputSchema   *outschema.Schema // --output-schema: the answer is checked against it
	CompressTokens int64
	OutputLimit    int
	Stream         bool
	Yes            bool
	PermissionMode windows.PermMode // --permission-mode, or yes for --yes (config_mode.go)
	Trust          bool             // --trust: the project's hooks and MCP servers run (docs/protocol.md §10)
	// Endpoint is set when a workspace .env names the endpoint the
	// person's key would go to: sessions refuse it unless the folder is
	// trusted with it (config_endpoint.go).
	Endpoint  session.EndpointHold
	Sandbox   string            // ACI_SANDBOX or --sandbox: workspace, container or off
	DotEnv    map[string]string // entries .env set (safety switches excluded), for the secret checks
	Resume    bool
	ResumeID  string // --resume ID; empty: the latest
	Sessions  bool   // --sessions: list them and exit
	Prompt    string
	PromptSet bool
	// Bg is --bg's task: it runs in the workspace's background server
	// (bg.go). Worktree is --worktree's name ("" picks one); WorktreeSet
	// says it was given (worktree.go).
	Bg           string
	Worktree     string
	WorktreeSet  bool
	Images       []string // -i, --image: pictures for the -p question
	Version      bool
	Help         bool
	cmd          command         // aci, aci serve or aci acp: whose help to show
	OutputFormat ui.OutputFormat // text, json or stream-json (pipe mode)

	// Serve is `aci serve`: Addr is where it listens, ServeToken the token
	// (ACI_SERVE_TOKEN, environment only; empty: a random one) and
	// ApprovalTimeout how long a question waits for a client's decision.
	Serve bool
	Addr  string
	// ServeREPL is --serve: the REPL serves its session at ServeREPLAddr.
	ServeREPL       bool
	ServeREPLAddr   string
	ServeToken      string
	ApprovalTimeout time.Duration

	// FirstByteTimeout is ACI_FIRST_BYTE_TIMEOUT; 0 lets the client choose.
	FirstByteTimeout time.Duration
	// CacheTTL is ACI_CACHE_TTL: how long the provider keeps a prompt
	// cached; negative when it never expires.
	CacheTTL time.Duration
	// Found says which local server discovery chose, for the banner; ""
	// when the base URL was configured. FoundServer is the same in short
	// ("Ollama 127.0.0.1:11434"), for the REPL's first line.
	Found       string
	FoundServer string

	// Secrets is the set of secrets kept out of output, fetched pages,
	// commands' environments and commits: made here, filled with the
	// providers' keys (loadModels) and the API key and credentials
	// (applySafety), and handed to every session through the factory.
	Secrets *secrets.Redactor
	// URLSecrets are more values that must not leave in a URL without
	// asking: every value .env set (applySafety).
	URLSecrets *secrets.Redactor
}

// errUsage marks a configuration or usage error (exit 2).
type errUsage struct{ msg string }

func (e errUsage) Error() string { return e.msg }

func usageErr(format string, args ...any) error { return errUsage{fmt.Sprintf(format, args...)} }

// loadConfig reads the environment, then .env in the working directory,
// then the person's own file (userEnvPath): the first that sets a
// variable wins; then the flags, which win over all. args start with the
// command's name for aci serve and aci acp.
func loadConfig(args []string, stderr io.Writer) (config, error) {
	c, fs, set, err := parseFlags(args)
	if err != nil || c.Help || c.Version || c.Sessions {
		return c, err
	}
	l := &loading{c: &c, stderr: stderr, set: set, flag: flagValue(fs)}
	if c.DotEnv, l.sources, err = loadEnvFiles(stderr, absPath(".env"), userEnvPath()); err != nil {
		return c, err
	}
	return c, l.readSettings()
}

// parseFlags reads the command line into a config: the command, the flags
// that set a config field directly, and which flags were given; the
// settings' rows read the rest (config_settings.go).
func parseFlags(args []string) (config, *flag.FlagSet, map[string]bool, error) {
	cmd, args := commandFor(args)
	fs := flag.NewFlagSet(cmd.name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	c := config{Secrets: secrets.NewRedactor(), URLSecrets: secrets.NewRedactor()}
	c.Serve = cmd.name == serveCmd.name
	c.cmd = cmd
	fs.StringVar(&c.Addr, "addr", "", "")
	fs.StringVar(&c.Prompt, "p", "", "")
	fs.BoolVar(&c.Yes, "yes", false, "")
	fs.String("model", "", "")
	fs.String("effort", "", "")
	fs.String("max-steps", "", "")
	fs.String("max-turns", "", "")
	fs.String("max-budget-usd", "", "")
	fs.String("output-schema", "", "")
	resume := resumeFlag(&c)
	fs.Var(resume, "resume", "")
	fs.BoolVar(&c.Sessions, "sessions", false, "")
	fs.StringVar(&c.Bg, "bg", "", "")
	wt := worktreeFlag(&c)
	fs.Var(wt, "worktree", "")
	serveAt := serveFlag(&c)
	fs.Var(serveAt, "serve", "")
	fs.String("sandbox", "", "")
	fs.String("permission-mode", "", "")
	fs.BoolVar(&c.Trust, "trust", false, "")
	fs.BoolVar(&c.Version, "version", false, "")
	fs.BoolVar(&c.Help, "help", false, "")
	fs.BoolVar(&c.Help, "h", false, "")
	format := fs.String("output-format", string(ui.FormatText), "")
	fs.Var((*imageFlag)(&c.Images), "i", "")
	fs.Var((*imageFlag)(&c.Images), "image", "")
	args, err := cmd.bareP(args, fs)
	if err != nil {
		return c, fs, nil, err
	}
	set, err := parseArgs(cmd, fs, args, resume, serveAt, wt)
	if err != nil {
		return c, fs, set, err
	}
	if err := cmd.checkAllowed(set); err != nil {
		return c, fs, set, err
	}
	if c.OutputFormat, err = ui.ParseOutputFormat(*format); err != nil {
		return c, fs, set, usageErr("%v", err)
	}
	if fs.NArg() > 0 {
		if cmd.name != mainCmd.name {
			return c, fs, set, usageErr("%s takes no argument, got %q (see %s --help)", cmd.name, fs.Arg(0), cmd.name)
		}
		return c, fs, set, usageErr("unexpected argument %q: pass a question with -p or on stdin (see aci --help)", fs.Arg(0))
	}
	c.PromptSet = set["p"]
	return c, fs, set, nil
}

// parseArgs parses args with fs, taking the word after a bare --resume,
// --serve or --worktree as its value, and returns the flags given.
func parseArgs(cmd command, fs *flag.FlagSet, args []string, flags ...*valueFlag) (map[string]bool, error) {
	set := map[string]bool{}
	for {
		if err := fs.Parse(args); err != nil {
			if u := cmd.unknownFlag(err); u != nil {
				return set, u
			}
			if name, ok := strings.CutPrefix(err.Error(), "flag needs an argument: "); ok {
				return set, usageErr("%s needs a value (see %s --help)", dashed(strings.TrimLeft(name, "-")), cmd.name)
			}
			return set, usageErr("%v (see %s --help)", err, cmd.name)
		}
		fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
		// "--resume ID": a bool flag cannot take the next word, so the
		// word after a bare --resume is its session id.
		if !slices.ContainsFunc(flags, func(f *valueFlag) bool { return f.takesNext(fs) }) {
			return set, nil
		}
		args = fs.Args()[1:]
	}
}

// checkServe reads what `aci serve` needs: its address, token and
// approval timeout; --addr without serve is refused.
func (c *config) checkServe(set map[string]bool) error {
	if !c.Serve {
		if set["addr"] {
			return usageErr("--addr is for aci serve")
		}
		return nil
	}
	if c.Addr == "" {
		c.Addr = "127.0.0.1:7433"
	}
	host, port, err := net.SplitHostPort(c.Addr)
	if err != nil {
		return usageErr("--addr must be HOST:PORT, got %q", c.Addr)
	}
	if p, err := strconv.Atoi(port); err != nil || p < 0 || p > 65535 {
		return usageErr("--addr: the port must be 0 to 65535, got %q", port)
	}
	if host == "" {
		return usageErr("--addr needs a host: 127.0.0.1 for this machine only, 0.0.0.0 for every interface")
	}
	c.ServeToken = strings.TrimSpace(os.Getenv("ACI_SERVE_TOKEN"))
	if c.ServeToken != "" && len(c.ServeToken) < 16 {
		return usageErr("ACI_SERVE_TOKEN must be at least 16 characters: anyone who guesses it drives the agent")
	}
	timeout, err := envInt("ACI_SERVE_APPROVAL_TIMEOUT", 600)
	if err != nil {
		return err
	}
	if timeout < 1 {
		return usageErr("ACI_SERVE_APPROVAL_TIMEOUT must be at least 1 second, got %d", timeout)
	}
	c.ApprovalTimeout = time.Duration(timeout) * time.Second
	return nil
}

// localServers are the servers discovery tries; tests replace them.
var localServers = session.LocalServers

// discoverLocal points aci at the first local server that answers, with
// its first model unless one was named (docs/protocol.md §2).
func (c *config) discoverLocal(flagModel string) error {
	d, err := session.Discover(context.Background(), "", localServers, 0)
	if err != nil {
		return err
	}
	want := flagModel
	if want == "" {
		want = strings.TrimSpace(os.Getenv("OPENAI_MODEL"))
	}
	if c.Model, err = d.PickModel(want); err != nil {
		return usageErr("%v", err)
	}
	c.BaseURL = d.BaseURL
	c.Found = fmt.Sprintf("using %s at %s, model %s (no OPENAI_API_KEY or OPENAI_BASE_URL set; /model lists its models)", d.Server.Name, d.BaseURL, c.Model)
	c.FoundServer = fmt.Sprintf("%s %s", d.Server.Name, hostOf(d.BaseURL))
	return nil
}

// valueFlag is a flag that stands bare or with a value: --name,
// --name=VALUE, or --name VALUE when the next word is one (parseArgs takes
// it: a bool flag cannot). --resume, --serve and --worktree are such.
type valueFlag struct {
	on    *bool
	value *string
	check func(string) error // what a value given with = must pass
	next  func(string) bool  // whether the word after a bare flag is its value
	bare  bool               // given without a value
}

func (f *valueFlag) String() string   { return "" }
func (f *valueFlag) IsBoolFlag() bool { return true }

func (f *valueFlag) Set(v string) error {
	switch v {
	case "true":
		*f.on, f.bare = true, true
	case "false":
		*f.on = false
	default:
		if err := f.check(v); err != nil {
			return err
		}
		*f.on, *f.value = true, v
	}
	return nil
}

// takesNext takes the word after the bare flag when it is its value.
func (f *valueFlag) takesNext(fs *flag.FlagSet) bool {
	if !f.bare || !*f.on || fs.NArg() == 0 || !f.next(fs.Arg(0)) {
		return false
	}
	*f.value, f.bare = fs.Arg(0), false
	return true
}

// resumeFlag is --resume, --resume=ID, or --resume ID.
func resumeFlag(c *config) *valueFlag {
	return &valueFlag{on: &c.Resume, value: &c.ResumeID,
		check: func(v string) error {
			if strings.TrimSpace(v) == "" {
				return errors.New("--resume= needs a session id")
			}
			return nil
		},
		next: func(string) bool { return true },
	}
}

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func envInt(name string, def int) (int, error) {
	v := strings.TrimSpace(os.Getenv(name))
	if v == "" {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		return 0, usageErr("%s must be a whole number, got %q", name, v)
	}
	return n, nil
}

// ownVar reports the variables aci reads from .env: its own settings
// (OPENAI_*, ACI_*). The rest of a .env belongs to the project: aci does
// not set it in its environment, so commands never inherit it.
func ownVar(name string) bool {
	n := strings.ToUpper(name)
	return strings.HasPrefix(n, "OPENAI_") || strings.HasPrefix(n, "ACI_")
}

// applySafety sets up what keeps secrets in and commands contained, once
// the configuration is known: containment for the process (saying once on
// stderr, when the first command runs, if the machine cannot contain
// commands), and the values that
// output and fetched URLs are checked for: the API key, the values of
// credential variables, and what .env set.
func applySafety(c config, stderr io.Writer) {
	if err := sandbox.Configure(c.Sandbox, func(notice string) { fmt.Fprintln(stderr, "aci:", notice) }); err != nil {
		fmt.Fprintln(stderr, "aci:", err)
	}
	addSecrets(c)
}

// addSecrets fills c's secret sets: the key, the machine's credential
// variables, the .env files' values. applySafety and aci export use it.
func addSecrets(c config) {
	c.Secrets.Add(c.APIKey)
	for _, kv := range os.Environ() {
		if k, v, ok := strings.Cut(kv, "="); ok && sandbox.IsCredentialVar(k) {
			c.Secrets.Add(v)
		}
	}
	for k, v := range c.DotEnv {
		switch {
		case sandbox.IsCredentialVar(k):
			c.Secrets.Add(v)
		case strings.HasPrefix(k, "ACI_") || k == "OPENAI_BASE_URL" || k == "OPENAI_MODEL" || k == "OPENAI_FALLBACK_MODELS":
			continue // aci's own settings: a model name in a URL is no leak
		}
		c.URLSecrets.Add(v)
	}
	// What the workspace's .env files hold that looks secret: kept out of
	// output, of fetched URLs, of commands' environments and of commits.
	if cwd, err := os.Getwd(); err == nil {
		for _, v := range dotenv.Values(cwd) {
			c.Secrets.Add(v)
			c.URLSecrets.Add(v)
		}
	}
}

// absPath is path made absolute against the working directory, to name it
// exactly in messages; path itself when that fails.
func absPath(path string) string {
	if abs, err := filepath.Abs(path); err == nil {
		return abs
	}
	return path
}

// hostOf is the host of a URL, for messages.
func hostOf(raw string) string {
	if u, err := url.Parse(raw); err == nil && u.Host != "" {
		return u.Host
	}
	return raw
}
