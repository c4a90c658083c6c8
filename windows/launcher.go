package windows

import (
	"context"
	"fmt"
	"strings"
)

const launcherID = "launcher"

// launcher is the pinned window that opens the others.
type launcher struct{ m *Manager }

func (l *launcher) ID() string    { return launcherID }
func (l *launcher) App() string   { return "launcher" }
func (l *launcher) Title() string { return "Launcher" }
func (l *launcher) Close()        {}

func (l *launcher) Actions() []Action {
	return l.withAgentParams([]Action{{
		ID:   "open",
		Desc: "open a window of an app",
		Mode: Sync,
		Params: []Param{
			{Name: "app", Type: String, Required: true},
			{Name: "target", Type: String},
		},
		Run: l.open,
	}})
}

// View lists the apps' one-line descriptions. The open windows are not
// listed: each has its own rendering, and a list here would change with
// every open and close, costing a re-rendering each time.
func (l *launcher) View() View {
	var b strings.Builder
	b.WriteString("apps:")
	for _, name := range l.m.appOrder {
		app := l.m.apps[name]
		fmt.Fprintf(&b, "\n- %s: %s (target: %s)", name, app.Desc, app.Target)
		for _, item := range app.Items {
			b.WriteString("\n  - " + item)
		}
	}
	return View{Content: b.String()}
}

func (l *launcher) open(ctx context.Context, args Args) Result {
	app, target := args.String("app"), args.String("target")
	if w := l.m.findOpen(app, target); w != nil && target != "" && app != "bash" && app != "agent" {
		return OK("opened %s (it was already open)", w.ID())
	}
	_, res := l.m.Open(withOpenArgs(ctx, args), app, target)
	return res
}
