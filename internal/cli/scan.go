package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/mcp-audit/mcp-audit/internal/buildinfo"
	"github.com/mcp-audit/mcp-audit/internal/clientconfig"
	"github.com/mcp-audit/mcp-audit/internal/report"
	"github.com/mcp-audit/mcp-audit/internal/scan"
	"github.com/mcp-audit/mcp-audit/internal/textsafe"
	"github.com/mcp-audit/mcp-audit/internal/verdict"
)

// runScan audits the servers the machine's MCP clients are configured to
// run (docs/scan.md).
func runScan(ctx context.Context, env *Env, args []string) error {
	fs := newFlagSet(env, "scan")
	var f scanFlags
	var calls stringList
	f.register(fs)
	format := registerFormat(fs, " (sarif: results on each server's line in its client file)")
	out := fs.String("o", "", "write the report here (default: stdout)")
	remote := fs.Bool("remote", false, "audit remote (HTTP) servers surface only: their opening, lists and ui:// pages, read without credentials")
	fs.Var(&calls, "remote-call", "with --remote, also call this tool of a remote server (repeatable; none by default)")
	list := fs.Bool("list", false, "list the servers found, their targets and warnings, without auditing or contacting anything")
	files, _, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	o, done, err := f.prepare(env, files, *out, func(o *scan.Options) { o.Remote, o.RemoteCalls = *remote, calls })
	if err != nil {
		return err
	}
	defer done()
	if *list {
		return listServers(env, string(*format), *out, o)
	}
	res, err := scanReport(ctx, env, &f, o, string(*format), *out)
	if err != nil {
		return err
	}
	return scan.Outcome(res.Plan.Scan.Problems, res.Reports, o.AllowIncomplete || scan.ReportOnly(o.FailOn))
}

// scanReport audits the scan and writes its report.
func scanReport(ctx context.Context, env *Env, f *scanFlags, o scan.Options, format, out string) (*scan.Result, error) {
	res, err := auditScan(ctx, env, f, o)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if err := renderScan(&buf, format, res, o.Env.Home); err != nil {
		return nil, err
	}
	return res, emit(env, out, buf.Bytes())
}

// renderScan writes the scan's reports; SARIF results point at each
// server's entry in its first client file.
func renderScan(w io.Writer, format string, res *scan.Result, home string) error {
	if format != report.FormatSARIF {
		return report.WriteDiffs(w, format, res.Reports)
	}
	s := report.SARIF{Version: buildinfo.Version(), Files: map[string]string{}, Lines: map[string]int{}}
	for _, srv := range res.Plan.Scan.Servers {
		if len(srv.Sources) > 0 {
			src := srv.Sources[0]
			s.Files[srv.Name], s.Lines[srv.Name] = filepath.ToSlash(rel(src.Path)), src.Line
		}
	}
	return s.Write(w, res.Reports)
}

// listServers prints what a scan would audit, contacting nothing (so the
// registry is not asked about unknown packages).
func listServers(env *Env, format, out string, o scan.Options) error {
	o.Exists = nil
	res := scan.Read(o)
	var buf bytes.Buffer
	switch format {
	case report.FormatJSON:
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		if err := enc.Encode(res); err != nil {
			return err
		}
	case report.FormatText:
		writeList(&buf, res, o.Env.Home)
	default:
		return fmt.Errorf("%w: --list prints text or json", verdict.ErrUsage)
	}
	for _, p := range res.Problems {
		fmt.Fprintf(env.Stderr, "mcp-audit: %s\n", textsafe.Line(problemLine(p, o.Env.Home), 1000))
	}
	if err := emit(env, out, buf.Bytes()); err != nil {
		return err
	}
	if len(res.Problems) > 0 {
		return scan.Outcome(res.Problems, nil, false)
	}
	return nil
}

// writeList is the text of --list: each file, then each server with its
// target, variables, places and warnings.
func writeList(w io.Writer, res *clientconfig.Result, home string) {
	for _, f := range res.Files {
		state := fmt.Sprintf("%d %s", f.Servers, plural(f.Servers, "server", "servers"))
		if f.Err != nil {
			state = "not read: " + f.Err.Message
		}
		fmt.Fprintf(w, "file %s (%s, %s): %s\n", textsafe.Line(scan.Where(f.Path, 0, home), 300), clientName(f.Client), f.Scope, textsafe.Line(state, 300))
		for _, wn := range res.Warnings {
			if wn.Entry == 0 && wn.Path == f.Path {
				fmt.Fprintf(w, "  warning (%s): %s\n", wn.Kind, textsafe.Line(scan.Where(wn.Path, wn.Line, home)+": "+wn.Message, 1000))
			}
		}
	}
	for _, s := range res.Servers {
		fmt.Fprintf(w, "\nserver %s: %s\n", textsafe.Line(s.Name, 100), textsafe.Line(listTarget(s), 500))
		if len(s.Env) > 0 {
			fmt.Fprintf(w, "  canary_env: %s\n", textsafe.Line(strings.Join(s.Env, ", "), 500))
		}
		if len(s.Args) > 0 {
			fmt.Fprintf(w, "  args: %s\n", textsafe.Line(strings.Join(s.Args, " "), 500))
		}
		for _, src := range s.Sources {
			fmt.Fprintf(w, "  in %s: %s (%q)\n", clientName(src.Client), textsafe.Line(scan.Where(src.Path, src.Line, home), 300), textsafe.Line(src.Name, 100))
		}
		for _, wn := range res.WarningsFor(s) {
			fmt.Fprintf(w, "  warning (%s): %s\n", wn.Kind, textsafe.Line(scan.Where(wn.Path, wn.Line, home)+": "+wn.Message, 1000))
		}
	}
}

// clientName is a client's name for people.
func clientName(id string) string {
	if c := clientconfig.ClientByID(id); c != nil {
		return c.Name
	}
	return "a file"
}

// listTarget is what a server is audited as.
func listTarget(s *clientconfig.Server) string {
	switch s.Kind {
	case clientconfig.KindRemote:
		what := "remote " + s.Host + " (" + s.Transport + "): surface only with --remote"
		if s.URL == "" {
			what = "remote " + s.Host + ": not contacted: " + s.Reason
		}
		return what
	case clientconfig.KindUnrecognised:
		return "not audited: the command " + s.Command + " is not recognised: " + s.Reason
	}
	if why := s.Unwritable(); why != "" {
		return "not audited: " + why
	}
	t := s.Target()
	if s.Bin != "" {
		t += " (bin " + s.Bin + ")"
	}
	return t
}
