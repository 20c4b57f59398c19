// Package policy turns observed behavior into findings with severities and
// decides the verdict. Severities follow the defaults in docs/policy.md;
// users relax them per server with allow-lists (hosts, paths, processes).
//
// Findings state what was observed, with evidence; the severity, not the
// wording, carries the judgement.
//
// Each behavior kind is judged in its own file (canaries.go, files.go,
// processes.go, network.go, alerts.go, and injection.go for the tools'
// descriptions); Evaluate runs them and orders the result.
package policy

import (
	"cmp"
	"slices"
	"strings"

	m "github.com/mcp-audit/mcp-audit/internal/manifest"
)

// Finding kinds.
const (
	KindCanary        = "canary"
	KindCredential    = "credential" // a credential the server was given, and where it went
	KindPersistence   = "persistence-write"
	KindAIConfig      = "ai-client-config"
	KindSensitive     = "sensitive-file"
	KindAntiAnalysis  = "anti-analysis"
	KindHost          = "host"
	KindListener      = "listener"
	KindProcess       = "process"
	KindShell         = "shell"
	KindEscape        = "escape-attempt"
	KindSystemFile    = "system-file"
	KindWrite         = "write"
	KindOutcome       = "outcome"
	KindTool          = "tool"
	KindTrace         = "trace"
	KindInstallScript = "install-script"
	KindMessage       = "server-message" // what the server said outside its answers
	KindUserFile      = "user-file"      // the content of the user's files, where it went
	KindDerived       = "secret-derived" // output that follows the planted values, whatever its encoding
	KindEnvironment   = "environment"    // behaviour present under one run's environment and not another's
	// KindDestroyed is a file of the user's destroyed: deleted, cut,
	// rewritten or moved away (userdata.go).
	KindDestroyed = "destroyed-file"
	// KindContract is a tool whose call did what its annotations say it
	// does not (contract.go).
	KindContract = "tool-contract"
	// KindEra is a server that offers or does otherwise in one protocol
	// era than in the other (eras.go).
	KindEra = "era"
	// KindApp is what an MCP Apps page reaches or asks for (apps.go).
	KindApp = "app"
)

// Finding is one policy-relevant observation.
type Finding struct {
	Severity Severity `json:"severity"`
	Kind     string   `json:"kind"`
	Phase    string   `json:"phase"`
	// Subject is what the finding is about (a path, host, program); it and
	// Kind identify the finding across versions.
	Subject  string `json:"subject"`
	Summary  string `json:"summary"`
	Evidence string `json:"evidence,omitempty"`
	// Calls are the call phases an aggregated finding covers (Phase is then
	// PhaseCalls): one finding per thing, not one per call.
	Calls []string `json:"calls,omitempty"`
}

// PhaseCalls is the phase of a finding aggregated over tool calls, prompt
// gets and resource reads.
const PhaseCalls = "calls"

// Key identifies a finding independent of wording, for diffs and dedupe.
func (f Finding) Key() string { return f.Kind + "\x00" + f.Phase + "\x00" + f.Subject }

// Policy configures evaluation.
type Policy struct {
	Allow  Allow
	FailOn Severity
	// AllowIncomplete turns an incomplete verdict into a pass with a
	// warning (--allow-incomplete, allow_incomplete: in mcp-audit.yml).
	AllowIncomplete bool
}

// Verdict decides: fail when a finding is at or above the threshold or
// harmful (Failed), else incomplete when the audit could not observe what
// a verdict needs (incomplete: the reasons, internal/coverage) unless the
// policy allows it, else pass. Under fail_on none nothing fails, and an
// incomplete audit is still called so (the exit status is the caller's
// to decide: report only).
func Verdict(fs []Finding, pol Policy, incomplete []string) string {
	switch {
	case Failed(fs, pol.FailOn):
		return m.VerdictFail
	case len(incomplete) > 0 && !pol.AllowIncomplete:
		return m.VerdictIncomplete
	}
	return m.VerdictPass
}

// DefaultFailOn is the threshold used when none is configured.
const DefaultFailOn = High

// phaseEval is one phase under evaluation, with what its per-kind
// evaluators share.
type phaseEval struct {
	man   *m.Manifest
	pol   Policy
	phase m.Phase
	// hosts are the hosts already reported in this phase: a name looked up
	// and then contacted is one finding.
	hosts map[string]bool
	// egress is the manifest's context for judging hosts.
	egress *egressContext
	// late are the hosts used after the phase's call was answered (nil
	// until hostFinding first needs them).
	late map[string]bool
	// own are the distinctive words of the server's names (owndata.go).
	own map[string]bool
	// bg are the hosts and paths used outside any call (nil until
	// contract.go first needs them).
	bg map[string]bool
}

// phaseEvaluators list the findings of one behavior kind in a phase. They
// run in this order so findings that dedupe keep the same survivor.
var phaseEvaluators = []func(*phaseEval) []Finding{
	canaryFindings,
	fileFindings,
	processFindings,
	dnsFindings,
	networkFindings,
	alertFindings,
	messageFindings,
	userDataFindings,
	contractFindings,
	probeFindings,
}

// Evaluate lists the findings in a manifest, sorted most severe first.
func Evaluate(man *m.Manifest, pol Policy) []Finding {
	var out []Finding
	egress, own := newEgressContext(man), ownTokens(man)
	for _, ph := range man.Phases {
		pe := &phaseEval{man: man, pol: pol, phase: ph, hosts: map[string]bool{}, egress: egress, own: own}
		for _, evaluate := range phaseEvaluators {
			out = append(out, evaluate(pe)...)
		}
	}
	out = append(out, injectionFindings(man)...)
	out = append(out, listChangeFindings(man)...)
	out = append(out, outcomeFindings(man)...)
	out = append(out, witnessFindings(man, egress)...)
	out = append(out, derivedFindings(man)...)
	out = append(out, xheaderFindings(man)...)
	out = append(out, eraFindings(man)...)
	out = append(out, appFindings(man)...)
	out = append(out, argProbeFindings(man)...)
	out = append(out, supplyFindings(man)...)
	slices.SortStableFunc(out, func(a, b Finding) int {
		return cmp.Or(cmp.Compare(b.Severity, a.Severity), strings.Compare(a.Kind, b.Kind),
			cmp.Compare(m.PhaseRank(a.Phase), m.PhaseRank(b.Phase)), strings.Compare(a.Phase, b.Phase), strings.Compare(a.Subject, b.Subject))
	})
	out = slices.CompactFunc(out, func(a, b Finding) bool { return a.Key() == b.Key() && a.Severity == b.Severity })
	return aggregate(out)
}

// outcomeFindings report a server that did not run to the end normally:
// its behavior may be incomplete.
func outcomeFindings(man *m.Manifest) []Finding {
	switch man.Outcome.Status {
	case m.StatusOK:
		return nil
	case m.StatusKilled:
		return []Finding{{Severity: Low, Kind: KindOutcome, Phase: "", Subject: man.Outcome.Status, Summary: "the server was killed: " + man.Outcome.Reason, Evidence: ""}}
	}
	return []Finding{{Severity: Info, Kind: KindOutcome, Phase: "", Subject: man.Outcome.Status, Summary: "the server did not run normally: " + man.Outcome.Reason, Evidence: ""}}
}

// Failed reports whether any finding is at or above the threshold, or is
// harmful in itself (see Harmful) under any threshold: a fail_on of
// critical cannot launder a credential read. Only "none" (report only,
// never a gate) fails nothing.
func Failed(fs []Finding, failOn Severity) bool {
	for _, f := range fs {
		if f.Severity >= failOn || Harmful(f) && failOn <= Critical {
			return true
		}
	}
	return false
}

// Counts returns the number of findings per severity name.
func Counts(fs []Finding) map[string]int {
	c := map[string]int{}
	for _, f := range fs {
		c[f.Severity.String()]++
	}
	return c
}
