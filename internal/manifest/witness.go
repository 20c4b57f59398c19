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
}

func compareWitness(a, b WitnessDifference) int {
	return cmp.Or(strings.Compare(a.Subject, b.Subject), strings.Compare(a.Traced, b.Traced), strings.Compare(a.Witness, b.Witness))
}
