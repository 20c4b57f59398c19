package classify

import (
	"strconv"
	"strings"

	m "github.com/mcp-audit/mcp-audit/internal/manifest"
	"github.com/mcp-audit/mcp-audit/internal/trace"
)

// The image's Chromium keeps books on its own processes: the browser reads
// its children's /proc stat and status (and each thread's) for its task
// manager and memory metrics, resets their page counters (clear_refs),
// ranks them for the OOM killer (oom_score_adj), reads its mount table,
// and shares memory through memfd_create. Judged as any program's, that
// is "a file that reveals tracing", "tried to modify a system file" and a
// memfd alert on every page a browser server opens. Run as the sandbox
// runs it (sandbox/chromium.sh: its own sandbox off), it makes no unshare,
// setns or seccomp call at all, so nothing else needs an exception.
//
// The exception is by provenance, not by name: a process is the image's
// browser when it executed one of imageBrowser's paths (root's files in a
// root-owned directory: the server can neither change them nor put its own
// program there; a path it controls, a copy or a link under another name is
// not that path), or /proc/self/exe while it was the browser (how Chromium
// starts its utility processes), and stays so, with its threads and forks,
// until it executes anything else. Only those /proc files of the browser's
// own processes are let through; every other access by the browser (the
// pages it is made to open, a canary, the network, the programs it starts)
// is judged like the server's own. What remains: code the server injects
// into the browser (LD_PRELOAD, a PKCS#11 module, a Vulkan layer) could
// read those files unreported, which tells it only that it is traced, a
// thing a traced process can always learn; the witness run, not this
// finding, is what catches a server that acts on it.
var imageBrowser = map[string]bool{"/usr/lib/chromium/chromium": true, "/usr/lib/chromium/chrome_crashpad_handler": true}

// browserProcFiles are the /proc/<pid>/ (and /proc/<pid>/task/<tid>/)
// entries the browser uses for its own processes (observed in the image:
// Debian's Chromium 150, headless).
var browserProcFiles = map[string]bool{"stat": true, "status": true, "statm": true, "mountinfo": true,
	"clear_refs": true, "oom_score_adj": true, "task": true}

// browserExec follows a program start: the image's browser, its self-exec,
// or something else.
func (c *classifier) browserExec(r trace.Record) {
	if r.Failed() || r.Incomplete {
		return // the program did not change
	}
	c.browser[r.PID] = imageBrowser[r.Path] || r.Path == "/proc/self/exe" && c.browser[r.PID]
}

// browserOwn reports whether an access is the browser's bookkeeping of its
// own processes (see imageBrowser).
func (c *classifier) browserOwn(pid int, real string) bool {
	if !c.browser[pid] {
		return false
	}
	rest, ok := strings.CutPrefix(real, "/proc/")
	if !ok {
		return false
	}
	who, file, _ := strings.Cut(rest, "/")
	if who != "self" && who != "thread-self" {
		n, err := strconv.Atoi(who)
		if err != nil || !c.browser[n] {
			return false
		}
	}
	if t, ok := strings.CutPrefix(file, "task/"); ok {
		tid, f, _ := strings.Cut(t, "/")
		if _, err := strconv.Atoi(tid); err != nil {
			return false
		}
		file = f
	}
	return browserProcFiles[file]
}

// browserAlert reports an alert that is the browser's own shared memory.
func (c *classifier) browserAlert(r trace.Record) bool {
	return r.Op == "memfd_create" && c.browser[r.PID]
}

// browserCount puts the browser's own /proc access in the file summary
// (counted, not listed), as the runtime's.
func (p *phaseAcc) browserCount(fa m.FileAccess) {
	p.count(m.FileCount{Category: m.CatRuntime, Access: fa.Access, Result: fa.Result}, fa.Path)
}
