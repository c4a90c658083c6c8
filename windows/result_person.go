package windows

import "strings"

// ForPerson is what an action produced for a person to read: an edit's
// unified diff, a command's output (cut and redacted as the model sees
// it), both when there are both; "" when there is neither. The events and
// the transcript show the same.
func (r Result) ForPerson() string {
	switch {
	case r.Diff != "" && r.Output != "":
		return strings.TrimRight(r.Diff, "\n") + "\n" + r.Output
	case r.Diff != "":
		return r.Diff
	}
	return r.Output
}
