package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/mcp-audit/mcp-audit/internal/diff"
	m "github.com/mcp-audit/mcp-audit/internal/manifest"
	"github.com/mcp-audit/mcp-audit/internal/policy"
)

// TestSurfaceOnlyMarked: every renderer says a remote server was audited
// surface only, next to its name; a sandboxed server's report (the
// control) says nothing of the kind. SARIF results point into the file
// Files names for the server.
func TestSurfaceOnlyMarked(t *testing.T) {
	res := func(eco, name string) *diff.Result {
		return &diff.Result{New: diff.Version{Ecosystem: eco, Name: name, Version: "2.1.0"}, Verdict: m.VerdictIncomplete,
			FailOn: policy.High, Incomplete: []string{"surface only: not observed"}, Findings: []policy.Finding{}}
	}
	for _, surface := range []bool{true, false} {
		r := DiffReport{Server: "docs", Result: res(m.EcosystemRemote, "mcp.docs.example"), SurfaceOnly: surface}
		if !surface {
			r.Result = res("npm", "docs-mcp")
		}
		for _, format := range []string{FormatText, FormatJSON, FormatMarkdown, FormatHTML, FormatSARIF} {
			var b bytes.Buffer
			var err error
			if format == FormatSARIF {
				err = SARIF{Files: map[string]string{"docs": ".cursor/mcp.json"}, Lines: map[string]int{"docs": 4}}.Write(&b, []DiffReport{r})
			} else {
				err = WriteDiffs(&b, format, []DiffReport{r})
			}
			if err != nil {
				t.Fatal(err)
			}
			out := b.String()
			marked := strings.Contains(out, "SURFACE ONLY")
			if format == FormatJSON {
				marked = strings.Contains(out, `"surface_only": true`)
			}
			if marked != surface {
				t.Errorf("%s (surface only %v): marked %v:\n%s", format, surface, marked, out)
			}
			if format == FormatSARIF && !strings.Contains(out, `"uri": ".cursor/mcp.json"`) {
				t.Errorf("SARIF does not point into the client file:\n%s", out)
			}
		}
	}
}
