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
	var apps []string
	for _, name := range l.m.appOrder {
		apps = append(apps, fmt.Sprintf("%s (target: %s)", name, l.m.apps[name].Target))
	}
	return []Action{{
		ID:   "open",
		Desc: "app = " + strings.Join(apps, " | "),
		Mode: Sync,
		Params: []Param{
			{Name: "app", Type: String, Required: true},
			{Name: "target", Type: String},
		},
	}}
}

// Content lists the open windows; the apps are in open's description.
func (l *launcher) Content() string {
	ws := l.m.Windows()
	if len(ws) == 1 {
		return "no other windows open"
	}
	var b strings.Builder
	b.WriteString("open:")
	for _, w := range ws[1:] {
		fmt.Fprintf(&b, " %s", w.ID())
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
