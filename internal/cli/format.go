package cli

import (
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mcp-audit/mcp-audit/internal/buildinfo"
	"github.com/mcp-audit/mcp-audit/internal/config"
	"github.com/mcp-audit/mcp-audit/internal/report"
)

// formats are the values of --format, the same on audit, diff, check and
// report.
var formats = []string{report.FormatText, report.FormatJSON, report.FormatMarkdown, report.FormatSARIF, report.FormatHTML}

// formatFlag is --format. It checks its value when the flag is parsed, so
// an unknown format is a usage error naming the flag before anything is
// audited.
type formatFlag string

func (f *formatFlag) String() string { return string(*f) }

// Set accepts one of formats.
func (f *formatFlag) Set(v string) error {
	if !slices.Contains(formats, v) {
		return fmt.Errorf("unknown format %q (want %s)", v, strings.Join(formats, ", "))
	}
	*f = formatFlag(v)
	return nil
}

// registerFormat defines --format on fs with the default text; usage ends
// the flag's help with what the command does with it.
func registerFormat(fs *flag.FlagSet, usage string) *formatFlag {
	var f formatFlag
	formatVar(fs, &f, usage)
	return &f
}

// formatVar defines --format on fs, stored in f.
func formatVar(fs *flag.FlagSet, f *formatFlag, usage string) {
	*f = report.FormatText
	fs.Var(f, "format", "report format: "+strings.Join(formats, ", ")+usage)
}

// renderReports writes reports in any format but audit's and report's
// text; SARIF locations point at each server's version line in cfg when
// there is one.
func renderReports(w io.Writer, format string, cfg *config.Config, reports []report.DiffReport) error {
	if format == report.FormatSARIF {
		return sarifFor(cfg).Write(w, reports)
	}
	return report.WriteDiffs(w, format, reports)
}

// sarifFor is the SARIF renderer whose results point into cfg: the path as
// given relative to the working directory, with forward slashes as SARIF
// wants, and each server's version line (config.Server.ReportLine).
func sarifFor(cfg *config.Config) report.SARIF {
	if cfg == nil {
		return report.SARIF{Version: buildinfo.Version()}
	}
	return report.SARIF{ConfigPath: filepath.ToSlash(rel(cfg.Path)), Lines: cfg.ReportLines(), Version: buildinfo.Version()}
}
