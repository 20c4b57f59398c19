// Package manifest defines the behavior manifest: the stable, diffable record
// of what one version of an MCP server did inside the sandbox.
//
// The manifest is the project's published data format. Its JSON encoding is
// canonical (see Encode): identical behavior yields byte-identical files, so a
// text diff of two manifests shows only behavior changes. Everything that
// legitimately differs between two runs of the same server (timestamps,
// container ids, durations) lives in the Run block, which diffs ignore.
//
// The schema is documented in docs/manifest.md; bump SchemaVersion on any
// incompatible change.
package manifest

import (
	"encoding/json"
	"time"

	"github.com/mcp-audit/mcp-audit/internal/deptree"
)

// SchemaVersion is the version of the manifest format written by this
// package. Version 2 added coverage, method, and the fields of the
// 2026-07-28 protocol revision; version 1 manifests are still read.
const SchemaVersion = 2

// MethodVersion is the version of what an audit observes — the calls it
// makes, the runs it compares, the protocol eras it speaks. A baseline
// recorded under another method is no baseline for a candidate audited
// under this one: new calls would look like new behavior (check audits
// the baseline's version again, under this method). Version 1 is every
// manifest that records none.
const MethodVersion = 2

// Manifest is the behavior record of one audit.
type Manifest struct {
	SchemaVersion int `json:"schema_version"`
	// Method is the MethodVersion the audit observed under; absent (0)
	// for manifests of method 1.
	Method    int        `json:"method,omitempty"`
	Target    Target     `json:"target"`
	Outcome   Outcome    `json:"outcome"`
	Server    ServerInfo `json:"server"`
	Tools     []Tool     `json:"tools"`
	Prompts   []Prompt   `json:"prompts"`
	Resources []Resource `json:"resources"`
	// ResourceTemplates are listed by resources/templates/list; omitted
	// when the server offers none.
	ResourceTemplates []ResourceTemplate `json:"resource_templates,omitempty"`
	// ListChanges are the tools, prompts and resources whose text differed
	// when listed again after the calls; the lists above keep what was
	// first listed. Omitted when nothing changed.
	ListChanges []ListChange `json:"list_changes,omitempty"`
	// Witness lists what the witness run (the same server without the
	// tracer) did that the traced run did not; omitted when nothing
	// differed or no witness run was made.
	Witness []WitnessDifference `json:"witness,omitempty"`
	// Derived lists what the server emitted that follows the planted
	// values (the runs with other secrets); omitted when nothing did or no
	// such runs were made.
	Derived []DerivedOutput `json:"derived,omitempty"`
	// EraDifferences lists what a server that speaks both protocol eras
	// showed in one and not the other (the era run); omitted when nothing
	// differed or it speaks one.
	EraDifferences []EraDifference `json:"era_differences,omitempty"`
	// Apps are the MCP Apps pages (ui://) the audit read: the pages a
	// host renders when a tool names them; omitted when there are none.
	Apps   []AppPage `json:"apps,omitempty"`
	Phases []Phase   `json:"phases"`
	// Calls are the tool calls, prompt gets and resource reads the audit
	// made, each with the phase holding its behavior.
	Calls []Call `json:"calls"`
	// Coverage is how much of the server the audit exercised (coverage.go);
	// absent in manifests of schema version 1.
	Coverage *Coverage `json:"coverage,omitempty"`
	// Run is metadata about this particular execution. Diffs ignore it.
	Run Run `json:"run"`
	// AcceptedRisk is set only in a baseline recorded with
	// `baseline update --accept-risk`: the harmful findings a reviewer
	// accepted, why and when. They keep failing every check; the record
	// makes the exception visible in every later report.
	AcceptedRisk *AcceptedRisk `json:"accepted_risk,omitempty"`
	// Dependencies is the resolved dependency tree of the installed target
	// (supply.go); absent for images, commands, and manifests recorded
	// before trees were.
	Dependencies *deptree.Tree `json:"dependencies,omitempty"`
}

// Target identifies what was audited.
type Target struct {
	// Ecosystem is "npm" for registry packages, "local" for a directory or
	// tarball, "command" for --cmd targets.
	Ecosystem string `json:"ecosystem"`
	Name      string `json:"name"`
	Version   string `json:"version"`
	// Integrity is the registry's Subresource Integrity string of the
	// tarball (sha512-…), or a sha256 of a local tarball.
	Integrity string `json:"integrity,omitempty"`
	// Entry is the command that started the server, with the package root
	// written as <pkg>.
	Entry []string `json:"entry"`
	// Service are the registrable domains of the package's own service, from
	// its metadata (homepage, repository and issue URLs, code hosts left
	// out): unprompted traffic there is the server's job, not telemetry.
	Service []string `json:"service,omitempty"`
	// Supplied are the hosts the configuration handed the server (in its
	// arguments and --env values): traffic there was asked for.
	Supplied []string `json:"supplied,omitempty"`
	// Transport is "http" for a server audited over Streamable HTTP
	// (absent: stdio); ListenPort is the port it was told to listen on,
	// whose listening socket is expected rather than a finding.
	Transport  string `json:"transport,omitempty"`
	ListenPort int    `json:"listen_port,omitempty"`
	// Published is when the registry says the audited version was
	// published (RFC 3339, UTC); absent for local targets and registries
	// that do not say.
	Published string `json:"published,omitempty"`
	// Deprecated is the registry's deprecation message of the version.
	Deprecated string `json:"deprecated,omitempty"`
	// MCPRegistry is the server's entry in an MCP registry, when the
	// configuration names one (supply.go).
	MCPRegistry *MCPRegistryEntry `json:"mcp_registry,omitempty"`
}

// Outcome statuses.
const (
	StatusOK          = "ok"           // handshake answered, ran until the audit ended it
	StatusCrashed     = "crashed"      // exited on its own
	StatusNoHandshake = "no-handshake" // did not answer initialize in time
	StatusKilled      = "killed"       // a limit was hit (memory, audit deadline)
	StatusError       = "error"        // the audit itself failed; see Reason
)

// Outcome says how the server's run ended.
type Outcome struct {
	Status string `json:"status"`
	// ExitCode is the server's exit status when it exited on its own, or
	// 128+signal when a signal ended it.
	ExitCode *int `json:"exit_code,omitempty"`
	// Reason is a short, stable explanation (no timestamps or ids).
	Reason string `json:"reason,omitempty"`
}

// ServerInfo is what the server said about itself in initialize.
type ServerInfo struct {
	Name            string `json:"name,omitempty"`
	Version         string `json:"version,omitempty"`
	ProtocolVersion string `json:"protocol_version,omitempty"`
	// Eras are the protocol revisions the server answered in, when it
	// answered the 2026-07-28 opening (a 2025-era server's manifest has
	// only protocol_version, as before): 2026-07-28, and the 2025
	// revision its era run answered.
	Eras         []string `json:"eras,omitempty"`
	Capabilities []string `json:"capabilities"`
	Instructions string   `json:"instructions,omitempty"`
}

// Tool is one advertised tool, pinned by digest.
type Tool struct {
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description"`
	// InputSchema is the tool's JSON Schema in canonical form.
	InputSchema json.RawMessage `json:"input_schema,omitempty"`
	// OutputSchema is the tool's output schema in canonical form.
	OutputSchema json.RawMessage `json:"output_schema,omitempty"`
	// Annotations are the tool's annotations (title, hints) in canonical
	// form: text the client shows and the model may read.
	Annotations json.RawMessage `json:"annotations,omitempty"`
	// Digest is sha256 over name, description and canonical input schema,
	// and the output schema and annotations when the tool has either.
	Digest string `json:"digest"`
}

// Prompt is one advertised prompt.
type Prompt struct {
	Name        string   `json:"name"`
	Description string   `json:"description,omitempty"`
	Arguments   []string `json:"arguments"`
	// ArgumentDescriptions are the arguments that have a description, with
	// it.
	ArgumentDescriptions []PromptArgument `json:"argument_descriptions,omitempty"`
}

// PromptArgument is a prompt argument's description.
type PromptArgument struct {
	Name        string `json:"name"`
	Description string `json:"description"`
}

// Resource is one advertised resource.
type Resource struct {
	URI         string `json:"uri"`
	Name        string `json:"name,omitempty"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	MimeType    string `json:"mime_type,omitempty"`
}

// ResourceTemplate is one advertised resource template.
type ResourceTemplate struct {
	URITemplate string `json:"uri_template"`
	Name        string `json:"name,omitempty"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	MimeType    string `json:"mime_type,omitempty"`
}

// Call outcomes.
const (
	CallOK         = "ok"
	CallError      = "error"       // the server answered with an error or isError
	CallTimeout    = "timeout"     // no answer within the per-call timeout
	CallServerDied = "server-died" // the server exited during the call
	CallTooLarge   = "too-large"   // the answer exceeded the client's bound
	CallSkipped    = "skipped"     // not made (time budget, server could not restart)
)

// Call is one request the audit made to exercise the server.
type Call struct {
	Phase string `json:"phase"`
	Kind  string `json:"kind"` // tool, prompt, resource, template
	Name  string `json:"name"`
	// Args are what was sent (canonical JSON), a value an earlier call
	// returned recorded as its reference ({"$ref_call": PHASE, "field":
	// PATH}); ArgsValid tells whether they validated against the tool's
	// input schema.
	Args      json.RawMessage `json:"args,omitempty"`
	ArgsValid bool            `json:"args_valid"`
	// Set is which argument set of the tool the call sent: required,
	// optional, candidates, probe, retry (a corrected one) or repeat.
	Set string `json:"set,omitempty"`
	// Probes are the marker probes the set carried (internal/argsynth).
	Probes  []Probe `json:"probes,omitempty"`
	Outcome string  `json:"outcome"`
	// Content lists the types of the returned content items.
	Content []string `json:"content"`
	// Detail explains an error or skip (bounded, sanitized).
	Detail string `json:"detail,omitempty"`
	// Restarted is true when the server had died and was started again
	// before this call.
	Restarted bool `json:"restarted,omitempty"`
}

// ServerRequest is a request the server sent to the client.
type ServerRequest struct {
	Method string `json:"method"`
	Answer string `json:"answer"` // roots, declined, pong, unsupported
}

// Phase is the behavior observed in one window of the run.
type Phase struct {
	Name string `json:"name"`
	// Files lists every file access worth reading individually: everything
	// except successful reads of the server's own package and of the runtime,
	// which FileSummary counts instead.
	Files       []FileAccess `json:"files"`
	FileSummary []FileCount  `json:"file_summary"`
	Processes   []Process    `json:"processes"`
	Network     []Connection `json:"network"`
	DNS         []DNSQuery   `json:"dns"`
	Requests    []Request    `json:"requests"`
	Canaries    []CanaryHit  `json:"canaries"`
	Alerts      []Alert      `json:"alerts"`
	// ServerRequests are requests the server made of the client (roots,
	// sampling, elicitation) and how they were answered.
	ServerRequests []ServerRequest `json:"server_requests"`
	// Messages are what the server said outside its answers that is worth
	// judging: the text of its sampling and elicitation requests, and any
	// notification, error, stderr or stdout line whose text looks aimed at
	// the model, and messages too large for the client. Omitted when empty.
	Messages []ServerMessage `json:"messages,omitempty"`
	// Destroyed are the files that existed before the run (seeded into the
	// home and the workspace) whose content this phase deleted, truncated,
	// replaced or moved away (effects.go). Omitted when none.
	Destroyed []DestroyedFile `json:"destroyed,omitempty"`
	// Probes are what each listening socket of the server answered when
	// the audit probed it after the calls (effects.go). Omitted when
	// nothing was probed.
	Probes []ListenerProbe `json:"probes,omitempty"`
}

// ServerMessage is text the server sent that is worth judging: outside
// the results of calls, or a result whose text looks aimed at the model.
type ServerMessage struct {
	Channel string `json:"channel"`
	// Method is the request's or notification's method, or the method of
	// the call an error answered.
	Method string `json:"method,omitempty"`
	// Text is the message's human- and model-readable text (for sampling:
	// the system prompt and messages; for elicitation: the message and the
	// requested fields), sanitized, bounded, canary values redacted.
	Text string `json:"text"`
}

// File access kinds.
const (
	AccessRead     = "read"
	AccessWrite    = "write"  // opened for writing, truncate, chmod
	AccessCreate   = "create" // created (open O_CREAT on a new path, mkdir, link target)
	AccessDelete   = "delete"
	AccessRename   = "rename" // the source of a rename; the destination is a create
	AccessExec     = "exec"
	AccessStat     = "probe" // access/readlink: existence checks, no content read
	AccessChdir    = "chdir"
	AccessSymlink  = "symlink" // a symlink was created at Path pointing to Target
	AccessMount    = "mount"
	AccessDirWrite = "mkdir"
)

// File categories.
const (
	CatOwnPackage   = "own-package"   // the server's package and its dependencies
	CatRuntime      = "runtime"       // node, shared libraries, loader, ordinary runtime probes
	CatSystem       = "system"        // other /etc, /proc, /sys, /dev, /usr
	CatSensitive    = "sensitive"     // credentials and private data a server should not need
	CatCanary       = "canary"        // a decoy credential file seeded for this audit
	CatAntiAnalysis = "anti-analysis" // reads that reveal a tracer or sandbox
	CatShellRC      = "shell-rc"      // shell startup files and autostart locations
	CatAIConfig     = "ai-client-config"
	CatHome         = "home"      // other files in the home directory
	CatWorkspace    = "workspace" // the decoy workspace the server was started in
	CatTemp         = "temp"
	CatOther        = "other"
)

// File access results.
const (
	ResultOK      = "ok"
	ResultMissing = "missing" // ENOENT, ENOTDIR
	ResultDenied  = "denied"  // EACCES, EPERM, EROFS
	ResultError   = "error"   // anything else
)

// FileAccess is one distinct (path, access, result) in a phase.
type FileAccess struct {
	Path     string `json:"path"`
	Access   string `json:"access"`
	Category string `json:"category"`
	Result   string `json:"result"`
	// Target is the destination of a rename or the target of a symlink/link.
	Target string `json:"target,omitempty"`
}

// FileCount summarizes accesses that are individually uninteresting.
type FileCount struct {
	Category string `json:"category"`
	Access   string `json:"access"`
	Result   string `json:"result"`
	// Paths is the number of distinct paths.
	Paths int `json:"paths"`
}

// Process is one program the server started (execve).
type Process struct {
	Path   string   `json:"path"`
	Argv   []string `json:"argv"`
	Result string   `json:"result"`
	// Shell is true for well-known shells; interesting on its own.
	Shell bool `json:"shell,omitempty"`
	// Lifecycle marks the first program the install phase's package
	// manager (npm, pip) started for a package's lifecycle script, known
	// by ancestry alone (its parent is the package manager): the shell
	// that runs the script. What that shell starts is not marked.
	Lifecycle bool `json:"lifecycle,omitempty"`
}

// Connection is one distinct network endpoint the server tried to use.
type Connection struct {
	// Proto is tcp, udp, unix, raw or other.
	Proto string `json:"proto"`
	// Op is connect, send, bind or listen.
	Op string `json:"op"`
	// Name is the host name the address was looked up as, when known. The
	// sinkhole's synthetic addresses are not recorded (they depend on the
	// order of lookups); Address is then empty.
	Name    string `json:"name,omitempty"`
	Address string `json:"address,omitempty"`
	Port    int    `json:"port,omitempty"`
	Result  string `json:"result"`
	// Category: dns, runtime (nscd), loopback, listener, ipc, sensitive
	// (privileged local sockets) or egress.
	Category string `json:"category"`
	// Process is the program that made the call (normalized argv).
	Process string `json:"process,omitempty"`
	// Protocol is what the sink saw first: tls, http, other or none (the
	// client sent nothing); empty without a sink.
	Protocol string `json:"protocol,omitempty"`
	SNI      string `json:"sni,omitempty"`
	ALPN     string `json:"alpn,omitempty"`
	// TLS is "intercepted" or why interception failed (the client refused
	// the sink's certificate: it pins or ignores the system trust store).
	TLS string `json:"tls,omitempty"`
	// AfterAnswer marks a call phase's entry made after the server had
	// answered that call: the call did not need it, and a payload
	// scheduled earlier lands there (see docs/manifest.md, attribution).
	AfterAnswer bool `json:"after_answer,omitempty"`
}

// DNSQuery is one distinct name the server asked for.
type DNSQuery struct {
	Name string `json:"name"`
	Type string `json:"type"`
	// Server is the resolver address the question was sent to; empty when
	// only the sink saw the question.
	Server  string `json:"server,omitempty"`
	Process string `json:"process,omitempty"`
	// AfterAnswer: as Connection.AfterAnswer.
	AfterAnswer bool `json:"after_answer,omitempty"`
}

// Request is one application-level request seen by the sink (HTTP, also
// inside intercepted TLS). Bodies are not recorded here: the evidence file
// next to the manifest has them.
type Request struct {
	Scheme string `json:"scheme"` // https or http
	// Name is the host the connection was made to; Host is the Host header.
	Name   string `json:"name,omitempty"`
	Port   int    `json:"port"`
	Method string `json:"method"`
	Host   string `json:"host"`
	// Path excludes the query string; QueryKeys are its parameter names.
	Path        string   `json:"path"`
	QueryKeys   []string `json:"query_keys"`
	HeaderNames []string `json:"header_names"`
	// BodyFields are the names in a JSON (dotted, [] for arrays) or form
	// body; Emails and Hosts are addresses and host names found anywhere in
	// the URL or body.
	BodyFields []string `json:"body_fields"`
	Emails     []string `json:"emails"`
	Hosts      []string `json:"hosts"`
	Process    string   `json:"process,omitempty"`
	// AfterAnswer: as Connection.AfterAnswer.
	AfterAnswer bool `json:"after_answer,omitempty"`
}

// CanaryHit is evidence that a seeded fake credential was touched.
type CanaryHit struct {
	// Canary names the decoy: an environment variable or a decoy file path.
	Canary string `json:"canary"`
	// How: file-read, file-write, file-delete, file-rename,
	// file-read-witness (seen by the post-run access-time check), sent
	// (value found in outgoing data), argv (value passed to a process),
	// mcp-output (value in an answer over MCP), server-request,
	// notification, stderr, stdout (value in what the server sent on those
	// channels).
	How string `json:"how"`
	// Evidence is a short, non-secret description (path, destination).
	Evidence string `json:"evidence"`
	// Encoding of the value where it was found in data: raw, hex, base64…
	Encoding string `json:"encoding,omitempty"`
	// Given is true when the canary stands in for a credential the server
	// was given to do its job (canary_env, --canary-env): using it is
	// expected, where it goes is the observation.
	Given bool `json:"given,omitempty"`
}

// Alert kinds.
const (
	AlertIOURing         = "io_uring"
	AlertPtrace          = "ptrace"
	AlertMemfd           = "memfd_create"
	AlertBPF             = "bpf"
	AlertNamespace       = "namespace" // unshare, setns
	AlertProcessVM       = "process_vm"
	AlertUntracedClone   = "untraced_clone"
	AlertKill            = "kill" // signals sent outside the server's own process tree
	AlertTimestamps      = "timestamp_change"
	AlertMount           = "mount"
	AlertTraceIncomplete = "trace_incomplete"
	AlertUntracedNetwork = "untraced_network" // the sink saw traffic the tracer did not
	// A seccomp filter with a user-notification listener: its notified
	// calls run without a ptrace stop, hidden from the tracer.
	AlertSeccompListener = "seccomp_listener"
	// A decoy or sensitive file opened with O_NOATIME, which keeps the
	// access-time witness quiet.
	AlertNoAtime = "noatime_open"
	// AlertFilelessExec is a program started from a file descriptor or an
	// anonymous memory file (memfd), not from a path on disk.
	AlertFilelessExec = "fileless_exec"
	// AlertDetached is a process of the server's still alive after the
	// server itself exited: a daemon it detached, which a client that
	// ends the server does not end.
	AlertDetached = "detached_process"
	// The install erased its traces (deptree.Erasures, judged from the
	// order of the install phase's file events): a file it wrote, ran and
	// deleted; a package.json written or renamed over; a file that was
	// there before the install, deleted by it.
	AlertDroppedRunDeleted = "dropped_run_deleted"
	AlertReplacedManifest  = "replaced_manifest"
	AlertDeletedExisting   = "deleted_existing_file"
)

// Alert is an anti-analysis or escape attempt, or a gap in the evidence.
type Alert struct {
	Kind   string `json:"kind"`
	Detail string `json:"detail"`
}

// Run is per-execution metadata. Diffs and stability checks ignore it.
type Run struct {
	Tool        string `json:"tool,omitempty"`
	StartedAt   string `json:"started_at,omitempty"`
	DurationMS  int64  `json:"duration_ms,omitempty"`
	Image       string `json:"image,omitempty"`
	ImageID     string `json:"image_id,omitempty"`
	ContainerID string `json:"container_id,omitempty"`
	NetworkMode string `json:"network_mode,omitempty"`
	// ClientEnv names the client environment profile the server was run
	// with (desktop, terminal, editor), chosen per run.
	ClientEnv string `json:"client_env,omitempty"`
	// CanaryEnv names the canary variables planted in this run (sorted);
	// WitnessCanaryEnv those of the witness run, which plants its own
	// subset of the undeclared ones.
	CanaryEnv        []string `json:"canary_env,omitempty"`
	WitnessCanaryEnv []string `json:"witness_canary_env,omitempty"`
	// CodeCoverage is how much of the server's own code ran (Node servers;
	// nil: not measured).
	CodeCoverage *CodeCoverage `json:"code_coverage,omitempty"`
	// Variants are the runs the audit made and what each varied.
	Variants []Variant `json:"variants,omitempty"`
	// Differential is what became of the comparison of runs with other
	// secrets when one was asked for: "compared", or "failed: REASON".
	Differential string `json:"differential,omitempty"`
	// WitnessRun is what became of the witness run when one was asked
	// for: "ran", or "failed: REASON" (the comparison is then missing, and
	// the verdict incomplete).
	WitnessRun    string        `json:"witness_run,omitempty"`
	PhaseTimingMS []PhaseTiming `json:"phase_timing_ms"`
	// ServerTime is how much time the server's own clock saw (the clock
	// shim runs it faster than real time); nil for older manifests.
	ServerTime *ServerTime `json:"server_time,omitempty"`
	Trace      TraceStats  `json:"trace"`
	// StderrTail is the end of the server's stderr, sanitized and bounded.
	StderrTail string `json:"stderr_tail,omitempty"`
	// StdoutNoise counts non-JSON lines the server printed on stdout.
	StdoutNoise int      `json:"stdout_noise,omitempty"`
	Notes       []string `json:"notes"`
	// Unstable lists behavior seen in only some of several runs (--runs)
	// and dropped from the phases as noise: no finding at medium or above.
	Unstable []string `json:"unstable,omitempty"`
	// UnstableKept lists behavior seen in only some runs that the phases
	// keep anyway because it carries a finding (medium or above): noise
	// is dropped, danger never is.
	UnstableKept []string `json:"unstable_kept,omitempty"`
	// Advisories are the published advisories that cover versions of the
	// tree, as the registry listed them when asked (they change without a
	// release, so they live here; a comparison asks again for both sides).
	Advisories *deptree.AdvisoryReport `json:"advisories,omitempty"`
}

// PhaseTiming is how long a phase lasted in this run.
type PhaseTiming struct {
	Phase string `json:"phase"`
	MS    int64  `json:"ms"`
}

// ServerTime is what "nothing seen" covers in the server's time: the
// sandbox's clock shim runs the server's clocks and waits Rate times faster
// than real time.
type ServerTime struct {
	// Rate is server seconds per real second: 1 when the shim was off or
	// could not be applied.
	Rate int `json:"rate"`
	// Start and End are the server's clock when it started and when the
	// run ended (RFC 3339, UTC).
	Start string `json:"start"`
	End   string `json:"end"`
	// CoveredMS is the server time each phase spanned, in the order of
	// phase_timing_ms.
	CoveredMS []PhaseTiming `json:"covered_ms"`
}

// Covered is the server time the named phases spanned together.
func (st *ServerTime) Covered(phases ...string) time.Duration {
	var ms int64
	for _, c := range st.CoveredMS {
		for _, p := range phases {
			if c.Phase == p {
				ms += c.MS
			}
		}
	}
	return time.Duration(ms) * time.Millisecond
}

// TraceStats describes the raw trace the manifest was built from.
type TraceStats struct {
	Bytes     int64 `json:"bytes"`
	Lines     int   `json:"lines"`
	Events    int   `json:"events"`
	Malformed int   `json:"malformed"`
	Truncated bool  `json:"truncated,omitempty"`
}

// ListChange is one item whose offer changed during the session.
type ListChange struct {
	// List is tools, prompts, resources or resource_templates.
	List string `json:"list"`
	Name string `json:"name"`
	// Field is what changed: name, title, description, input_schema,
	// output_schema, annotations, arguments, or added for an item offered
	// only after the calls.
	Field string `json:"field"`
	// Diff shows the change: the differing middle of the text before and
	// after, with a little shared context (bounded, sanitized).
	Diff string `json:"diff"`
	// Between is BetweenRuns when the offer differed from one run of
	// --runs to another rather than within one session; empty otherwise.
	Between string `json:"between,omitempty"`
}

// CodeCoverage is how much of a Node server's own code ran in the traced
// run (internal/codecov): functions that ran over functions defined in the
// package's own JavaScript files, files never loaded counting as not run
// (their functions estimated). It varies from run to run, so it lives in
// the run block; a diff shows it and never makes a finding of it.
type CodeCoverage struct {
	// Functions defined and Ran; Estimated of Functions were counted
	// from the text of files the server never loaded.
	Functions int `json:"functions"`
	Ran       int `json:"ran"`
	Estimated int `json:"estimated"`
	// Files of the package's own JavaScript, and how many were loaded.
	Files       int `json:"files"`
	FilesLoaded int `json:"files_loaded"`
}

// Variant is one run of an audit and what it varied (run.variants): the
// primary run, the witness run (no tracer, another identity, earlier
// launches), the calibration run (the primary's secrets again) and the
// secrets run (others of the same shapes). Values are names and ranges,
// never a secret.
type Variant struct {
	Name            string `json:"name"`
	Tracer          bool   `json:"tracer"`
	Secrets         string `json:"secrets"`
	User            string `json:"user"`
	Hostname        string `json:"hostname"`
	MachineID       string `json:"machine_id,omitempty"`
	AnswerNet       string `json:"answer_net"`
	Client          string `json:"client"`
	ClientEnv       string `json:"client_env,omitempty"`
	Launches        int    `json:"launches"`
	ClockRate       int    `json:"clock_rate"`
	ClockAheadYears int    `json:"clock_ahead_years,omitempty"`
	// ClockShiftDays: the run's clock started this many days ahead of real
	// time (the traced runs, alike: the calibration run's is seconds from
	// the primary's).
	ClockShiftDays int  `json:"clock_shift_days,omitempty"`
	RandomSeed     bool `json:"random_seed,omitempty"`
	// Protocol is the revision the run opened with when it was forced
	// (the era run of a dual-era server).
	Protocol string `json:"protocol,omitempty"`
}

// DerivedOutput is something the server emitted that follows the planted
// values (internal/differential): fields that were the same in the runs
// with the same secrets and different in the run with other secrets, or
// an emission only one side made. Values are never recorded — they carry
// the secrets and change with every audit — only what differed, and how
// long it is.
type DerivedOutput struct {
	Phase   string `json:"phase"`
	Channel string `json:"channel"` // dns, http, tcp, udp, service, result, message, file
	Dest    string `json:"dest"`
	// Fields name what differed ("body.data", "path/2", "qtype") and its
	// length in the primary run.
	Fields []string `json:"fields"`
	// Presence says which side alone made the emission.
	Presence string `json:"presence,omitempty"`
	// Count is how many emissions to Dest differed, when more than one.
	Count int `json:"count,omitempty"`
	// UserFiles: the run read the user's workspace files, so the output
	// may follow them rather than the planted credentials.
	UserFiles bool `json:"user_files,omitempty"`
	// Caller: the call of its phase named a workspace path, so what
	// follows the user's files there may be what the caller asked for.
	Caller bool `json:"caller,omitempty"`
}

// EraDifference is something a dual-era server offered or did in one
// protocol era and not the other.
type EraDifference struct {
	// Subject is what differed: "tools NAME description", "server
	// instructions", or a behaviour subject as the witness comparison
	// names it ("host DOMAIN", "canary NAME sent").
	Subject string `json:"subject"`
	// Eras is "A → B" for an offer that changed from era A's session to
	// era B's; Only is the era whose run alone did a behaviour.
	Eras     string `json:"eras,omitempty"`
	Only     string `json:"only,omitempty"`
	Evidence string `json:"evidence"`
}

// AppPage is one MCP Apps page (a ui:// resource a host renders in a
// sandboxed frame), read by the audit whether listed or not. Its hosts are
// client-side egress: the user's machine reaches them when the page runs.
type AppPage struct {
	URI      string `json:"uri"`
	MimeType string `json:"mime_type,omitempty"`
	SHA256   string `json:"sha256"`
	Size     int    `json:"size"`
	// Excerpt is the page's start, sanitized, canary values redacted.
	Excerpt string `json:"excerpt,omitempty"`
	// CSP are the domains its _meta declares, "KIND host"
	// (connectDomains, resourceDomains, frameDomains, baseUriDomains).
	CSP []string `json:"csp,omitempty"`
	// Permissions are what it asks the host for (camera, microphone, …).
	Permissions []string `json:"permissions,omitempty"`
	// Hosts are the hosts its HTML and scripts name (static: read from
	// the text, not by running it); Outside those its CSP does not cover.
	Hosts   []string `json:"hosts,omitempty"`
	Outside []string `json:"outside,omitempty"`
	Problem string   `json:"problem,omitempty"`
}

// Probe is a marker probe a call carried: a value in one parameter whose
// marker shows that the server evaluated, rendered, opened or fetched it.
type Probe struct {
	Param string `json:"param"`
	// Kind is expression, template, path or url.
	Kind string `json:"kind"`
	// Declared: the parameter's name or description announces what the
	// probe sends (evaluating it is then its documented use).
	Declared bool `json:"declared,omitempty"`
	// Markers are what shows it worked: "result VALUE" (in the call's
	// result), "file PATH" (opened), "dns HOST" (looked up).
	Markers []string `json:"markers"`
	// InResult: a result marker was in the call's result.
	InResult bool `json:"in_result,omitempty"`
}
