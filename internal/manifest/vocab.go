package manifest

import "strings"

// The words below are written into manifests, diffs and check results and
// compared by the packages that read them back (classify writes a connection
// category, policy judges it, export publishes it). Each is spelled once
// here: a typo in a literal would compile and silently skip a policy rule.
// The values are part of the published formats and must not change.

// Phase names. Calls get one phase each, named by a prefix and the tool,
// prompt or resource: "call:<tool>", "prompt:<name>", "read:<uri>".
const (
	// PhaseInstall is the package's installation, lifecycle scripts included.
	PhaseInstall = "install"
	// PhaseStartup runs from the server's start until the calls begin.
	PhaseStartup = "startup"
	// PhaseIdle is the server left alone after the calls.
	PhaseIdle = "idle"
	// PhaseWitness is the phase of findings that compare the traced run
	// with the witness run (the same server, not traced).
	PhaseWitness = "witness"
	// PhaseEras is the phase of findings that compare a dual-era
	// server's sessions in the two protocol eras.
	PhaseEras = "eras"

	// PhaseCallPrefix starts the phase of a tool call.
	PhaseCallPrefix = "call:"
	// PhasePromptPrefix starts the phase of a prompt get.
	PhasePromptPrefix = "prompt:"
	// PhaseReadPrefix starts the phase of a resource read.
	PhaseReadPrefix = "read:"
	// PhaseCompletePrefix starts the phase of a completion/complete
	// request for a prompt argument or a template variable.
	PhaseCompletePrefix = "complete:"
)

// PhaseRank orders phase names as they happen in a run: install, startup,
// tool calls, prompt gets, resource reads, idle, then anything unknown.
// Phases of the same rank are ordered by name by the caller.
func PhaseRank(name string) int {
	switch {
	case name == PhaseInstall:
		return 0
	case name == PhaseStartup:
		return 1
	case strings.HasPrefix(name, PhaseCallPrefix):
		return 2
	case strings.HasPrefix(name, PhasePromptPrefix):
		return 3
	case strings.HasPrefix(name, PhaseReadPrefix), strings.HasPrefix(name, PhaseCompletePrefix):
		return 4
	case name == PhaseIdle:
		return 5
	}
	return 6
}

// Connection categories (Connection.Category). Policy judges a connection
// by its category alone, so an unknown word here is a connection no rule
// looks at.
const (
	// ConnDNS is a query to the sandbox's own resolver.
	ConnDNS = "dns"
	// ConnRuntime is the nscd socket glibc tries on every lookup.
	ConnRuntime = "runtime"
	// ConnLoopback is a connection to the server's own host.
	ConnLoopback = "loopback"
	// ConnListener is a bind or listen: the server offers a service.
	ConnListener = "listener"
	// ConnIPC is any other unix socket.
	ConnIPC = "ipc"
	// ConnSensitive is a privileged local socket (Docker, containerd,
	// D-Bus, ssh-agent): a way out of the sandbox or into the user's keys.
	ConnSensitive = "sensitive"
	// ConnEgress is traffic meant to leave the machine.
	ConnEgress = "egress"
	// ConnNoRoute is a UDP socket's connect to an address outside the
	// machine that found no route: connecting a datagram socket sends
	// nothing (it picks a route and a source address), and one that failed
	// stays unconnected, so nothing can be sent on it without an address
	// of its own, which is a send of its own. Chromium's IPv6 reachability
	// check connects one to a public resolver's address on every launch;
	// the sandbox has no IPv6 route.
	ConnNoRoute = "no-route"
)

// How a canary was touched (CanaryHit.How).
const (
	// HowFileRead is a traced read of a decoy file.
	HowFileRead = "file-read"
	// HowFileWrite is a write to or creation of a decoy file.
	HowFileWrite = "file-write"
	// HowFileDelete is the removal of a decoy file.
	HowFileDelete = "file-delete"
	// HowFileRename is a decoy file renamed away.
	HowFileRename = "file-rename"
	// HowFileReadWitness is a decoy file whose access time moved although
	// no traced open explains it: read by something the tracer missed.
	HowFileReadWitness = "file-read-witness"
	// HowSent is the canary's value found in data handed to the network.
	HowSent = "sent"
	// HowArgv is the canary's value passed to a process.
	HowArgv = "argv"
	// HowMCPOutput is the canary's value in what the server said over MCP:
	// the lists, a call's result or error answer, an oversized message.
	HowMCPOutput = "mcp-output"
	// HowServerRequest is the canary's value in a request the server made
	// of the client (sampling/createMessage hands it to the model).
	HowServerRequest = "server-request"
	// HowNotification is the canary's value in a notification (logging,
	// progress, …).
	HowNotification = "notification"
	// HowStderr is the canary's value on the server's standard error.
	HowStderr = "stderr"
	// HowStdout is the canary's value on a standard-output line that is
	// not JSON-RPC.
	HowStdout = "stdout"
	// HowWrittenToFile is the canary's value in a workspace file the
	// server wrote: the next commit or upload carries it.
	HowWrittenToFile = "written-to-file"
	// HowServed is the canary's value in what a listening socket of the
	// server answered the audit's probe: any program on the machine can
	// read it there, and any web page when the socket allows its origin.
	HowServed = "served"
)

// Channels of a ServerMessage: how the text reached the client.
const (
	ChannelRequest      = "request"      // a request to the client (sampling/createMessage, elicitation/create)
	ChannelNotification = "notification" // a notification: logging, progress, list_changed, resources/updated
	ChannelError        = "error"        // a JSON-RPC error answer (message and data)
	ChannelStderr       = "stderr"       // a line on standard error
	ChannelStdout       = "stdout"       // a line on standard output that is not JSON-RPC
	ChannelOversized    = "oversized"    // a message larger than the client reads (8 MiB)
	ChannelResult       = "result"       // the result of a call the audit made (tools/call, prompts/get, resources/read)
	ChannelTask         = "task"         // a task's state (2026-07-28 tasks extension): status, statusMessage, error
	ChannelState        = "state"        // the opaque requestState of an input_required result, which the client echoes
	ChannelTransport    = "transport"    // an event of the transport itself (the HTTP+SSE endpoint event, an unknown event)
)

// Verdicts of a diff or check under a policy.
const (
	// VerdictPass means no finding reached the policy's fail-on severity.
	VerdictPass = "pass"
	// VerdictFail means at least one finding did, or one is harmful
	// under any threshold.
	VerdictFail = "fail"
	// VerdictIncomplete means nothing failed, but the audit could not
	// observe what a verdict needs (the server did not run, answer or
	// work, calls were skipped, the trace was cut): what was not audited
	// cannot pass.
	VerdictIncomplete = "incomplete"
)

// Areas of a manifest a behavior change is reported in (diff.Change.Area).
// They follow the manifest's sections, so a reader can find the evidence.
const (
	// AreaOutcome is a change in how the run ended.
	AreaOutcome = "outcome"
	// AreaTool is an advertised tool added, removed or changed.
	AreaTool = "tool"
	// AreaFile is a file access.
	AreaFile = "file"
	// AreaProcess is a program the server started.
	AreaProcess = "process"
	// AreaNetwork is a network endpoint.
	AreaNetwork = "network"
	// AreaDNS is a DNS question.
	AreaDNS = "dns"
	// AreaRequest is an application-level request the sink read.
	AreaRequest = "request"
	// AreaCanary is a canary hit.
	AreaCanary = "canary"
	// AreaAlert is an anti-analysis alert or a gap in the evidence.
	AreaAlert = "alert"
	// AreaServerRequest is a request the server made of the client.
	AreaServerRequest = "server-request"
	// AreaCall is a change in a call's outcome.
	AreaCall = "call"
	// AreaDependency is a change in the resolved dependency tree, or in
	// the advisories that cover it.
	AreaDependency = "dependency"
)

// Transports (Target.Transport); stdio is the default and not written.
const (
	// TransportHTTP is a server reached over Streamable HTTP.
	TransportHTTP = "http"
	// TransportSSE is a remote server reached over the HTTP+SSE transport
	// of revision 2024-11-05.
	TransportSSE = "sse"
)

// Ecosystems (Target.Ecosystem) besides npm and local.
const (
	// EcosystemOCI is a container image audited as shipped.
	EcosystemOCI = "oci"
	// EcosystemRemote is a remote (HTTP) server audited from outside,
	// surface only (internal/remote): what it offered was judged, what it
	// does was not observed. Its name is the URL's host, its version the
	// one it gave in its opening.
	EcosystemRemote = "remote"
)

// BetweenRuns marks a list change seen between two runs of --runs
// (ListChange.Between) rather than within one session.
const BetweenRuns = "runs"
