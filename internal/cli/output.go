package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"

	"github.com/mcp-audit/mcp-audit/internal/audit"
	"github.com/mcp-audit/mcp-audit/internal/check"
	"github.com/mcp-audit/mcp-audit/internal/config"
	"github.com/mcp-audit/mcp-audit/internal/fsutil"
	m "github.com/mcp-audit/mcp-audit/internal/manifest"
	"github.com/mcp-audit/mcp-audit/internal/report"
)

// writeManifest writes canonical JSON to a file (atomically) or stdout.
func writeManifest(env *Env, out string, man *m.Manifest) error {
	data, err := m.Encode(man)
	if err != nil {
		return err
	}
	return emit(env, out, data)
}

// evidencePath is where full network exchanges go: --evidence, or next to
// the manifest file. With the manifest on stdout and no --evidence there is
// none.
func evidencePath(out, explicit string) string {
	if explicit != "" || out == "" || out == "-" {
		return explicit
	}
	return strings.TrimSuffix(out, filepath.Ext(out)) + ".evidence.jsonl"
}

// writeEvidence writes the network exchanges as JSON lines.
func writeEvidence(path string, res *audit.Result) error {
	if path == "" || len(res.Evidence) == 0 {
		return nil
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	for _, e := range res.Evidence {
		if err := enc.Encode(e); err != nil {
			return err
		}
	}
	return fsutil.WriteFileAtomic(path, buf.Bytes())
}

// finishReports writes reports and maps them to the command's outcome
// (check.Outcome); SARIF points into cfg when there is one.
func finishReports(env *Env, format *formatFlag, out string, cfg *config.Config, reports []report.DiffReport) error {
	var buf bytes.Buffer
	if err := renderReports(&buf, string(*format), cfg, reports); err != nil {
		return err
	}
	if err := emit(env, out, buf.Bytes()); err != nil {
		return err
	}
	return check.Outcome(reports)
}

// emit writes a report to a file (atomically) or stdout.
func emit(env *Env, out string, data []byte) error {
	if out == "" || out == "-" {
		_, err := env.Stdout.Write(data)
		return err
	}
	return fsutil.WriteFileAtomic(out, data)
}

// rel shortens a path below the working directory for printing.
func rel(p string) string {
	if wd, err := os.Getwd(); err == nil {
		if r, err := filepath.Rel(wd, p); err == nil && !strings.HasPrefix(r, "..") {
			return r
		}
	}
	return p
}
