package session

import "github.com/aci-dev/aci/windows"

// Described is the call as a person reads it: the description its window
// gave when it ran, or, for a call an older aci stored without one, the
// one the table of calls gives from what the event holds (the app its
// window id names, the window's title when known). workdir makes a
// target absolute ("" leaves it as written). Every front end reads a
// call through this: none has a switch over apps of its own.
func (e ToolCall) Described(workdir string) windows.Description {
	if e.Desc.Title != "" {
		return e.Desc
	}
	if e.Call.Err != "" || e.Call.WindowID == "" {
		return windows.Description{Title: "a malformed call", Kind: "other"}
	}
	d := windows.DescribeCall(windows.Call{WindowID: e.Call.WindowID, Title: e.Title, Action: e.Call.ActionID, Params: e.Call.Params, Workdir: workdir})
	d.Title = PersonText(d.Title)
	d.Input = nil // for hooks, never for a front end
	return d
}
