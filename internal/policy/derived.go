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
// ask to read files with) it is exposure to the model, high; written to
// stderr, which no model reads and the client keeps in a log on the
// user's machine, medium (a secret in a log, not a theft). An emission
// made only on one side is weak evidence (a run may miss a timer, or end
// before it fires): low, the emission judged by the ordinary rules where
// it was made; both kinds on one channel (the runs with the same
// secrets went to one place, the run with others to another) is where it
// goes spelling out the secret, as critical as a payload. Where the call
// of the phase named workspace files, what follows them is the caller's
// (low).
//
// A request whose only differences are its body's length (Content-Length)
// and a number or two of at most three digits, at most twice in the run,
// is low too: a few bits.
//
// A result or message whose only difference is a character or two in one
// or two fields (a clock's seconds in a listing, a counter) carries too
// little to be a secret's: low, while the whole run has at most two such
// emissions; more of them together could spell one out, and stay what
// they are.
func derivedFindings(man *m.Manifest) []Finding {
	var out []Finding
	tiny, lengths, types := 0, 0, 0
	for _, d := range man.Derived {
		if oneBitType(d) {
			types += max(d.Count, 1)
		}
		if tinyDifference(d) {
			tiny++
		}
		if smallSend(d) {
			lengths += max(d.Count, 1)
		}
	}
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
		case tiny <= maxTiny && tinyDifference(d):
			f.Severity = Low
			f.Summary = "a character or two of its output followed the runs (a clock's seconds, a counter; too little for a secret): " + what
		case lengths <= maxTiny && smallSend(d):
			f.Severity = Low
			f.Summary = "only a request's length, or a number or two of a few digits in it, followed the runs (a duration, a count; too little for a secret): " + what
		case types <= maxTiny && oneBitType(d):
			f.Severity = Low
			f.Summary = "a lookup's type followed the runs, not its name (A, AAAA or HTTPS, a bit or two, which resolvers choose by themselves): " + what
		case d.Presence == differential.PresenceSwapped:
			f.Severity = Critical
			f.Summary = "where it sends follows the planted secrets (" + what + "): the runs with the same secrets went to one place, the run with others to another"
			f.Evidence = "phase " + d.Phase + "; " + d.Presence
		case d.Presence != "":
			f.Severity = Low
			f.Summary = "an emission some runs made and others did not: it may follow the planted values, or a timer (" + what + ", " + d.Presence + ")"
			f.Evidence = "phase " + d.Phase + "; judged by the ordinary rules where it was made"
		case d.Channel == differential.ChannelMessage && d.Dest == m.ChannelStderr:
			f.Severity = Medium
			f.Summary = "wrote to its log (stderr, which the client keeps on the user's machine) output that follows the planted secrets: " + what
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

// oneBitType: a DNS emission whose only difference is the type of one or
// two lookups, each A or AAAA (a resolver asks for either, or both in
// either order, as it likes) or HTTPS (Chromium asks for the service
// binding beside them, in idle as its timers decide: server-puppeteer's
// and mcp-webresearch's google.com lookups): at most a bit or two, while
// the whole run has at most two such lookups (more, over several
// domains, could spell a secret out in their types). Sixteen lookups each
// carrying a bit in their type stay what they are.
func oneBitType(d m.DerivedOutput) bool {
	if d.Channel != differential.ChannelDNS || d.Count > 2 || len(d.Fields) == 0 || d.Presence != "" {
		return false
	}
	for _, f := range d.Fields {
		if f != differential.QtypeAddress && f != differential.QtypeAddressOrHTTPS {
			return false
		}
	}
	return true
}

// maxLengthApart is how many bytes a small request's length may change:
// what two numbers' digits and a few characters of noise can explain; a
// body that grows more (random bytes as long as a secret's character)
// stays what it is.
const maxLengthApart = 8

// smallSend: an HTTP emission whose only differences are its
// Content-Length (at most maxLengthApart bytes apart) and at most two numbers of at most three digits (a
// duration in milliseconds, a count: exa-mcp-server's analytics post to
// agnost.ai in the study, a checkpoint's timestamp and the body's length,
// the runs with the same secrets agreeing by running side by side) or
// flags one run alone had (true, false or null: desktop-commander's
// "saw_onboarding_page", which its telemetry carries once its feature
// flags have loaded, before a call in some runs and after it in others),
// the length then also apart by what the flags' keys and values take.
// Such a request carries a few bits; more than two of them in a run (each
// emission counted), more than two numbers and flags in one, a longer
// number, a value of a field one run alone had that is not a flag, or any
// other field that differs, stay what they are.
func smallSend(d m.DerivedOutput) bool {
	if d.Channel != differential.ChannelHTTP || d.Presence != "" || len(d.Fields) == 0 {
		return false
	}
	numbers, flagBytes := 0, 0
	for _, f := range d.Fields {
		if key, ok := differential.LabelFlag(f); ok {
			numbers++
			flagBytes += min(len(key), maxFlagKey) + len(`"":false,`)
		}
	}
	for _, f := range d.Fields {
		if _, ok := differential.LabelFlag(f); ok {
			continue
		}
		n, digits, apart, ok := differential.LabelSize(f)
		switch {
		case !ok || !digits:
			return false
		case strings.HasPrefix(f, "header.content-length ("):
			if apart < 0 || apart > maxLengthApart+flagBytes {
				return false
			}
		case n > 3:
			return false
		default:
			numbers++
		}
	}
	return numbers <= 2
}

// maxFlagKey bounds how long a flag's key counts towards the length a
// request may change by.
const maxFlagKey = 32

// maxTiny is how many tiny differences a run may have and each still be
// low.
const maxTiny = 2

// tinyDifference: a result or message whose fields that followed the runs
// are at most two, each at most two characters long.
func tinyDifference(d m.DerivedOutput) bool {
	if d.Channel != differential.ChannelResult && d.Channel != differential.ChannelMessage || d.Count > 1 || d.Presence != "" ||
		len(d.Fields) == 0 || len(d.Fields) > 2 {
		return false
	}
	for _, f := range d.Fields {
		if n, _, _, ok := differential.LabelSize(f); !ok || n > 2 {
			return false
		}
	}
	return true
}
