package windows

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/aci-dev/aci/protocol"
	"github.com/aci-dev/aci/tools/mcp"
	"github.com/aci-dev/aci/tools/output"
)

const (
	// mcpPreviewChars is how much of a tool's result the window repeats:
	// the whole text is in the call's result already.
	mcpPreviewChars    = 500
	mcpMaxResources    = 20
	mcpMaxInstructions = 2000
)

// MCPAppWith opens mcp windows onto the Model Context Protocol servers of
// a pool: they run once per aci session, shared by its windows. main builds
// the pool from the workspace's configuration; tests give their own
// (timeouts, in-process servers).
func MCPAppWith(pool *mcp.Pool) func(*Env) App {
	return func(env *Env) App { return mcpApp(env, pool) }
}

func mcpApp(env *Env, pool *mcp.Pool) App {
	// Tokens handed to servers must not come back to the model in a result.
	env.Secrets.Add(pool.Config().Secrets()...)
	target := "server: " + strings.Join(pool.Config().Names(), ", ")
	if len(pool.Config().Servers) == 0 {
		target = "server name (none configured: .mcp.json)"
	}
	return App{
		Name:   "mcp",
		Desc:   "use an MCP server's tools and resources",
		Target: target,
		Open: func(ctx context.Context, id, target string) (Window, string, error) {
			return openMCP(ctx, env, pool, id, strings.TrimSpace(target))
		},
	}
}

func openMCP(ctx context.Context, env *Env, pool *mcp.Pool, id, name string) (Window, string, error) {
	if name == "" {
		names := pool.Config().Names()
		if len(names) == 0 {
			return nil, "", fmt.Errorf("open mcp needs a target: a server's name, and none is configured (add one to .mcp.json in the workspace or to %s)", mcp.UserConfigPath())
		}
		return nil, "", fmt.Errorf("open mcp needs a target: the server's name (configured: %s)", strings.Join(names, ", "))
	}
	sc, err := pool.Lookup(name)
	if err != nil {
		if problems := pool.Config().Problems; len(problems) > 0 {
			err = fmt.Errorf("%w; configuration problems: %s", err, strings.Join(problems, "; "))
		}
		return nil, "", err
	}
	if sc.FromWorkspace && sc.Type == mcp.Stdio {
		// The workspace's .mcp.json comes with the repository: running its
		// command is running the repository's code.
		reason := "runs a command declared by " + sc.Source
		if sc.Trust {
			reason += `; it says "trust": true, so its tools will run without asking`
		}
		req := ApprovalRequest{Kind: protocol.AskTool, WindowID: id, Subject: "start MCP server " + name + ": " + sc.Describe(), Reason: reason}
		if r := env.ask(ctx, req); r != nil {
			return nil, "", deniedError{*r}
		}
	}
	srv, err := pool.Acquire(ctx, name)
	if err != nil {
		return nil, "", err
	}
	w := &mcpWindow{env: env, id: id, name: name, pool: pool, srv: srv}
	nt, nr := len(srv.Tools()), len(srv.Resources())
	return w, fmt.Sprintf("MCP server %s: %d %s, %d %s", name, nt, plural(nt, "tool"), nr, plural(nr, "resource")), nil
}

type mcpWindow struct {
	env  *Env
	id   string
	name string
	pool *mcp.Pool
	srv  *mcp.Server
	once sync.Once

	mu   sync.Mutex
	seq  int
	last *mcpLast
	// listing caches the rendering of the server's lists, for listingFor.
	listing    string
	listingFor int
}

// mcpLast is the last call's outcome, as the window shows it.
type mcpLast struct {
	seq    int
	label  string // "echo" or "read URI"
	status string
	text   string
}

// mcpState tells two views apart: the listing of tools and resources, and
// which call the last result came from.
type mcpState struct {
	listing string
	seq     int
}

func (w *mcpWindow) ID() string    { return w.id }
func (w *mcpWindow) App() string   { return "mcp" }
func (w *mcpWindow) Title() string { return w.name }

// Close gives the server back to the pool: the last window stops it.
func (w *mcpWindow) Close() { w.once.Do(func() { w.pool.Release(w.srv) }) }

func (w *mcpWindow) Actions() []Action {
	var actions []Action
	hasRead := false
	for _, t := range w.srv.Tools() {
		if t.Name == "close" || !mcp.Usable(t) {
			continue // the listing says why
		}
		hasRead = hasRead || t.Name == "read"
		desc := "asks before running"
		switch {
		case mcp.ReadOnly(t):
			desc = "read-only"
		case w.srv.Config().Trust:
			desc = "trusted"
		}
		name := t.Name
		actions = append(actions, Action{ID: name, Desc: desc, Mode: Sync, Params: mcpParams(mcp.ToolParams(t)), Run: func(ctx context.Context, args Args) Result {
			return w.call(ctx, name, args)
		}})
	}
	if !hasRead {
		actions = append(actions, Action{ID: "read", Desc: "read a resource into this window", Mode: Sync, Run: w.read, Params: []Param{
			{Name: "uri", Type: String, Required: true},
		}})
	}
	return append(actions, closeAction("stops the server if no other window uses it"))
}

// mcpParams turns a tool's input schema into action parameters, so the
// manager checks them before the call.
func mcpParams(ps []mcp.Param) []Param {
	var out []Param
	for _, p := range ps {
		typ := Any
		switch p.Type {
		case "string":
			typ = String
		case "integer":
			typ = Integer
		case "number":
			typ = Number
		case "boolean":
			typ = Boolean
		case "object":
			typ = Object
		case "array":
			typ = Array
		}
		out = append(out, Param{Name: p.Name, Type: typ, Required: p.Required, Desc: p.Desc})
	}
	return out
}

func (w *mcpWindow) View() View {
	version := w.srv.ListVersion()
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.listing == "" || w.listingFor != version {
		w.listing, w.listingFor = w.renderListing(), version
	}
	listing := w.listing
	content := listing
	if w.last != nil {
		content += "\n\n" + w.lastText()
	}
	return View{Content: content, State: mcpState{listing: listing, seq: w.seq}}
}

// Changes shows only a new last result while the tools stay the same.
func (w *mcpWindow) Changes(prev, cur View) (string, bool) {
	p, ok1 := prev.State.(mcpState)
	c, ok2 := cur.State.(mcpState)
	if !ok1 || !ok2 || p.listing != c.listing {
		return "", false
	}
	if p.seq == c.seq {
		return "", true
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.last == nil || w.last.seq != c.seq {
		return "", false
	}
	return w.lastText(), true
}

// renderListing describes the server, its tools with their parameters,
// and its resources.
func (w *mcpWindow) renderListing() string {
	var b strings.Builder
	sc := w.srv.Config()
	list, resources := w.srv.Tools(), w.srv.Resources()
	fmt.Fprintf(&b, "MCP server %s (%s): %d %s, %d %s", w.name, sc.Describe(), len(list), plural(len(list), "tool"), len(resources), plural(len(resources), "resource"))
	if ins := strings.TrimSpace(w.srv.Instructions()); ins != "" {
		if len(ins) > mcpMaxInstructions {
			ins = ins[:mcpMaxInstructions] + "… (cut)"
		}
		b.WriteString("\nthe server's instructions:\n" + ins)
	}
	if len(list) > 0 {
		b.WriteString("\ntools (call one by its action):")
	}
	for _, t := range list {
		if !mcp.Usable(t) {
			fmt.Fprintf(&b, "\n- %q [not callable here: a name in it has characters other than A-Z a-z 0-9 _ - . /]", mcp.OneLine(t.Name))
			continue
		}
		fmt.Fprintf(&b, "\n- %s", t.Name)
		if d := mcp.OneLine(t.Description); d != "" {
			b.WriteString(": " + d)
		}
		if t.Name == "close" {
			b.WriteString(" [not callable here: its name is the window's close]")
		}
		for _, p := range mcp.ToolParams(t) {
			typ := p.Type
			if typ == "" {
				typ = "any"
			}
			req := ""
			if p.Required {
				req = ", required"
			}
			fmt.Fprintf(&b, "\n    %s (%s%s)", p.Name, typ, req)
			if p.Desc != "" {
				b.WriteString(": " + p.Desc)
			}
		}
	}
	if len(resources) > 0 {
		b.WriteString("\nresources (read(uri)):")
	}
	listCapped(&b, resources, func(r *mcp.Resource) {
		fmt.Fprintf(&b, "\n- %s", r.URI)
		if r.Name != "" && !strings.HasSuffix(r.URI, r.Name) {
			b.WriteString(" " + r.Name)
		}
		if r.MIMEType != "" {
			b.WriteString(" (" + r.MIMEType + ")")
		}
		if d := mcp.OneLine(r.Description); d != "" {
			b.WriteString(": " + d)
		}
	})
	if templates := w.srv.Templates(); len(templates) > 0 {
		b.WriteString("\nresource templates (fill in the {braces}, then read(uri)):")
		listCapped(&b, templates, func(r *mcp.ResourceTemplate) {
			fmt.Fprintf(&b, "\n- %s", r.URITemplate)
			if d := mcp.OneLine(r.Description); d != "" {
				b.WriteString(": " + d)
			}
		})
	}
	// The actions list every tool whatever is cut here.
	return output.Truncate(b.String(), w.env.OutputLimit)
}

// lastText renders the last result; w.mu held.
func (w *mcpWindow) lastText() string {
	l := w.last
	return fmt.Sprintf("last result (%s, %s):\n%s", l.label, l.status, l.text)
}

// record keeps an outcome for the window to show.
func (w *mcpWindow) record(label, status, text string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.seq++
	w.last = &mcpLast{seq: w.seq, label: label, status: status, text: text}
}

func (w *mcpWindow) call(ctx context.Context, name string, args Args) Result {
	t := w.srv.Tool(name)
	if t == nil {
		return Fail("MCP server %s no longer has a tool %q", w.name, name)
	}
	params := args.Map()
	if err := mcp.CheckArgs(t, params); err != nil {
		return Fail("%v", err)
	}
	if r := w.approve(ctx, t.Name, mcp.ReadOnly(t), params); r != nil {
		return *r
	}
	res, err := w.srv.CallTool(ctx, name, params)
	if err != nil {
		msg := w.env.Secrets.Redact(err.Error())
		w.record(name, protocol.StatusError, msg)
		return Fail("%s", msg)
	}
	text := w.env.Secrets.Redact(res.Text)
	if strings.TrimSpace(text) == "" {
		text = "(the tool returned no content)"
	}
	text = output.Truncate(text, w.env.OutputLimit)
	status := protocol.StatusOK
	if res.IsError {
		status = protocol.StatusError
		text = "the tool reported an error: " + text
	}
	if res.Note != "" {
		text = "(" + res.Note + ")\n" + text
	}
	preview := text
	if len(preview) > mcpPreviewChars {
		preview = output.Truncate(preview, mcpPreviewChars) + "\n(the whole text is in the call's result)"
	}
	w.record(name, status, preview)
	return Result{Status: status, Text: text}
}

// approve asks before a tool that may change something runs; nil means
// it may. "Always" allows the tool with any arguments for the session.
func (w *mcpWindow) approve(ctx context.Context, tool string, readOnly bool, params map[string]any) *Result {
	if r := w.env.denied("tool", w.name+"."+tool); r != nil {
		return r
	}
	if readOnly {
		return nil
	}
	if w.env.Mode.Get() == ModePlan {
		return planRefusal("tool " + w.name + "." + tool + " is not annotated read-only")
	}
	if w.srv.Config().Trust || w.pool.Always(w.name, tool) {
		return nil
	}
	data, _ := json.Marshal(params)
	subject := fmt.Sprintf("%s.%s %s", w.name, tool, data)
	if len(subject) > 500 {
		subject = subject[:500] + "…"
	}
	req := ApprovalRequest{Kind: protocol.AskTool, WindowID: w.id, Subject: subject,
		Reason: "calls a tool of MCP server " + w.name + " that is not annotated read-only (always: this tool, any arguments)"}
	d := w.env.Approver.Approve(ctx, req)
	if d.Allow {
		if d.Always {
			w.pool.SetAlways(w.name, tool)
		}
		return nil
	}
	return &Result{Status: protocol.StatusDenied, Text: DenialText(req, d)}
}

func (w *mcpWindow) read(ctx context.Context, args Args) Result {
	uri := strings.TrimSpace(args.String("uri"))
	if uri == "" {
		return Fail("uri is empty")
	}
	label := "read " + uri
	res, err := w.srv.ReadResource(ctx, uri)
	if err != nil {
		msg := w.env.Secrets.Redact(err.Error())
		w.record(label, protocol.StatusError, msg)
		return Fail("%s", msg)
	}
	text := output.Truncate(w.env.Secrets.Redact(res.Text), w.env.OutputLimit)
	w.record(label, protocol.StatusOK, text)
	msg := fmt.Sprintf("read %s: %d characters, shown in %s", uri, len(res.Text), w.id)
	if res.Note != "" {
		msg += " (" + res.Note + ")"
	}
	return OK("%s", msg)
}

// listCapped writes the first mcpMaxResources items with line, then how
// many more there are.
func listCapped[T any](b *strings.Builder, items []T, line func(T)) {
	for i, it := range items {
		if i == mcpMaxResources {
			fmt.Fprintf(b, "\n… %d more", len(items)-i)
			return
		}
		line(it)
	}
}
