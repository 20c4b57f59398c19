package merge

import (
	"cmp"
	"slices"

	"github.com/mcp-audit/mcp-audit/internal/diff"
	m "github.com/mcp-audit/mcp-audit/internal/manifest"
)

// mergeRuns adds to out, the manifest kept from the first run, what the
// other runs showed that carries a finding outside the phases: every
// run's witness differences and list changes, and the tools, prompts,
// resources and templates a later run offered differently from the first
// (a server that changes its offer from one session to the next is a rug
// pull like one that changes it within a session). Texts are compared
// with their random labels normalized, so a nonce in a description is not
// a change. Phases are merged by intersect.
// maxMerged bounds the witness differences and list changes kept.
const maxMerged = 500

func mergeRuns(out *m.Manifest, mans []*m.Manifest) {
	seenW := map[m.WitnessDifference]bool{}
	for _, w := range out.Witness {
		seenW[w] = true
	}
	seenC := map[string]bool{}
	for _, c := range out.ListChanges {
		seenC[c.List+"\x00"+c.Name+"\x00"+c.Field] = true
	}
	addChange := func(c m.ListChange) {
		if k := c.List + "\x00" + c.Name + "\x00" + c.Field; !seenC[k] {
			seenC[k] = true
			out.ListChanges = append(out.ListChanges, c)
		}
	}
	for _, man := range mans {
		if man == out {
			continue
		}
		for _, w := range man.Witness {
			if !seenW[w] {
				seenW[w] = true
				out.Witness = append(out.Witness, w)
			}
		}
		for _, c := range man.ListChanges {
			addChange(c)
		}
		for _, c := range runChanges(out, man) {
			addChange(c)
		}
	}
	slices.SortFunc(out.Witness, func(a, b m.WitnessDifference) int {
		return cmp.Or(cmp.Compare(a.Subject, b.Subject), cmp.Compare(a.Traced, b.Traced), cmp.Compare(a.Witness, b.Witness))
	})
	slices.SortFunc(out.ListChanges, func(a, b m.ListChange) int {
		return cmp.Or(cmp.Compare(a.List, b.List), cmp.Compare(a.Name, b.Name), cmp.Compare(a.Field, b.Field))
	})
	if len(out.ListChanges) > maxMerged {
		out.ListChanges = out.ListChanges[:maxMerged]
	}
	if len(out.Witness) > maxMerged {
		out.Witness = out.Witness[:maxMerged]
	}
}

// runChanges compares what a later run offered with the first run's
// offer, with random labels as placeholders, each change marked as
// between runs.
func runChanges(first, later *m.Manifest) []m.ListChange {
	out := diff.Offers(first, later, m.NormalizeLabels)
	for i := range out {
		out[i].Between = m.BetweenRuns
	}
	return out
}
