package manifest

import (
	"cmp"
	"strings"
)

// WitnessDifference is one thing the witness run saw that the traced run
// did not: a server that behaves differently when traced.
type WitnessDifference struct {
	// Subject is what differed: "canary env:GITHUB_TOKEN sent", "canary
	// file:~/.ssh/id_rsa read" or "host evil.example".
	Subject string `json:"subject"`
	// Traced is what the traced run saw of it ("nothing").
	Traced string `json:"traced"`
	// Witness is what the witness run saw: the evidence of its hits.
	Witness string `json:"witness"`
	// Only is "traced" for what only the traced run did (the witness run
	// showed nothing of it); empty for what only the witness run did.
	Only string `json:"only,omitempty"`
	// Factors are what differed between the two runs (the tracer, the
	// clock, the host name, the client, …).
	Factors string `json:"factors,omitempty"`
	// AlsoTraced names the other traced runs (the calibration and secrets
	// runs) that showed a host only the witness run showed of the
	// primary's pair: it was contacted under the tracer too.
	AlsoTraced string `json:"also_traced,omitempty"`
}

func compareWitness(a, b WitnessDifference) int {
	return cmp.Or(strings.Compare(a.Only, b.Only), strings.Compare(a.Subject, b.Subject), strings.Compare(a.Traced, b.Traced), strings.Compare(a.Witness, b.Witness))
}
