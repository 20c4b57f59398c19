package classify

import (
	"fmt"
	"maps"
	"path"
	"regexp"
	"slices"
	"strings"

	m "github.com/mcp-audit/mcp-audit/internal/manifest"
	"github.com/mcp-audit/mcp-audit/internal/trace"
)

var shells = map[string]bool{"sh": true, "bash": true, "dash": true, "zsh": true, "ash": true, "ksh": true,
	"csh": true, "tcsh": true, "fish": true, "busybox": true, "mksh": true}

// exec records a program start. Its argv is bounded, redacted and
// normalized, and scanned for canary values handed to the program.
func (c *classifier) exec(p *phaseAcc, r trace.Record) {
	argv := c.execArgv(p, r)
	if fileless(r.Path) {
		p.Alerts = append(p.Alerts, m.Alert{Kind: m.AlertFilelessExec, Detail: "exec of " + r.Path + " (" + result(r) + ")"})
	}
	if r.Path != "" && (!r.Failed() || r.Incomplete) && len(r.Argv) > 0 {
		c.setProcess(r.PID, r.Argv)
	}
	c.browserExec(r)
	c.gitExec(r)
	if c.in.PlumbingRoot != 0 && r.PID == c.in.PlumbingRoot {
		c.plumb[r.PID] = true
	}
	if c.plumb[r.PID] && p.Name == m.PhaseInstall {
		c.plumbed++
		return
	}
	if r.Errno == "ENOENT" || r.Errno == "ENOTDIR" {
		return // a PATH lookup probing for the program
	}
	c.installExec(p, r)
	// The first program a lifecycle pid runs is the script's shell; a
	// later exec in the same pid (a shell exec'ing its last command) is
	// what the script started.
	lifecycle := c.lifecycle[r.PID] && p.Name == m.PhaseInstall && !r.Failed()
	delete(c.lifecycle, r.PID)
	if len(p.Processes) >= maxProcsPerPhase {
		p.dropped++
		return
	}
	p.Processes = append(p.Processes, m.Process{
		Path:      c.in.Layout.Normalize(r.Path),
		Argv:      argv,
		Result:    result(r),
		Shell:     shells[path.Base(r.Path)],
		Lifecycle: lifecycle,
	})
}

// execArgv is the argv of an exec as the manifest lists it, recording the
// canary values found in it.
func (c *classifier) execArgv(p *phaseAcc, r trace.Record) []string {
	l := c.in.Layout
	argv := make([]string, 0, min(len(r.Argv), maxArgs))
	for i, a := range r.Argv {
		if i > 0 && slices.Contains(c.in.Injected, a) {
			continue
		}
		if i == maxArgs {
			argv = append(argv, fmt.Sprintf("…(%d more)", len(r.Argv)-maxArgs))
			break
		}
		for _, h := range c.finder.FindString(a) {
			p.Canaries = append(p.Canaries, m.CanaryHit{Canary: h.Canary, How: m.HowArgv, Evidence: l.Normalize(r.Path), Encoding: h.Encoding})
		}
		if c.in.Canaries != nil {
			a = c.in.Canaries.Redact(a)
		}
		if strings.HasPrefix(a, "/") {
			a = l.Normalize(a)
		}
		if len(a) > maxArgLen {
			a = a[:maxArgLen] + "…"
		}
		argv = append(argv, a)
	}
	if r.ArgvTrunc {
		argv = append(argv, "…")
	}
	return argv
}

// processOf returns the program a pid was running, normalized.
func (c *classifier) processOf(pid int) string {
	return c.procs[pid]
}

// setProcess remembers a short form of what a pid runs, to name the
// process behind network activity.
func (c *classifier) setProcess(pid int, argv []string) {
	l := c.in.Layout
	parts := make([]string, 0, len(argv))
	for i, a := range argv {
		if i > 0 && slices.Contains(c.in.Injected, a) {
			continue
		}
		if i == 8 {
			parts = append(parts, "…")
			break
		}
		if c.in.Canaries != nil {
			a = c.in.Canaries.Redact(a)
		}
		if strings.HasPrefix(a, "/") {
			a = l.Normalize(a)
		}
		if len(a) > 80 {
			a = a[:80] + "…"
		}
		parts = append(parts, a)
	}
	c.procs[pid] = strings.Join(parts, " ")
}

func (c *classifier) process(p *phaseAcc, r trace.Record) {
	switch r.Op {
	case "clone", "fork":
		c.clone(p, r)
	case "kill":
		c.kill(p, r)
	}
}

// clone lets a child inherit its parent's program, plumbing mark and
// sockets, and flags a request to escape the tracer.
func (c *classifier) clone(p *phaseAcc, r trace.Record) {
	if r.UntracedClone() {
		res := "allowed"
		if r.Failed() {
			res = "denied (" + r.Errno + ")"
		}
		p.Alerts = append(p.Alerts, m.Alert{Kind: m.AlertUntracedClone, Detail: "clone with CLONE_UNTRACED " + res})
	}
	if r.Child <= 0 {
		return
	}
	if c.procs[r.PID] != "" {
		c.procs[r.Child] = c.procs[r.PID]
	}
	c.browser[r.Child] = c.browser[r.PID]
	c.git[r.Child] = c.git[r.PID]
	c.forkCwd(r.PID, r.Child, r.CloneFlags)
	// Only the root's own children are plumbing (the install shell starts
	// npm); npm's children run the package's lifecycle scripts, and the
	// first program each runs is a script's shell (see exec).
	c.lifecycle[r.Child] = c.in.PlumbingRoot != 0 && c.plumb[r.PID] && r.PID != c.in.PlumbingRoot
	c.plumb[r.Child] = c.in.PlumbingRoot != 0 && r.PID == c.in.PlumbingRoot
	parent := c.table(r.PID)
	if slices.Contains(r.CloneFlags, "CLONE_FILES") {
		c.fds[r.Child] = parent
	} else {
		c.fds[r.Child] = maps.Clone(parent)
	}
	c.pids[r.Child] = true
}

// kill flags signals aimed beyond the server's own process tree.
func (c *classifier) kill(p *phaseAcc, r trace.Record) {
	if r.Signal == "0" || strings.HasSuffix(r.Signal, " 0") {
		return // existence probe
	}
	switch {
	case r.SignalPID == -1:
		p.Alerts = append(p.Alerts, m.Alert{Kind: m.AlertKill, Detail: "signal " + r.Signal + " to every process"})
	case r.SignalPID <= 0:
		// Own process group: ordinary job control.
	case !c.pids[r.SignalPID]:
		p.Alerts = append(p.Alerts, m.Alert{Kind: m.AlertKill, Detail: "signal " + r.Signal + " to a process outside the server's tree"})
	}
}

var reFdPath = regexp.MustCompile(`^/(proc/(self|thread-self|[0-9]+)|dev)/fd/[0-9]+$`)

// fileless reports an exec whose program is no file on disk: an open
// descriptor (/proc/self/fd/N, /dev/fd/N) or a memfd ("/memfd:name").
func fileless(p string) bool {
	return strings.HasPrefix(p, "/memfd:") || reFdPath.MatchString(p)
}
