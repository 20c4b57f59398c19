package batch

import (
	"bytes"
	"cmp"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/mcp-audit/mcp-audit/internal/coverage"
	m "github.com/mcp-audit/mcp-audit/internal/manifest"
	"github.com/mcp-audit/mcp-audit/internal/policy"
	"github.com/mcp-audit/mcp-audit/internal/report"
	"github.com/mcp-audit/mcp-audit/internal/textsafe"
)

// grouped collects, per server, labels with the phases they were seen in.
type grouped map[string]map[string][]string

func (g grouped) add(server, label, phase string) {
	if g[server] == nil {
		g[server] = map[string][]string{}
	}
	g[server][label] = append(g[server][label], phase)
}

// render writes one line per server: each label once, with up to three
// of its phases.
func (g grouped) render(b *bytes.Buffer, title, intro string) {
	if len(g) == 0 {
		return
	}
	fmt.Fprintf(b, "\n## %s\n\n", title)
	if intro != "" {
		fmt.Fprintf(b, "%s\n\n", intro)
	}
	var servers []string
	for s := range g {
		servers = append(servers, s)
	}
	sort.Strings(servers)
	for _, s := range servers {
		var labels []string
		for l := range g[s] {
			labels = append(labels, l)
		}
		sort.Strings(labels)
		var items []string
		for _, l := range labels {
			items = append(items, l+" "+phaseList(g[s][l]))
		}
		fmt.Fprintf(b, "* **%s**: %s\n", md(s), md(strings.Join(items, "; ")))
	}
}

func phaseList(phases []string) string {
	phases = uniq(phases)
	if len(phases) > 3 {
		return fmt.Sprintf("[%s, +%d more]", strings.Join(phases[:3], ", "), len(phases)-3)
	}
	return "[" + strings.Join(phases, ", ") + "]"
}

// destination reduces network evidence ("https POST host/path") to the
// host, so one line per credential and host is enough.
func destination(evidence string) string {
	f := strings.Fields(evidence)
	if len(f) >= 3 && (f[0] == "http" || f[0] == "https") {
		host, _, _ := strings.Cut(f[2], "/")
		return host
	}
	return evidence
}

// unprompted phases run without the audit asking for anything.
func unprompted(phase string) bool { return phase == m.PhaseStartup || phase == m.PhaseIdle }

// results renders RESULTS.md in the shape of the original study: headline
// counts, then who did what, then the failures with their reasons.
func results(es []entry, now string) []byte {
	var b bytes.Buffer
	g := gather(es)
	g.headline(&b, len(es), now)
	g.hosts.render(&b, "Outbound, by server", "Hosts by name as the sinkhole saw them, with the phases that contacted them (`startup`, `idle`, `call:<tool>`, `install`).")
	g.creds.render(&b, "Credentials given, and where they went", "")
	g.sensitive.render(&b, "Sensitive files", "")
	g.canary.render(&b, "Canaries", "Planted credentials the server was never given, read, sent or shown.")
	g.dotenv.render(&b, "The workspace .env, read", "The decoy .env of the working directory, which dotenv loads at startup (medium: a value from it sent anywhere is a canary finding).")
	g.procs.render(&b, "Processes", "")
	g.installs.render(&b, "Install scripts", "")
	g.injections.render(&b, "Text aimed at the model, and offers that changed", "Tool, prompt and resource text with instructions for the model, and items whose text changed or that were offered only after the calls (a session's own rug pull, or a server that adds what it creates).")
	failures(&b, g.failed)
	allServers(&b, es)
	return b.Bytes()
}

// gathered sorts a batch's servers and findings into what RESULTS.md
// counts and lists.
type gathered struct {
	ok, clean, failed []entry
	// One group per section, by server.
	hosts, creds, sensitive, canary, dotenv, procs, installs, injections grouped
	// verdicts counts the servers by verdict; one not audited counts as
	// incomplete.
	verdicts map[string]int
	// Servers that contacted hosts, by when: a host contacted unprompted
	// matters more than one a tool call asked for.
	hostsUnprompted, hostsCalls, hostsInstall map[string]bool
	// tally is what the audited servers' calls answered, together.
	tally coverage.Tally
}

func gather(es []entry) *gathered {
	g := &gathered{hosts: grouped{}, creds: grouped{}, sensitive: grouped{}, canary: grouped{}, dotenv: grouped{}, procs: grouped{},
		installs: grouped{}, injections: grouped{},
		hostsUnprompted: map[string]bool{}, hostsCalls: map[string]bool{}, hostsInstall: map[string]bool{}, verdicts: map[string]int{}}
	for _, e := range es {
		g.verdicts[verdictOf(e)]++
		g.tally.Add(e.man)
		if e.man == nil {
			g.failed = append(g.failed, e)
			continue
		}
		if e.man.Outcome.Status != m.StatusOK {
			g.failed = append(g.failed, e)
		} else {
			g.ok = append(g.ok, e)
		}
		noteworthy := false
		for _, f := range e.Findings {
			if f.Severity >= policy.Medium && f.Kind != policy.KindCredential {
				noteworthy = true
			}
			g.add(e.Server, f)
		}
		if !noteworthy && e.man.Outcome.Status == m.StatusOK {
			g.clean = append(g.clean, e)
		}
	}
	return g
}

// add files a finding under its group.
func (g *gathered) add(server string, f policy.Finding) {
	if len(f.Calls) > 0 {
		// An aggregated finding: filed under each call it covers.
		for _, c := range f.Calls {
			one := f
			one.Phase, one.Calls = c, nil
			g.add(server, one)
		}
		return
	}
	switch f.Kind {
	case policy.KindHost, policy.KindTelemetry:
		g.hosts.add(server, f.Subject, f.Phase)
		switch {
		case f.Phase == m.PhaseInstall:
			g.hostsInstall[server] = true
		case unprompted(f.Phase):
			g.hostsUnprompted[server] = true
		default:
			g.hostsCalls[server] = true
		}
	case policy.KindCredential:
		g.creds.add(server, strings.TrimSuffix(f.Subject, " sent")+" → "+destination(f.Evidence), f.Phase)
	case policy.KindSensitive, policy.KindAIConfig, policy.KindPersistence:
		g.sensitive.add(server, f.Summary+": "+f.Subject, f.Phase)
	case policy.KindCanary:
		if report.RealCanary(f) {
			g.canary.add(server, f.Subject, f.Phase)
		} else {
			g.dotenv.add(server, f.Subject, f.Phase)
		}
	case policy.KindProcess, policy.KindShell:
		if f.Phase == m.PhaseInstall {
			g.installs.add(server, f.Evidence, f.Phase)
		} else {
			g.procs.add(server, f.Evidence, f.Phase)
		}
	case policy.KindInstallScript:
		g.installs.add(server, f.Evidence, f.Phase)
	case policy.KindTool:
		g.injections.add(server, f.Subject+": "+f.Evidence, "description")
	}
}

func (g *gathered) headline(b *bytes.Buffer, servers int, now string) {
	onlyCalls := 0
	for s := range g.hostsCalls {
		if !g.hostsUnprompted[s] {
			onlyCalls++
		}
	}
	fmt.Fprintf(b, "# mcp-audit results\n\nGenerated %s by mcp-audit from %d server(s). Every server ran in the sandbox: "+
		"install scripts, startup, every tool, prompt and resource called with synthesized arguments, idle; network in the "+
		"sinkhole unless configured otherwise, so nothing reached a real host. A finding is an observation with evidence, "+
		"not an accusation.\n\n", now, servers)
	fmt.Fprintf(b, "## Headline\n\n")
	fmt.Fprintf(b, "* **%d** fail policy, **%d** are incomplete or could not be audited, **%d** pass; the table at the end lists every server, most harmful first.\n",
		g.verdicts[m.VerdictFail], g.verdicts[m.VerdictIncomplete], g.verdicts[m.VerdictPass])
	fmt.Fprintf(b, "* **%d** ran normally; **%d** of them with no finding at medium or above (clean).\n", len(g.ok), len(g.clean))
	fmt.Fprintf(b, "* Exercised, %s.\n", md(g.tally.String()))
	fmt.Fprintf(b, "* **%d** contacted or looked up hosts unprompted, at startup or idle; **%d** more only when a tool was called; "+
		"**%d** had install scripts that did.\n", len(g.hostsUnprompted), onlyCalls, len(g.hostsInstall))
	fmt.Fprintf(b, "* **%d** sent the credential they were given (a canary standing in for their API key) — where to is listed below.\n", len(g.creds))
	fmt.Fprintf(b, "* **%d** touched credential, private, shell-startup or AI-client files.\n", len(g.sensitive))
	fmt.Fprintf(b, "* **%d** touched a canary they were not given (a planted fake credential); **%d** read the workspace .env at startup (dotenv).\n", len(g.canary), len(g.dotenv))
	fmt.Fprintf(b, "* **%d** started processes while running (**%d** during install scripts).\n", len(g.procs), len(g.installs))
	fmt.Fprintf(b, "* **%d** offer tool or prompt text aimed at the model, or changed what they offer during the session.\n", len(g.injections))
	fmt.Fprintf(b, "* **%d** did not run normally or could not be audited (reasons below).\n", len(g.failed))
}

func failures(b *bytes.Buffer, failed []entry) {
	if len(failed) == 0 {
		return
	}
	fmt.Fprintf(b, "\n## Did not run normally\n\n")
	for _, e := range failed {
		fmt.Fprintf(b, "* **%s** (%s): %s — %s\n", md(e.Server), md(e.Target), status(e), md(e.Reason))
	}
}

// allServers is the table of every server, most harmful first (the
// order of every report: verdict, worst severity, harm class, counts).
func allServers(b *bytes.Buffer, es []entry) {
	fmt.Fprintf(b, "\n## All servers\n\nMost harmful first.\n\n| server | version | status | verdict | critical | high | medium | low | exercised |\n|---|---|---|---|---|---|---|---|---|\n")
	es = slices.Clone(es)
	slices.SortStableFunc(es, func(a, b entry) int { return cmp.Or(rankOf(a).Compare(rankOf(b)), strings.Compare(a.Server, b.Server)) })
	for _, e := range es {
		fmt.Fprintf(b, "| %s | %s | %s | %s | %d | %d | %d | %d | %s |\n", md(e.Server), md(e.Version), status(e), e.Verdict,
			e.Counts["critical"], e.Counts["high"], e.Counts["medium"], e.Counts["low"], md(strings.TrimPrefix(e.Coverage, "exercised: ")))
	}
}

// status is the manifest's outcome, or "not audited".
func status(e entry) string {
	if e.Status == StatusFailed {
		return "not audited"
	}
	return e.Outcome
}

func uniq(s []string) []string {
	sort.Strings(s)
	var out []string
	for i, x := range s {
		if i == 0 || x != s[i-1] {
			out = append(out, x)
		}
	}
	return out
}

// md escapes text from manifests for Markdown.
func md(s string) string { return textsafe.Markdown(s, 600) }

// verdictOf is an entry's verdict; one not audited is incomplete.
func verdictOf(e entry) string {
	if e.Status == StatusFailed || e.man == nil || e.Verdict == "" {
		return m.VerdictIncomplete
	}
	return e.Verdict
}
