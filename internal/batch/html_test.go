package batch

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	m "github.com/mcp-audit/mcp-audit/internal/manifest"
	"github.com/mcp-audit/mcp-audit/internal/policy"
)

// TestReportDataIsClean: the page's data carries no control, bidi or
// invisible formatting characters from a manifest, which textContent would
// still render (a right-to-left override repaints a host name).
func TestReportDataIsClean(t *testing.T) {
	out := t.TempDir()
	hostile := "x\u202egnp.exe\x1b[2J\u200b"
	man := sample("pkg"+hostile, "1.0.0"+hostile)
	man.Phases = append(man.Phases, m.Phase{Name: "call:" + hostile,
		Network: []m.Connection{{Proto: "tcp", Op: "connect", Name: "h" + hostile + ".example", Port: 443, Category: "egress"}}})
	fs := []policy.Finding{{Severity: policy.High, Kind: policy.KindHost, Phase: "call:" + hostile, Subject: hostile, Summary: "s" + hostile, Evidence: "e" + hostile}}
	writeDone(t, out, "srv"+hostile, man, fs)
	if err := Publish(out); err != nil {
		t.Fatal(err)
	}
	page, err := os.ReadFile(filepath.Join(out, "report.html"))
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"\u202e", "\x1b", "\u200b"} {
		if strings.Contains(string(page), bad) {
			t.Errorf("report.html carries %q", bad)
		}
	}
}
