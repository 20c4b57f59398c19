package report

import (
	"cmp"
	"slices"
	"strings"

	m "github.com/mcp-audit/mcp-audit/internal/manifest"
	"github.com/mcp-audit/mcp-audit/internal/policy"
)

// Harm is what orders servers in every multi-server report, most harmful
// first: the verdict (fail, then incomplete, then pass), then the worst
// severity, then the harm class of the findings at it, then how many
// findings there are at each severity. A server failing with five high
// findings sits above every passing one, whatever the passing ones'
// kinds; a medium read of the decoy .env is not a canary theft.
type Harm struct {
	verdict int // 2 fail, 1 incomplete, 0 pass
	worst   int // the worst severity + 1; 0 without findings
	class   int // HarmClass of the worst findings
	counts  [5]int
}

// Harm classes, most harmful last.
const (
	ClassNone    = iota // no finding
	ClassObserve        // findings that are not harmful in themselves
	ClassHarm           // harmful: persistence, AI client, credential files, text aimed at the model, a cut trace
	ClassCanary         // harmful canary: a planted credential read, sent or shown
)

// HarmClass is the class of one finding.
func HarmClass(f policy.Finding) int {
	switch {
	case RealCanary(f):
		return ClassCanary
	case policy.Harmful(f):
		return ClassHarm
	}
	return ClassObserve
}

// RealCanary reports a finding that touched a planted canary the server
// was never given: a canary finding at high or above. The medium read of
// the decoy .env (dotenv at startup) is a canary finding but no theft.
func RealCanary(f policy.Finding) bool {
	return f.Kind == policy.KindCanary && f.Severity >= policy.High
}

// HarmOf ranks a server by its verdict and findings.
func HarmOf(verdict string, fs []policy.Finding) Harm {
	h := Harm{verdict: map[string]int{m.VerdictFail: 2, m.VerdictIncomplete: 1}[verdict]}
	for _, f := range fs {
		sev := min(max(int(f.Severity), 0), int(policy.Critical))
		h.counts[int(policy.Critical)-sev]++
		switch {
		case sev+1 > h.worst:
			h.worst, h.class = sev+1, HarmClass(f)
		case sev+1 == h.worst:
			h.class = max(h.class, HarmClass(f))
		}
	}
	return h
}

// Compare orders a before b when a is more harmful (a negative result).
func (a Harm) Compare(b Harm) int {
	return cmp.Or(-cmp.Compare(a.verdict, b.verdict), -cmp.Compare(a.worst, b.worst),
		-cmp.Compare(a.class, b.class), -slices.Compare(a.counts[:], b.counts[:]))
}

// harmOf ranks a report; an audit that could not run ranks with the
// failures (its check fails), below those with findings.
func harmOf(r DiffReport) Harm {
	if r.Result == nil {
		return Harm{verdict: 2}
	}
	return HarmOf(r.Result.Verdict, r.Result.Findings)
}

// Ordered returns the reports most harmful first, by name within equal
// harm; the input is not changed.
func Ordered(reports []DiffReport) []DiffReport {
	out := slices.Clone(reports)
	slices.SortStableFunc(out, func(a, b DiffReport) int {
		return cmp.Or(harmOf(a).Compare(harmOf(b)), strings.Compare(a.Server, b.Server))
	})
	return out
}
