package windows

import (
	"io"

	"github.com/aci-dev/aci/tools/shell"
)

// liveOption passes a command's output, as it arrives, to whoever the
// Env says watches it (the session): the shell knows nothing of windows,
// the window nothing of who watches.
func (w *bashWindow) liveOption() shell.RunOption {
	live := w.env.Live
	if live == nil {
		return shell.OutputTo(nil)
	}
	return shell.OutputTo(func(taskID string) io.Writer { return live(w.id, taskID) })
}
