package session

import (
	"regexp"
	"strings"
	"sync"
)

// hintTag is the markup aci wraps its notes for the model in.
var hintTag = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`<system_hint(?:\s+type="[^"]*")?>|</system_hint>`) })

// PersonText is text the model reads, made for a person: aci's
// <system_hint> markup gives way to a plain "note:" (the words stay).
func PersonText(s string) string {
	if !strings.Contains(s, "system_hint") {
		return s
	}
	return hintTag().ReplaceAllStringFunc(s, func(tag string) string {
		if strings.HasPrefix(tag, "</") {
			return ""
		}
		return "note: "
	})
}
