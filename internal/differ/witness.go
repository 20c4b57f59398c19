package differ

import (
	"slices"
	"strings"

	m "github.com/mcp-audit/mcp-audit/internal/manifest"
)

// A traced process can always tell it is traced (TracerPid in
// /proc/self/status, its parent's name), so a server can stay dormant
// under the tracer. The witness run is the same server, the same
// canaries and the same calls, without the tracer and the clock shim,
// observed only from outside its processes. Whatever it shows there and
// not in the traced run is a difference the policy judges critical.

// Witness lists what the witness run showed from outside the server that
// the traced run did not show at all, in the manifest's form.
//
// also are the other traced runs (the calibration and secrets runs): a
// host the witness run contacted and the primary did not, but one of them
// did, was contacted under the tracer too (Chromium's background
// requests come as its timers decide: chrome-devtools-mcp's
// play.googleapis.com), and the difference names those runs (AlsoTraced).
// Only hosts: a canary hit is judged as one wherever it happened.
func Witness(traced, witness Run, also ...Run) []m.WitnessDifference {
	extra := OutsideOnlyIn(traced.Outside, witness.Outside, Programs(traced))
	tells := tracerTells(traced.Manifest)
	seen := make([]map[string][]string, len(also))
	for i, a := range also {
		seen[i] = Observations(a.Manifest, a.Manifest)
	}
	var out []m.WitnessDifference
	for _, d := range OnlyIn(traced, witness, extra) {
		host := strings.HasPrefix(d.Subject, "host ")
		var in []string
		for i, a := range also {
			if _, ok := seen[i][d.Subject]; ok && host {
				in = append(in, a.Name)
			}
		}
		out = append(out, m.WitnessDifference{Subject: d.Subject, Traced: "nothing" + tells, Witness: strings.Join(d.Evidence, "; "),
			Factors: factorNames(d.Factors), AlsoTraced: strings.Join(in, ", ")})
	}
	// What only the traced run did: judged by the ordinary rules there,
	// and named with the factors that differed (a check that fires only
	// when the clock is years ahead stays what it is). Canaries, hosts and
	// connections only: the witness's file watcher sees fewer programs
	// than the trace does, and a connection the sink saw nothing on even
	// in the traced run (a datagram's original address is the trace's)
	// cannot show in the witness run at all.
	for _, d := range OnlyIn(witness, traced, nil) {
		if strings.HasPrefix(d.Subject, "connection ") && !slices.ContainsFunc(d.Evidence, func(e string) bool {
			return !strings.HasSuffix(e, "(sink saw: "+unseen+")")
		}) {
			continue
		}
		out = append(out, m.WitnessDifference{Subject: d.Subject, Traced: strings.Join(d.Evidence, "; "), Witness: "nothing",
			Only: "traced", Factors: factorNames(d.Factors)})
	}
	return out
}

// factorNames lists the factors' names.
func factorNames(fs []Factor) string {
	var names []string
	for _, f := range fs {
		names = append(names, f.Name)
	}
	return strings.Join(names, ", ")
}

// AddOnlyPlanted copies into base the other run's canary hits of
// variables only the other run planted, marked with its name, so they
// give the usual canary findings (runs plant different subsets of the
// provider variables, so together they plant more of them).
func AddOnlyPlanted(base, other *m.Manifest, name string) {
	for _, wp := range other.Phases {
		for _, h := range wp.Canaries {
			if !NotPlantedIn(base, h.Canary) {
				continue
			}
			ph := base.PhaseByName(wp.Name)
			if ph == nil {
				ph = base.PhaseByName(m.PhaseStartup)
			}
			if ph == nil {
				continue
			}
			h.Evidence = name + ": " + h.Evidence
			ph.Canaries = append(ph.Canaries, h)
		}
	}
}

// tracerTells names the reads by which the traced run could have noticed
// the tracer, for the evidence.
func tracerTells(man *m.Manifest) string {
	var paths []string
	for _, ph := range man.Phases {
		for _, f := range ph.Files {
			if f.Category == m.CatAntiAnalysis && !slices.Contains(paths, f.Path) {
				paths = append(paths, f.Path)
			}
		}
	}
	if len(paths) == 0 {
		return ""
	}
	slices.Sort(paths)
	if len(paths) > 3 {
		paths = paths[:3]
	}
	return " (it read " + strings.Join(paths, ", ") + ")"
}
