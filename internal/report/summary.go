// Package report renders manifests and findings for people and machines.
package report

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/mcp-audit/mcp-audit/internal/coverage"
	m "github.com/mcp-audit/mcp-audit/internal/manifest"
	"github.com/mcp-audit/mcp-audit/internal/policy"
	"github.com/mcp-audit/mcp-audit/internal/textsafe"
)

// maxListed bounds the findings printed in a summary; the manifest has all.
const maxListed = 40

// Summary writes the short human summary of one audit: what ran, how it
// ended, how much of it was exercised, what it did per phase, the
// findings with evidence, and the verdict with its reason.
func Summary(w io.Writer, man *m.Manifest, findings []policy.Finding, pol policy.Policy) {
	t := man.Target
	fmt.Fprintf(w, "mcp-audit: %s %s@%s\n", line(t.Ecosystem), line(t.Name), line(t.Version))
	status := man.Outcome.Status
	if man.Outcome.ExitCode != nil {
		status += fmt.Sprintf(" (exit code %d)", *man.Outcome.ExitCode)
	}
	if man.Outcome.Reason != "" {
		status += ": " + man.Outcome.Reason
	}
	fmt.Fprintf(w, "  status:  %s\n", textsafe.Line(status, 500))
	if man.Server.Name != "" {
		fmt.Fprintf(w, "  server:  %s %s, protocol %s\n", line(man.Server.Name), line(man.Server.Version), line(man.Server.ProtocolVersion))
	}
	fmt.Fprintf(w, "  offers:  %d tools, %d prompts, %d resources\n", len(man.Tools), len(man.Prompts), len(man.Resources))
	if len(man.Tools) > 0 {
		names := make([]string, len(man.Tools))
		for i, tool := range man.Tools {
			names[i] = line(tool.Name)
		}
		fmt.Fprintf(w, "  tools:   %s\n", wrap(strings.Join(names, ", "), 90, "           "))
	}
	if len(man.Calls) > 0 {
		counts := map[string]int{}
		for _, c := range man.Calls {
			counts[c.Outcome]++
		}
		var parts []string
		for _, o := range []string{m.CallOK, m.CallError, m.CallTimeout, m.CallServerDied, m.CallTooLarge, m.CallSkipped} {
			if counts[o] > 0 {
				parts = append(parts, fmt.Sprintf("%d %s", counts[o], o))
			}
		}
		fmt.Fprintf(w, "  calls:   %d made: %s\n", len(man.Calls), strings.Join(parts, ", "))
	}
	cov := man.Coverage
	if cov == nil {
		cov = coverage.Compute(man, "")
	}
	fmt.Fprintf(w, "  %s\n", textsafe.Line(coverage.Summary(cov), 500))
	if c := man.Run.CodeCoverage; c != nil {
		fmt.Fprintf(w, "  code:    %s\n", CodeLine(c))
	}
	if c := clockLine(man.Run.ServerTime); c != "" {
		fmt.Fprintf(w, "  clock:   %s\n", c)
	}
	writePhases(w, man.Phases)
	writeUnstable(w, man.Run)
	if man.Outcome.Status != m.StatusOK && man.Run.StderrTail != "" {
		fmt.Fprintf(w, "  stderr (last lines):\n%s\n", indent(textsafe.Clean(lastLines(man.Run.StderrTail, 8)), "    | "))
	}
	if len(findings) == 0 {
		fmt.Fprintf(w, "findings: none\n")
	} else {
		counts := policy.Counts(findings)
		var parts []string
		for s := policy.Critical; s >= policy.Info; s-- {
			if n := counts[s.String()]; n > 0 {
				parts = append(parts, fmt.Sprintf("%d %s", n, s))
			}
		}
		fmt.Fprintf(w, "findings: %s\n", strings.Join(parts, ", "))
		for i, f := range findings {
			if i == maxListed {
				fmt.Fprintf(w, "  … %d more in the manifest\n", len(findings)-maxListed)
				break
			}
			writeFinding(w, f)
		}
	}
	writeVerdict(w, findings, pol, coverage.Incomplete(man))
}

// writeVerdict prints the verdict with its real reason (VerdictText)
// and what the audit could not observe.
func writeVerdict(w io.Writer, findings []policy.Finding, pol policy.Policy, incomplete []string) {
	v := policy.Verdict(findings, pol, incomplete)
	fmt.Fprintf(w, "verdict: %s\n", VerdictText(v, findings, pol, incomplete))
	for _, r := range incomplete {
		fmt.Fprintf(w, "  - %s\n", textsafe.Line(r, 1000))
	}
}

func phaseLine(p m.Phase) string {
	var parts []string
	counts := map[string]int{}
	for _, c := range p.FileSummary {
		if c.Result == m.ResultOK && c.Access == m.AccessRead {
			counts[c.Category] += c.Paths
		}
	}
	if n := counts[m.CatOwnPackage] + counts[m.CatRuntime]; n > 0 {
		parts = append(parts, fmt.Sprintf("%d files read (package %d, runtime %d)", n, counts[m.CatOwnPackage], counts[m.CatRuntime]))
	}
	if len(p.Files) > 0 {
		parts = append(parts, fmt.Sprintf("%d other file accesses", len(p.Files)))
	}
	if n := len(p.Processes); n > 0 {
		parts = append(parts, plural(n, "process", "processes"))
	}
	egress := 0
	for _, c := range p.Network {
		if c.Category != m.ConnRuntime && c.Category != m.ConnDNS {
			egress++
		}
	}
	if egress > 0 {
		parts = append(parts, plural(egress, "network endpoint", "network endpoints"))
	}
	if len(p.DNS) > 0 {
		names := map[string]bool{}
		for _, d := range p.DNS {
			names[line(d.Name)] = true
		}
		var ns []string
		for n := range names {
			ns = append(ns, n)
		}
		sort.Strings(ns)
		parts = append(parts, "looked up "+strings.Join(ns, ", "))
	}
	parts = append(parts, canaryParts(p.Canaries)...)
	if len(p.Alerts) > 0 {
		parts = append(parts, plural(len(p.Alerts), "alert", "alerts"))
	}
	if len(p.Requests) > 0 {
		parts = append(parts, plural(len(p.Requests), "request sent", "requests sent"))
	}
	for _, r := range p.ServerRequests {
		parts = append(parts, "server asked for "+line(r.Method)+" ("+line(r.Answer)+")")
	}
	if len(parts) == 0 {
		return "nothing observed"
	}
	return strings.Join(parts, "; ")
}

// line is every server-controlled name in a text report: one line, no
// control or bidi characters, bounded.
func line(s string) string { return textsafe.Line(s, 200) }

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

func wrap(s string, width int, prefix string) string {
	var b strings.Builder
	line := 0
	for i, word := range strings.Split(s, " ") {
		if i > 0 && line+len(word)+1 > width {
			b.WriteString("\n" + prefix)
			line = 0
		} else if i > 0 {
			b.WriteString(" ")
			line++
		}
		b.WriteString(word)
		line += len(word)
	}
	return b.String()
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

func indent(s, prefix string) string {
	return prefix + strings.ReplaceAll(s, "\n", "\n"+prefix)
}

// writeFinding prints one finding of a text report: severity, summary,
// phase, and the evidence on its own line.
func writeFinding(w io.Writer, f policy.Finding) {
	where := ""
	if f.Phase != "" {
		where = " [" + textsafe.Line(f.Where(), 600) + "]"
	}
	fmt.Fprintf(w, "  %-8s %s%s\n", strings.ToUpper(f.Severity.String()), textsafe.Line(f.Summary, 1000), where)
	if f.Evidence != "" {
		fmt.Fprintf(w, "           evidence: %s\n", textsafe.Line(f.Evidence, 2000))
	}
}

// maxUnstable bounds the unstable entries the summary lists.
const maxUnstable = 10

// writeUnstable says what differed between the runs of --runs: how much
// was dropped as noise, and each entry kept because it carries a finding.
func writeUnstable(w io.Writer, run m.Run) {
	if len(run.Unstable)+len(run.UnstableKept) == 0 {
		return
	}
	fmt.Fprintf(w, "  unstable: %d dropped as noise (in run.unstable), %d kept because they carry a finding:\n",
		len(run.Unstable), len(run.UnstableKept))
	for i, u := range run.UnstableKept {
		if i == maxUnstable {
			fmt.Fprintf(w, "    … %d more in run.unstable_kept\n", len(run.UnstableKept)-maxUnstable)
			break
		}
		fmt.Fprintf(w, "    %s\n", line(u))
	}
}

// CodeLine says how much of a Node server's own code ran: "412 of 1380
// functions of the package ran (23 of 31 files loaded; 120 functions of
// files never loaded estimated)".
func CodeLine(c *m.CodeCoverage) string {
	s := fmt.Sprintf("%d of %d functions of the package ran (%d of %d files loaded", c.Ran, c.Functions, c.FilesLoaded, c.Files)
	if c.Estimated > 0 {
		s += fmt.Sprintf("; %d functions of files never loaded estimated", c.Estimated)
	}
	return s + ")"
}
