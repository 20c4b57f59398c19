package batch

import (
	"cmp"
	"fmt"
	"net/url"
	"path"
	"slices"
	"strings"

	m "github.com/mcp-audit/mcp-audit/internal/manifest"
	"github.com/mcp-audit/mcp-audit/internal/policy"
	"github.com/mcp-audit/mcp-audit/internal/report"
	"github.com/mcp-audit/mcp-audit/internal/textsafe"
)

// A matrix column is one behavior a reader scans for across servers.
type matrixCol struct {
	Label string
	has   func(f policy.Finding) bool
}

func kindIn(kinds ...string) func(policy.Finding) bool {
	return func(f policy.Finding) bool { return slices.Contains(kinds, f.Kind) }
}

func isEgress(f policy.Finding) bool {
	return f.Kind == policy.KindHost || f.Kind == policy.KindTelemetry
}

func inCalls(f policy.Finding) bool {
	return f.Phase == policy.PhaseCalls || strings.HasPrefix(f.Phase, m.PhaseCallPrefix) ||
		strings.HasPrefix(f.Phase, m.PhasePromptPrefix) || strings.HasPrefix(f.Phase, m.PhaseReadPrefix)
}

// matrixCols are the server × behavior matrix's columns. Every finding
// lands in exactly one of them (the last catches the rest), so the
// matrix never hides one.
var matrixCols = []matrixCol{
	{"unprompted egress", func(f policy.Finding) bool { return isEgress(f) && !inCalls(f) && f.Phase != m.PhaseInstall }},
	{"hosts during calls", func(f policy.Finding) bool { return isEgress(f) && inCalls(f) }},
	{"credential sent", kindIn(policy.KindCredential)},
	{"canary", kindIn(policy.KindCanary)},
	{"sensitive file", kindIn(policy.KindSensitive, policy.KindPersistence, policy.KindAIConfig, policy.KindSystemFile, policy.KindWrite)},
	{"shell / process", kindIn(policy.KindShell, policy.KindProcess, policy.KindEscape)},
	{"install script", func(f policy.Finding) bool { return f.Kind == policy.KindInstallScript || f.Phase == m.PhaseInstall }},
	{"text aimed at the model, changed offers", kindIn(policy.KindTool, policy.KindMessage)},
	{"other", func(policy.Finding) bool { return true }},
}

// column is the matrix column of a finding.
func column(f policy.Finding) int {
	for i, c := range matrixCols {
		if c.has(f) {
			return i
		}
	}
	return len(matrixCols) - 1
}

// cell is one server's worst severity and count in a column.
type cell struct {
	Sev   string // "" when the server shows nothing of the kind
	N     int
	Kinds string // the finding kinds counted, for the tooltip
}

func matrixRow(fs []policy.Finding) []cell {
	row := make([]cell, len(matrixCols))
	worst := make([]policy.Severity, len(matrixCols))
	kinds := make([][]string, len(matrixCols))
	for _, f := range fs {
		i := column(f)
		if row[i].N == 0 || f.Severity > worst[i] {
			worst[i] = f.Severity
		}
		row[i].N++
		if k := line(f.Kind); !slices.Contains(kinds[i], k) {
			kinds[i] = append(kinds[i], k)
		}
	}
	for i := range row {
		if row[i].N > 0 {
			row[i].Sev = worst[i].String()
			slices.Sort(kinds[i])
			row[i].Kinds = strings.Join(kinds[i], ", ")
		}
	}
	return row
}

// harm orders servers for the report as every report does
// (report.Harm): the verdict first (fail, then incomplete or not
// audited, then pass), then the worst severity, the harm class and the
// counts, then by name. A server failing with five high findings sits
// above every passing one, and a medium read of the decoy .env is no
// canary theft.
func harm(a, b *serverView) int {
	return cmp.Or(a.rank.Compare(b.rank), strings.Compare(a.Server, b.Server))
}

// rankOf ranks an entry; one that could not be audited ranks with the
// incomplete: not audited is not a pass.
func rankOf(e entry) report.Harm {
	v := e.Verdict
	if e.Status == StatusFailed || e.man == nil {
		v = m.VerdictIncomplete
	}
	return report.HarmOf(v, e.Findings)
}

// laneSeg is one phase on a server's lane: install | startup | calls | idle.
type laneSeg struct {
	Group   string // install, startup, call, idle
	Name    string
	Outcome string // a call's outcome
	Flex    int    // relative width
	Net     int    // lookups, connections and requests
	Files   int
	Canary  int
	Title   string
}

func laneOf(man *m.Manifest) []laneSeg {
	outcome := map[string]string{}
	for _, c := range man.Calls {
		outcome[c.Phase] = c.Outcome
	}
	calls := 0
	for _, p := range man.Phases {
		if _, ok := outcome[p.Name]; ok {
			calls++
		}
	}
	// Fixed phases stay visible beside hundreds of calls.
	fixed := max(3, calls/4)
	var out []laneSeg
	for _, p := range man.Phases {
		s := laneSeg{Group: laneGroup(p.Name), Name: line(p.Name), Flex: fixed, Files: len(p.Files), Canary: len(p.Canaries),
			Net: len(p.DNS) + countEgress(p) + len(p.Requests)}
		if o, ok := outcome[p.Name]; ok {
			s.Group, s.Outcome, s.Flex = "call", o, 1
		}
		s.Title = fmt.Sprintf("%s%s: %d network, %d files, %d canary", s.Name, cond(s.Outcome != "", " → "+s.Outcome, ""), s.Net, s.Files, s.Canary)
		out = append(out, s)
	}
	return out
}

// laneGroup is a phase's place on the lane; it names a CSS class, so it
// comes from a fixed set, never from the manifest.
func laneGroup(phase string) string {
	switch phase {
	case m.PhaseInstall, m.PhaseStartup, m.PhaseIdle:
		return phase
	}
	return "call"
}

func cond(ok bool, a, b string) string {
	if ok {
		return a
	}
	return b
}

// hostGroup is one relation's hosts in a server's host panel.
type hostGroup struct {
	Label string
	Class string
	Hosts []hostView
}

type hostView struct {
	Host  string
	Calls int
	Where string
}

var relationLabels = []struct{ rel, label string }{
	{policy.RelationUnexpected, "unexpected"},
	{policy.RelationThirdParty, "third party (during calls)"},
	{policy.RelationService, "own service"},
	{policy.RelationSupplied, "supplied by the caller or config"},
}

func hostPanel(man *m.Manifest) []hostGroup {
	uses := policy.HostUses(man)
	var out []hostGroup
	for _, rl := range relationLabels {
		g := hostGroup{Label: rl.label, Class: "rel-" + rl.rel}
		for _, u := range uses {
			if u.Relation == rl.rel {
				g.Hosts = append(g.Hosts, hostView{Host: line(u.Host), Calls: u.Calls, Where: textsafe.Line(strings.Join(u.Phases, ", "), 300)})
			}
		}
		if len(g.Hosts) > 0 {
			out = append(out, g)
		}
	}
	return out
}

// relLink is a link into the results directory. Each path segment is
// escaped, so a server-chosen name cannot add a query or fragment.
func relLink(p string) string {
	segs := strings.Split(path.Clean(p), "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	return strings.Join(segs, "/")
}

// shownTarget keeps host paths out of the report: a directory or tarball
// target ("/abs/dir", "dir:/abs/dir", "~/x.tgz") is shown by its last
// element.
func shownTarget(t string) string {
	prefix, rest := "", t
	if i := strings.Index(t, ":"); i > 0 && !strings.ContainsAny(t[:i], "/~") {
		prefix, rest = t[:i+1], t[i+1:]
	}
	if strings.HasPrefix(rest, "/") || strings.HasPrefix(rest, "~") || strings.HasPrefix(rest, "..") {
		return prefix + "…/" + path.Base(rest)
	}
	return t
}
