// Package policy turns observed behavior into findings with severities and
// decides the verdict. Severities follow the defaults in docs/policy.md;
// users relax them per server with allow-lists (hosts, paths, processes).
//
// Findings state what was observed, with evidence; the severity, not the
// wording, carries the judgement.
package policy

import (
	"cmp"
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/mcp-audit/mcp-audit/internal/canary"
	m "github.com/mcp-audit/mcp-audit/internal/manifest"
)

// Severity orders findings.
type Severity int

// Severities, lowest first.
const (
	Info Severity = iota
	Low
	Medium
	High
	Critical
)

var severityNames = []string{"info", "low", "medium", "high", "critical"}

func (s Severity) String() string {
	if int(s) < len(severityNames) {
		return severityNames[s]
	}
	return "unknown"
}

// MarshalText encodes the severity name.
func (s Severity) MarshalText() ([]byte, error) {
	if s > Critical {
		return []byte("none"), nil
	}
	return []byte(s.String()), nil
}

// UnmarshalText decodes a severity name.
func (s *Severity) UnmarshalText(b []byte) error {
	v, err := ParseSeverity(string(b))
	*s = v
	return err
}

// ParseSeverity parses a severity name; "none" means nothing fails.
func ParseSeverity(s string) (Severity, error) {
	for i, n := range severityNames {
		if strings.EqualFold(s, n) {
			return Severity(i), nil
		}
	}
	if strings.EqualFold(s, "none") || strings.EqualFold(s, "never") {
		return Critical + 1, nil
	}
	return 0, fmt.Errorf("unknown severity %q (want info, low, medium, high, critical or none)", s)
}

// Finding kinds.
const (
	KindCanary        = "canary"
	KindCredential    = "credential" // a credential the server was given, and where it went
	KindPersistence   = "persistence-write"
	KindAIConfig      = "ai-client-config"
	KindSensitive     = "sensitive-file"
	KindAntiAnalysis  = "anti-analysis"
	KindHost          = "host"
	KindListener      = "listener"
	KindProcess       = "process"
	KindShell         = "shell"
	KindEscape        = "escape-attempt"
	KindSystemFile    = "system-file"
	KindWrite         = "write"
	KindOutcome       = "outcome"
	KindTool          = "tool"
	KindTrace         = "trace"
	KindInstallScript = "install-script"
)

// Finding is one policy-relevant observation.
type Finding struct {
	Severity Severity `json:"severity"`
	Kind     string   `json:"kind"`
	Phase    string   `json:"phase"`
	// Subject is what the finding is about (a path, host, program); it and
	// Kind identify the finding across versions.
	Subject  string `json:"subject"`
	Summary  string `json:"summary"`
	Evidence string `json:"evidence,omitempty"`
}

// Key identifies a finding independent of wording, for diffs and dedupe.
func (f Finding) Key() string { return f.Kind + "\x00" + f.Phase + "\x00" + f.Subject }

// Allow is a per-server allow-list. Allowed behavior yields no finding.
type Allow struct {
	// Hosts are names or addresses; "*.example.com" matches subdomains.
	Hosts []string `yaml:"hosts" json:"hosts"`
	// Paths are normalized paths; a trailing /** matches a subtree.
	Paths []string `yaml:"paths" json:"paths"`
	// Processes are program paths or base names.
	Processes []string `yaml:"processes" json:"processes"`
}

// Policy configures evaluation.
type Policy struct {
	Allow  Allow
	FailOn Severity
}

// DefaultFailOn is the threshold used when none is configured.
const DefaultFailOn = High

// Evaluate lists the findings in a manifest, sorted most severe first.
func Evaluate(man *m.Manifest, pol Policy) []Finding {
	var out []Finding
	add := func(f Finding) { out = append(out, f) }
	for _, ph := range man.Phases {
		egress := false
		for _, c := range ph.Network {
			if c.Category == "egress" {
				egress = true
			}
		}
		for _, h := range ph.Canaries {
			ev := h.Evidence
			if h.Encoding != "" && h.Encoding != "raw" {
				ev += " (" + h.Encoding + "-encoded)"
			}
			sev := Critical
			if h.How == "mcp-output" {
				// Handed to the client and its model, not to a third party:
				// exposure rather than exfiltration.
				sev = High
			}
			if h.Canary == "file:"+canary.WorkspaceEnv && (h.How == "file-read" || h.How == "file-read-witness") {
				// dotenv loads the .env of the working directory at startup;
				// many servers do. The user's project secrets then live in the
				// server's environment: worth knowing, not yet a theft (any
				// value sent on is a critical "sent" hit).
				add(Finding{High, KindCanary, ph.Name, h.Canary + " " + h.How,
					"read the .env file of its working directory (dotenv does this at startup)", ev})
				continue
			}
			if h.Given && (h.How == "sent" || h.How == "argv") {
				// The server was given this credential to use it: sending it
				// to its API is its job. Where it went is worth seeing (and
				// a new destination is a new host); it is not a theft.
				add(Finding{Medium, KindCredential, ph.Name, h.Canary + " " + h.How,
					fmt.Sprintf("used the credential it was given, %s: %s", h.Canary, describeHow(h.How)), ev})
				continue
			}
			add(Finding{sev, KindCanary, ph.Name, h.Canary + " " + h.How, fmt.Sprintf("canary %s: %s", h.Canary, describeHow(h.How)), ev})
		}
		for _, f := range ph.Files {
			if pol.Allow.path(f.Path) {
				continue
			}
			if fd, ok := fileFinding(ph.Name, f); ok {
				add(fd)
			}
		}
		for _, p := range ph.Processes {
			if isServerProcess(man, p) || pol.Allow.process(p.Path) {
				continue
			}
			argv := strings.Join(p.Argv, " ")
			if p.Shell && ph.Name == m.PhaseInstall && len(p.Argv) == 3 && p.Argv[1] == "-c" {
				// npm runs every lifecycle script with sh -c.
				add(Finding{Low, KindInstallScript, ph.Name, p.Argv[2], "ran an install script", argv})
				continue
			}
			if p.Shell {
				sev := Medium
				if egress {
					sev = High
				}
				add(Finding{sev, KindShell, ph.Name, p.Path, "started a shell", argv})
				continue
			}
			add(Finding{Low, KindProcess, ph.Name, p.Path, "started a process", argv})
		}
		hosts := map[string]bool{}
		for _, d := range ph.DNS {
			if pol.Allow.host(d.Name) || hosts[d.Name] {
				continue
			}
			hosts[d.Name] = true
			add(Finding{High, KindHost, ph.Name, d.Name, "looked up host " + d.Name, d.Type + " query to " + d.Server})
		}
		for _, c := range ph.Network {
			subject := c.Name
			if subject == "" {
				subject = c.Address
			}
			switch c.Category {
			case "egress":
				if pol.Allow.host(subject) || pol.Allow.host(c.Address) || hosts[subject] {
					continue
				}
				hosts[subject] = true
				add(Finding{High, KindHost, ph.Name, subject, fmt.Sprintf("contacted %s", endpoint(c)),
					fmt.Sprintf("%s %s %s", c.Proto, c.Op, c.Result)})
			case "listener":
				add(Finding{Medium, KindListener, ph.Name, endpoint(c), "opened a listening socket", c.Proto + " " + c.Op})
			case "sensitive":
				add(Finding{High, KindSensitive, ph.Name, c.Address, "connected to a privileged local socket", c.Address + " " + c.Result})
			}
		}
		for _, a := range ph.Alerts {
			sev := High
			if a.Kind == m.AlertTraceIncomplete {
				sev = Medium
			}
			kind := KindEscape
			if a.Kind == m.AlertTraceIncomplete {
				kind = KindTrace
			}
			add(Finding{sev, kind, ph.Name, a.Kind, "anti-analysis or escape attempt: " + a.Kind, a.Detail})
		}
	}
	out = append(out, injectionFindings(man)...)
	switch man.Outcome.Status {
	case m.StatusOK:
	case m.StatusKilled:
		add(Finding{Low, KindOutcome, "", man.Outcome.Status, "the server was killed: " + man.Outcome.Reason, ""})
	default:
		add(Finding{Info, KindOutcome, "", man.Outcome.Status, "the server did not run normally: " + man.Outcome.Reason, ""})
	}
	slices.SortStableFunc(out, func(a, b Finding) int {
		return cmp.Or(cmp.Compare(b.Severity, a.Severity), strings.Compare(a.Kind, b.Kind),
			cmp.Compare(phaseOrder(a.Phase), phaseOrder(b.Phase)), strings.Compare(a.Phase, b.Phase), strings.Compare(a.Subject, b.Subject))
	})
	return slices.CompactFunc(out, func(a, b Finding) bool { return a.Key() == b.Key() && a.Severity == b.Severity })
}

func phaseOrder(p string) int {
	switch {
	case p == m.PhaseInstall:
		return 0
	case p == m.PhaseStartup:
		return 1
	case strings.HasPrefix(p, "call:"):
		return 2
	case strings.HasPrefix(p, "prompt:"):
		return 3
	case strings.HasPrefix(p, "read:"):
		return 4
	case p == m.PhaseIdle:
		return 5
	}
	return 6
}

func describeHow(how string) string {
	switch how {
	case "file-read":
		return "decoy file read"
	case "file-read-witness":
		return "decoy file read without a traced open (seen by its access time)"
	case "file-write", "file-delete", "file-rename":
		return "decoy file modified (" + strings.TrimPrefix(how, "file-") + ")"
	case "sent":
		return "value sent over the network"
	case "argv":
		return "value passed to a process"
	case "mcp-output":
		return "value returned to the MCP client"
	}
	return how
}

func endpoint(c m.Connection) string {
	host := c.Name
	if host == "" {
		host = c.Address
	}
	if c.Port == 0 {
		return host
	}
	if strings.Contains(host, ":") {
		return fmt.Sprintf("[%s]:%d", host, c.Port)
	}
	return fmt.Sprintf("%s:%d", host, c.Port)
}

func isWrite(access string) bool {
	switch access {
	case m.AccessWrite, m.AccessCreate, m.AccessDelete, m.AccessRename, m.AccessSymlink, m.AccessDirWrite:
		return true
	}
	return false
}

func fileFinding(phase string, f m.FileAccess) (Finding, bool) {
	ev := fmt.Sprintf("%s %s (%s)", f.Access, f.Path, f.Result)
	if f.Target != "" {
		ev += " -> " + f.Target
	}
	subject := f.Path
	w := isWrite(f.Access)
	switch f.Category {
	case m.CatCanary:
		if f.Access == m.AccessStat {
			return Finding{Medium, KindSensitive, phase, subject, "checked for a credential file", ev}, true
		}
		return Finding{}, false // reads and writes of canaries are canary findings
	case m.CatShellRC:
		if w {
			return Finding{Critical, KindPersistence, phase, subject, "modified a shell startup or autostart file", ev}, true
		}
		return Finding{Low, KindSystemFile, phase, subject, "read a shell startup file", ev}, true
	case m.CatAIConfig:
		if w {
			return Finding{Critical, KindAIConfig, phase, subject, "modified AI client configuration", ev}, true
		}
		return Finding{High, KindAIConfig, phase, subject, "read AI client configuration", ev}, true
	case m.CatSensitive:
		switch {
		case w:
			return Finding{Critical, KindSensitive, phase, subject, "modified a credential or private file", ev}, true
		case f.Result == m.ResultOK && f.Access == m.AccessRead:
			return Finding{High, KindSensitive, phase, subject, "read a credential or private file", ev}, true
		default:
			return Finding{Medium, KindSensitive, phase, subject, "tried to access a credential or private file", ev}, true
		}
	case m.CatAntiAnalysis:
		return Finding{Medium, KindAntiAnalysis, phase, subject, "read a file that reveals tracing or a container", ev}, true
	case m.CatSystem:
		if w {
			return Finding{Medium, KindWrite, phase, subject, "tried to modify a system file", ev}, true
		}
		if f.Result == m.ResultOK {
			return Finding{Low, KindSystemFile, phase, subject, "read a system file", ev}, true
		}
	case m.CatHome, m.CatOther:
		if w {
			return Finding{Low, KindWrite, phase, subject, "wrote outside its package and temp", ev}, true
		}
		if f.Result == m.ResultOK && f.Category == m.CatHome {
			return Finding{Low, KindSystemFile, phase, subject, "read a file in the home directory", ev}, true
		}
	case m.CatOwnPackage, m.CatRuntime:
		if w {
			return Finding{Low, KindWrite, phase, subject, "tried to modify installed code", ev}, true
		}
	}
	return Finding{}, false
}

// isServerProcess recognizes the server's own start (the entry command).
func isServerProcess(man *m.Manifest, p m.Process) bool {
	e := man.Target.Entry
	if len(e) == 0 || len(p.Argv) < len(e) {
		return false
	}
	if path.Base(e[0]) != path.Base(p.Path) && path.Base(e[0]) != path.Base(p.Argv[0]) {
		return false
	}
	return slices.Equal(p.Argv[1:len(e)], e[1:])
}

func (a Allow) host(h string) bool {
	h = strings.ToLower(strings.TrimSuffix(h, "."))
	for _, p := range a.Hosts {
		p = strings.ToLower(p)
		if p == h || strings.HasPrefix(p, "*.") && strings.HasSuffix(h, p[1:]) {
			return true
		}
	}
	return false
}

func (a Allow) path(p string) bool {
	for _, x := range a.Paths {
		if x == p || strings.HasSuffix(x, "/**") && strings.HasPrefix(p, strings.TrimSuffix(x, "**")) {
			return true
		}
		if ok, _ := path.Match(x, p); ok {
			return true
		}
	}
	return false
}

func (a Allow) process(p string) bool {
	for _, x := range a.Processes {
		if x == p || x == path.Base(p) {
			return true
		}
	}
	return false
}

// Failed reports whether any finding is at or above the threshold.
func Failed(fs []Finding, failOn Severity) bool {
	for _, f := range fs {
		if f.Severity >= failOn {
			return true
		}
	}
	return false
}

// Counts returns the number of findings per severity name.
func Counts(fs []Finding) map[string]int {
	c := map[string]int{}
	for _, f := range fs {
		c[f.Severity.String()]++
	}
	return c
}
