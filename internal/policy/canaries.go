package policy

import (
	"fmt"
	"strings"

	"github.com/mcp-audit/mcp-audit/internal/canary"
	"github.com/mcp-audit/mcp-audit/internal/hosts"
	m "github.com/mcp-audit/mcp-audit/internal/manifest"
)

// canaryFindings report canary hits. Allow-lists never apply: a canary
// value has no legitimate use.
func canaryFindings(pe *phaseEval) []Finding {
	var out []Finding
	ph := pe.phase
	for _, h := range ph.Canaries {
		if strings.HasPrefix(h.Canary, canary.ContentPrefix) {
			if f, ok := contentFinding(pe, h); ok {
				out = append(out, f)
			}
			continue
		}
		ev := h.Evidence
		if h.Encoding != "" && h.Encoding != "raw" {
			ev += " (" + h.Encoding + "-encoded)"
		}
		sev := Critical
		switch h.How {
		case m.HowMCPOutput, m.HowServerRequest, m.HowNotification, m.HowStderr, m.HowStdout:
			// Handed to the client (and its model, or its logs), not to a
			// third party: exposure rather than exfiltration — unless it is
			// in an MCP Apps page, whose scripts the host runs and which
			// can send it anywhere.
			if !isAppPhase(ph.Name) {
				sev = High
			}
		}
		if h.Canary == "file:"+canary.WorkspaceEnv && (h.How == m.HowFileRead || h.How == m.HowFileReadWitness) {
			// dotenv loads the .env of the working directory at startup;
			// many servers do. The user's project secrets then live in the
			// server's environment: worth knowing, not yet a theft (any
			// value sent on is a critical "sent" hit).
			out = append(out, Finding{Severity: Medium, Kind: KindCanary, Phase: ph.Name, Subject: h.Canary + " " + h.How,
				Summary: "read the .env file of its working directory (dotenv does this at startup)", Evidence: ev})
			continue
		}
		if h.Given && (h.How == m.HowSent || h.How == m.HowArgv) {
			// The server was given this credential to use it: sending it
			// to its API is its job. Where it went is worth seeing (and
			// a new destination is a new host); it is not a theft.
			out = append(out, Finding{Severity: Medium, Kind: KindCredential, Phase: ph.Name, Subject: h.Canary + " " + h.How,
				Summary: fmt.Sprintf("used the credential it was given, %s: %s", h.Canary, describeHow(h.How)), Evidence: ev})
			continue
		}
		out = append(out, Finding{Severity: sev, Kind: KindCanary, Phase: ph.Name, Subject: h.Canary + " " + h.How, Summary: fmt.Sprintf("canary %s: %s", h.Canary, describeHow(h.How)), Evidence: ev})
	}
	return out
}

func describeHow(how string) string {
	switch how {
	case m.HowFileRead:
		return "decoy file read"
	case m.HowFileReadWitness:
		return "decoy file read without a traced open (seen by its access time)"
	case m.HowFileWrite, m.HowFileDelete, m.HowFileRename:
		return "decoy file modified (" + strings.TrimPrefix(how, "file-") + ")"
	case m.HowSent:
		return "value sent over the network"
	case m.HowArgv:
		return "value passed to a process"
	case m.HowMCPOutput:
		return "value returned to the MCP client"
	case m.HowServerRequest:
		return "value sent to the MCP client in a request (sampling hands it to the model)"
	case m.HowNotification:
		return "value sent to the MCP client in a notification"
	case m.HowStderr:
		return "value written to standard error (the client's log)"
	case m.HowStdout:
		return "value written to standard output outside JSON-RPC"
	case m.HowWrittenToFile:
		return "value written into a workspace file (a commit or upload would carry it)"
	}
	return how
}

// contentFinding judges a decoy workspace file's content found in what
// the server emitted (a content canary). Sent over the network by a call
// whose arguments named the workspace by its path and, with it, the file
// (or a directory above it, or a glob matching it) or the host it went
// to, it is the caller's (low: its job, its destination worth seeing); a
// relative name ("src", "*") is no workspace path, as before. Anything else is
// the user's file sent where nobody supplied it (high): a call that
// named one file does not excuse the others, nor does a theft that
// started earlier and landed in the window of a call that reads a file.
// Returned to the client, written to another file or passed to a
// process, it is what file tools do.
func contentFinding(pe *phaseEval, h m.CanaryHit) (Finding, bool) {
	if h.How != m.HowSent {
		return Finding{}, false
	}
	file := strings.TrimPrefix(h.Canary, canary.ContentPrefix)
	ev := h.Evidence
	if h.Encoding != "" && h.Encoding != "raw" {
		ev += " (" + h.Encoding + "-encoded)"
	}
	if isCallPhase(pe.phase.Name) && callNamedWorkspace(pe.man, pe.phase.Name) && (pe.namedByCall(file) || pe.destSupplied(h.Evidence)) {
		return Finding{Severity: Low, Kind: KindUserFile, Phase: pe.phase.Name, Subject: h.Canary + " " + h.How,
			Summary: "sent a workspace file the call named: " + file, Evidence: ev}, true
	}
	return Finding{Severity: High, Kind: KindUserFile, Phase: pe.phase.Name, Subject: h.Canary + " " + h.How,
		Summary: "sent the content of the user's file " + file + " where nobody supplied it", Evidence: ev}, true
}

// destSupplied reports whether the host a "sent" hit went to was
// supplied by the configuration or by the phase's call (the host or
// another of its registrable domain).
func (pe *phaseEval) destSupplied(evidence string) bool {
	host := sentTo(evidence)
	if host == "" {
		return false
	}
	return pe.egress.supplied[host] || callNamedHost(pe.egress.byCall[pe.phase.Name], hosts.Registrable(host))
}

// callNamedWorkspace reports whether the call of a phase named a path in
// the workspace.
func callNamedWorkspace(man *m.Manifest, phase string) bool {
	for _, c := range man.Calls {
		if c.Phase == phase && strings.Contains(string(c.Args), "/workspace") {
			return true
		}
	}
	return false
}
