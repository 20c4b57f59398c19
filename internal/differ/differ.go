// Package differ compares runs of one server that differ in named factors
// — traced or not, the clock shim on or off, which canaries were planted,
// later the protocol era and the environment a server could fingerprint —
// and says what one run showed that another did not, naming the factors
// that differed. A server that behaves only when it is not watched, only
// in one protocol era or only under one environment shows here, whatever
// trick it used to tell the runs apart: the comparison is of effects seen
// from outside the server's processes (canaries read, sent, written or
// shown; hosts contacted; programs opened; home files changed), not of the
// tricks.
//
// The witness comparison (witness.go) is its first user: the traced run
// against the same server untraced.
package differ

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/mcp-audit/mcp-audit/internal/hosts"
	m "github.com/mcp-audit/mcp-audit/internal/manifest"
)

// Factor is one named condition of a run and its value ("tracer" "on").
type Factor struct{ Name, Value string }

// Run is one run in a comparison: its manifest, what the sandbox saw of it
// from outside (nil: nothing beyond the manifest), and its factors.
type Run struct {
	Name     string
	Factors  []Factor
	Manifest *m.Manifest
	Outside  *Outside
}

// Difference is something one run showed that the run it was compared
// with did not: keyed by subject ("host exfil.example", "canary
// env:GITHUB_TOKEN sent", "process /usr/bin/curl"), with the evidence of
// the run that showed it and the factors in which the two runs differed.
type Difference struct {
	Subject  string
	Evidence []string
	Factors  []Factor
}

// maxEvidence bounds the evidence kept per subject.
const maxEvidence = 3

// OnlyIn lists what other showed that base did not, by subject, sorted.
// Canaries only other planted are left out (they are other's theft, not a
// difference). extra are subjects the caller found beyond the manifests
// (the outside view's programs and home files, see OutsideOnlyIn).
func OnlyIn(base, other Run, extra map[string][]string) []Difference {
	seen := Observations(base.Manifest, base.Manifest)
	only := Observations(other.Manifest, base.Manifest)
	for k, v := range extra {
		only[k] = v
	}
	factors := differing(base.Factors, other.Factors)
	var out []Difference
	for subject, ev := range only {
		if _, ok := seen[subject]; !ok {
			out = append(out, Difference{Subject: subject, Evidence: ev, Factors: factors})
		}
	}
	slices.SortFunc(out, func(a, b Difference) int { return cmp.Compare(a.Subject, b.Subject) })
	return out
}

// differing are the factors of b whose value differs from a's (a factor
// only one run names counts).
func differing(a, b []Factor) []Factor {
	var out []Factor
	for _, f := range b {
		i := slices.IndexFunc(a, func(g Factor) bool { return g.Name == f.Name })
		if i < 0 || a[i].Value != f.Value {
			out = append(out, f)
		}
	}
	return out
}

// Observations maps what a run did that can be seen from outside the
// server's processes (canaries read, sent, written or shown; hosts
// contacted, by registrable domain, so random labels do not count;
// connections to bare addresses) to its evidence. Hits of variables base
// did not plant are left out.
func Observations(man, base *m.Manifest) map[string][]string {
	out := map[string][]string{}
	add := func(subject, phase, evidence string) {
		if strings.HasSuffix(subject, " ") {
			return // a host without a name
		}
		if len(out[subject]) < maxEvidence {
			out[subject] = append(out[subject], phase+": "+evidence)
		}
	}
	for _, ph := range man.Phases {
		for _, h := range ph.Canaries {
			if NotPlantedIn(base, h.Canary) {
				continue
			}
			if verb := canaryVerb(h.How); verb != "" {
				add("canary "+h.Canary+" "+verb, ph.Name, h.Evidence)
			}
		}
		for _, q := range ph.DNS {
			add("host "+hosts.Registrable(q.Name), ph.Name, "looked up "+q.Name)
		}
		for _, r := range ph.Requests {
			add("host "+hosts.Registrable(r.Host), ph.Name, r.Method+" "+r.Host)
		}
		for _, c := range ph.Network {
			if c.Category != m.ConnEgress {
				continue
			}
			if c.Name != "" {
				add("host "+hosts.Registrable(c.Name), ph.Name, c.Op+" "+c.Name)
			} else if c.Address != "" {
				// A connection to an address, not a name: by address and
				// port. What the sink saw on it is evidence, not the
				// subject: a run stopped a moment sooner saw the same
				// connection with no bytes yet.
				add(fmt.Sprintf("connection %s %s:%d", c.Proto, c.Address, c.Port), ph.Name,
					fmt.Sprintf("%s %s (sink saw: %s)", c.Op, c.Address, cmp.Or(c.Protocol, unseen)))
			}
		}
	}
	for k, v := range out {
		slices.Sort(v)
		out[k] = v
	}
	return out
}

// unseen is what the sink saw on a connection it has no record of (a
// datagram's original address is the trace's).
const unseen = "unseen"

// NotPlantedIn says whether a canary hit is of a variable the run did not
// plant: runs plant different subsets, so one run's theft of a variable
// only it had says nothing about the factors.
func NotPlantedIn(man *m.Manifest, canaryName string) bool {
	n, ok := strings.CutPrefix(canaryName, "env:")
	return ok && !slices.Contains(man.Run.CanaryEnv, n)
}

// canaryVerb groups the ways a canary shows by what an outside observer
// can see: a read (the trace's or the access-time witness's), data sent
// to the network, a file written, text given to the client. Ways only the
// trace sees (argv, renames) have no verb.
func canaryVerb(how string) string {
	switch how {
	case m.HowFileRead, m.HowFileReadWitness:
		return "read"
	case m.HowSent:
		return "sent"
	case m.HowWrittenToFile:
		return "written to a file"
	case m.HowMCPOutput, m.HowServerRequest, m.HowNotification, m.HowStderr, m.HowStdout:
		return "shown to the client"
	}
	return ""
}
