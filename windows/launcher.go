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
	var targets []string
	for _, name := range l.m.appOrder {
		targets = append(targets, fmt.Sprintf("%s: %s", name, l.m.apps[name].Target))
	}
	return []Action{{
		ID:   "open",
		Desc: "open a window; target per app: " + strings.Join(targets, "; "),
		Mode: Sync,
		Params: []Param{
			{Name: "app", Type: String, Required: true, Desc: strings.Join(l.m.appOrder, " | ")},
			{Name: "target", Type: String, Desc: "see above"},
		},
	}}
}

func (l *launcher) Content() string {
	var b strings.Builder
	b.WriteString("Apps:\n")
	for _, name := range l.m.appOrder {
		fmt.Fprintf(&b, "- %s: %s\n", name, l.m.apps[name].Desc)
	}
	ws := l.m.Windows()
	if len(ws) == 1 {
		b.WriteString("Open windows: none besides the launcher.")
		return b.String()
	}
	b.WriteString("Open windows:")
	for _, w := range ws[1:] {
		fmt.Fprintf(&b, "\n- %s (%s) %s", w.ID(), w.App(), w.Title())
	}
	return b.String()
}

func (l *launcher) Do(ctx context.Context, action string, args Args) Result {
	// Only open reaches here: the manager validated the action.
	app, target := args.String("app"), args.String("target")
	if w := l.m.findOpen(app, target); w != nil && target != "" && app != "bash" {
		return OK("opened %s (it was already open)", w.ID())
	}
	_, res := l.m.Open(ctx, app, target)
	return res
}
