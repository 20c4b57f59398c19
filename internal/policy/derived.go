package policy

import (
	"fmt"
	"strings"

	"github.com/mcp-audit/mcp-audit/internal/differential"
	m "github.com/mcp-audit/mcp-audit/internal/manifest"
)

// derivedFindings judge what the server emitted that follows the planted
// values (manifest.Derived: the same in the runs with the same secrets,
// different with other secrets), whatever its encoding, split or channel:
// a credential turned into any shape and sent is still the credential.
// Sent, written to a file or said outside the answers, it is critical;
// when the run read the user's workspace files it may follow them rather
// than the credentials, and is high (the user's files sent where nobody
// supplied them); returned in a call's result (that the caller did not
// ask to read files with) it is exposure to the model, high. An emission
// made only on one side is weak evidence (a run may miss a timer, or end
// before it fires): low, the emission judged by the ordinary rules where
// it was made; both kinds on one channel (the runs with the same
// secrets went to one place, the run with others to another) is where it
// goes spelling out the secret, as critical as a payload. Where the call
// of the phase named workspace files, what follows them is the caller's
// (low).
func derivedFindings(man *m.Manifest) []Finding {
	var out []Finding
	for _, d := range man.Derived {
		what := d.Channel + " to " + d.Dest
		ev := "phase " + d.Phase + "; " + strings.Join(d.Fields, ", ")
		if d.Count > 1 {
			ev += fmt.Sprintf(" (%d emissions)", d.Count)
		}
		f := Finding{Kind: KindDerived, Phase: d.Phase, Subject: d.Channel + " " + d.Dest, Evidence: ev}
		switch {
		case d.Caller:
			f.Severity = Low
			f.Summary = "emitted output that follows the planted values, in a call that named workspace files (what it sent or returned may be what the caller asked for): " + what
		case d.Presence == differential.PresenceSwapped:
			f.Severity = Critical
			f.Summary = "where it sends follows the planted secrets (" + what + "): the runs with the same secrets went to one place, the run with others to another"
			f.Evidence = "phase " + d.Phase + "; " + d.Presence
		case d.Presence != "":
			f.Severity = Low
			f.Summary = "an emission some runs made and others did not: it may follow the planted values, or a timer (" + what + ", " + d.Presence + ")"
			f.Evidence = "phase " + d.Phase + "; judged by the ordinary rules where it was made"
		case d.Channel == differential.ChannelResult || d.Channel == differential.ChannelMessage:
			f.Severity = High
			f.Summary = "said or returned to the client output that follows the planted secrets: " + what
		case d.UserFiles:
			f.Severity = High
			f.Summary = "emitted output that follows the planted secrets or the user's files: " + what
		default:
			f.Severity = Critical
			f.Summary = "emitted output that follows the planted secrets (secret-derived, whatever its encoding): " + what
		}
		out = append(out, f)
	}
	return out
}
