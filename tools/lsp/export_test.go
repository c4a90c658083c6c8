package lsp

import "github.com/aci-dev/aci/tools/sandbox"

// sandboxKind is what contains commands in dir ("" when nothing does).
func sandboxKind(dir string) string {
	sb := sandbox.For(dir)
	if !sb.Contained() {
		return ""
	}
	if sb.Kind() == sandbox.Landlock {
		return "/proc/self/exe"
	}
	return string(sb.Kind())
}
