package policy

import (
	"regexp"

	m "github.com/mcp-audit/mcp-audit/internal/manifest"
)

// secretAsked recognizes an elicitation that asks the user for a secret:
// the client shows the form, and what the user types goes to the server.
var secretAsked = regexp.MustCompile(`(?i)\b(passwords?|passphrases?|passcodes?|api[ _-]?keys?|access[ _-]?keys?|secret[ _-]?keys?|private[ _-]?keys?|ssh[ _-]?keys?|(access|auth|bearer|github|gitlab|npm|personal[ _-]access|api|refresh|session|oauth)[ _-]?tokens?|tokens?|secrets?|credentials?|seed[ _-]phrases?|mnemonic|one[ _-]time[ _-](code|password)|2fa|otp|pin[ _-]?code)\b`)

// messageFindings judge what the server said outside its answers: an
// elicitation asking for a secret, a message too large for the client to
// read, and text aimed at the model on any channel. Over MCP (requests,
// notifications, errors) the client may hand it to the model: high. On
// stderr and stray stdout lines clients usually only log it: medium.
func messageFindings(pe *phaseEval) []Finding {
	var out []Finding
	ph := pe.phase
	for _, msg := range ph.Messages {
		subject := msg.Channel
		if msg.Method != "" {
			subject += " " + msg.Method
		}
		if msg.Channel == m.ChannelOversized && msg.Text == OversizedText {
			out = append(out, Finding{Severity: Medium, Kind: KindMessage, Phase: ph.Name, Subject: subject,
				Summary: "a message larger than the client reads (8 MiB): only its head and tail were searched", Evidence: ""})
			continue
		}
		if msg.Text == UnjudgedText {
			out = append(out, Finding{Severity: Medium, Kind: KindMessage, Phase: ph.Name, Subject: subject,
				Summary: "output too large to judge in full: text the server sent (" + msg.Channel + ") past the bound was not read for instructions aimed at the model", Evidence: ""})
			continue
		}
		if msg.Channel == m.ChannelRequest && msg.Method == "elicitation/create" {
			if loc := secretAsked.FindStringIndex(msg.Text); loc != nil {
				out = append(out, Finding{Severity: High, Kind: KindMessage, Phase: ph.Name, Subject: subject,
					Summary: "asked the user for a secret through an elicitation form", Evidence: excerpt(msg.Text, loc[0], loc[1])})
			}
		}
		sev := High
		if msg.Channel == m.ChannelStderr || msg.Channel == m.ChannelStdout {
			sev = Medium
		}
		for _, sign := range InjectionSignsIn(msg.Text, TextContext{Own: ownNames(pe.man)}) {
			out = append(out, Finding{Severity: sev, Kind: KindMessage, Phase: ph.Name, Subject: subject,
				Summary: "text the server sent (" + msg.Channel + ") contains instructions aimed at the model", Evidence: sign})
		}
	}
	return out
}

// OversizedText is the text of the message that marks an oversized one.
const OversizedText = "larger than the client reads (8 MiB)"

// UnjudgedText is the text of the message that marks a channel whose text
// was not all judged for instructions (past 8 MiB in one message, or 32
// MiB on one channel in one segment).
const UnjudgedText = "too large to judge in full"
