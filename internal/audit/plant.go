package audit

import (
	"slices"
	"strings"

	"github.com/mcp-audit/mcp-audit/internal/canary"
	m "github.com/mcp-audit/mcp-audit/internal/manifest"
)

// plantChoice is which canary variables a run of the server seed
// (pkg@version) plants: the declared ones, and a subset of the other
// provider variables that changes with the run (all of them with
// AllCanaries).
func plantChoice(o Options, seed string) canary.Choice {
	return canary.Choice{Declared: o.CanaryEnv, Seed: seed, Run: o.Run, All: o.AllCanaries}
}

// unionSorted is the sorted, distinct names of a and b.
func unionSorted(a, b []string) []string {
	out := append(slices.Clone(a), b...)
	slices.Sort(out)
	return slices.Compact(out)
}

// swapCanaryEnv replaces the variables of old in env by those of cur, in
// their place: the client's environment before, --env after.
func swapCanaryEnv(env []string, old, cur *canary.Set) []string {
	at := -1
	out := make([]string, 0, len(env))
	for _, e := range env {
		if slices.Contains(old.EnvList(), e) {
			if at < 0 {
				at = len(out)
			}
			continue
		}
		out = append(out, e)
	}
	if at < 0 {
		at = len(out)
	}
	return slices.Insert(out, at, cur.EnvList()...)
}

// notPlantedIn says whether a canary hit is of a variable the traced run
// did not plant: the witness run plants a different subset, so its theft
// of such a variable says nothing about tracing.
func notPlantedIn(traced *m.Manifest, canaryName string) bool {
	n, ok := strings.CutPrefix(canaryName, "env:")
	return ok && !slices.Contains(traced.Run.CanaryEnv, n)
}

// addWitnessOnlyCanaries copies into the traced manifest the witness
// run's hits of variables only it planted, marked as the witness run's,
// so they give the usual canary findings.
func addWitnessOnlyCanaries(traced, witness *m.Manifest) {
	for _, wp := range witness.Phases {
		for _, h := range wp.Canaries {
			if !notPlantedIn(traced, h.Canary) {
				continue
			}
			ph := traced.PhaseByName(wp.Name)
			if ph == nil {
				ph = traced.PhaseByName(m.PhaseStartup)
			}
			if ph == nil {
				continue
			}
			h.Evidence = "witness run: " + h.Evidence
			ph.Canaries = append(ph.Canaries, h)
		}
	}
}
