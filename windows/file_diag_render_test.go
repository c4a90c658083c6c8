package windows

import (
	"fmt"
	"strings"
	"testing"

	"github.com/aci-dev/aci/tools/lsp"
)

func TestRenderDiagnostics(t *testing.T) {
	many := make([]lsp.Diagnostic, 30)
	for i := range many {
		many[i] = lsp.Diagnostic{Line: 100 - i, Col: 1, Severity: lsp.Error, Message: fmt.Sprint("e", 100-i)}
	}
	tests := []struct {
		name         string
		r            lsp.Report
		start, count int
		want         string
	}{
		{"nothing yet", lsp.Report{Server: "gopls"}, 1, 60, ""},
		{"clean", lsp.Report{Server: "gopls", Known: true}, 1, 60, ""},
		{"viewport first", lsp.Report{Server: "gopls", Known: true, List: []lsp.Diagnostic{
			{Line: 3, Col: 2, Severity: lsp.Error, Message: "above"},
			{Line: 90, Col: 5, Severity: lsp.Warning, Message: "below"},
			{Line: 45, Col: 7, Severity: lsp.Error, Message: "in view b"},
			{Line: 45, Col: 1, Severity: lsp.Error, Message: "in view a"},
		}}, 40, 20, "diagnostics (gopls): 3 errors, 1 warning\n45:1 in view a\n45:7 in view b\n3:2 above\n90:5 warning: below"},
		{"note only", lsp.Report{Server: "x", Note: "x stopped (exit status 1); restarted"}, 1, 60,
			"diagnostics: x stopped (exit status 1); restarted"},
		{"note and list", lsp.Report{Server: "x", Note: "x is slow", List: []lsp.Diagnostic{{Line: 1, Col: 1, Severity: lsp.Warning, Message: "w"}}}, 1, 60,
			"diagnostics: x is slow\ndiagnostics (x): 1 warning\n1:1 warning: w"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := renderDiagnostics(tt.r, tt.start, tt.count); got != tt.want {
				t.Errorf("got\n%s\nwant\n%s", got, tt.want)
			}
		})
	}
	t.Run("bounded", func(t *testing.T) {
		got := renderDiagnostics(lsp.Report{Server: "gopls", List: many}, 90, 5)
		lines := strings.Split(got, "\n")
		if len(lines) != 1+maxDiagLines+1 || lines[0] != "diagnostics (gopls): 30 errors" || lines[len(lines)-1] != "… 10 more" {
			t.Fatalf("got\n%s", got)
		}
		// Lines 90-94 are in view: they come first, then the rest from the top.
		if strings.Join(lines[1:7], "|") != "90:1 e90|91:1 e91|92:1 e92|93:1 e93|94:1 e94|71:1 e71" {
			t.Errorf("order: %q", lines[1:7])
		}
	})
}
