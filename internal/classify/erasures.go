package classify

import (
	"fmt"
	"path"
	"strings"

	"github.com/mcp-audit/mcp-audit/internal/deptree"
	m "github.com/mcp-audit/mcp-audit/internal/manifest"
	"github.com/mcp-audit/mcp-audit/internal/trace"
)

// maxInstallEvents bounds the install phase's file events followed for
// erased traces; past it an alert says the rest were not.
const maxInstallEvents = 200_000

// scratchDirs are where dropped payloads land besides the package tree
// and the home.
var scratchDirs = []string{"/tmp", "/var/tmp", "/dev/shm"}

// installEvents keeps the install phase's file operations in trace order
// (what is left on disk cannot show an install that erased its traces;
// the order of its operations can). The plumbing's own events never get
// here (event leaves them out).
type installEvents struct {
	events  []deptree.FileEvent
	dropped int
}

func (e *installEvents) add(ev deptree.FileEvent) {
	if len(e.events) >= maxInstallEvents {
		e.dropped++
		return
	}
	e.events = append(e.events, ev)
}

// installFile records a successful file operation of the install phase,
// by the path the call named (deptree follows renames itself). For link,
// r has already been turned to record the new name.
func (c *classifier) installFile(p *phaseAcc, r trace.Record) {
	if p.Name != m.PhaseInstall || result(r) != m.ResultOK {
		return
	}
	real := path.Clean(r.Path)
	switch r.Op {
	case "open":
		switch {
		case r.Create:
			c.install.add(deptree.FileEvent{Path: real, Op: deptree.OpCreate})
		case r.Write || r.Trunc:
			c.install.add(deptree.FileEvent{Path: real, Op: deptree.OpWrite})
		}
	case "truncate":
		c.install.add(deptree.FileEvent{Path: real, Op: deptree.OpWrite})
	case "link":
		c.install.add(deptree.FileEvent{Path: real, Op: deptree.OpCreate})
	case "unlink":
		c.install.add(deptree.FileEvent{Path: real, Op: deptree.OpDelete})
	case "rename":
		if strings.HasPrefix(r.Path2, "/") {
			c.install.add(deptree.FileEvent{Path: real, Op: deptree.OpRename, Target: path.Clean(r.Path2)})
		}
	}
}

// installExec records a program the install phase ran: the file itself,
// and a script an interpreter was given by its absolute path.
func (c *classifier) installExec(p *phaseAcc, r trace.Record) {
	if p.Name != m.PhaseInstall || r.Failed() || r.Path == "" {
		return
	}
	c.install.add(deptree.FileEvent{Path: path.Clean(r.Path), Op: deptree.OpExec})
	for i, a := range r.Argv {
		if i == 0 || i > 4 {
			continue
		}
		if strings.HasPrefix(a, "/") {
			c.install.add(deptree.FileEvent{Path: path.Clean(a), Op: deptree.OpExec})
		}
	}
}

// erasures adds to the install phase an alert for each sign that the
// install erased its traces: a file written, run and deleted; a
// package.json written or renamed over; a file that was there before the
// install, deleted by it. A file written and deleted without being run
// (a build's temporaries) is no alert.
func (c *classifier) erasures() {
	var p *phaseAcc
	for _, ph := range c.phases {
		if ph.Name == m.PhaseInstall {
			p = ph
		}
	}
	if p == nil || len(c.install.events) == 0 {
		return
	}
	l := c.in.Layout
	roots := append([]string{l.Home}, scratchDirs...)
	if l.AppRoot != "" {
		roots = append(roots, l.AppRoot)
	} else if l.PkgRoot != "" {
		roots = append(roots, l.PkgRoot)
	}
	found, omitted := deptree.Erasures(c.install.events, roots)
	kinds := map[string]string{deptree.EraseDropped: m.AlertDroppedRunDeleted, deptree.EraseManifest: m.AlertReplacedManifest,
		deptree.EraseExisting: m.AlertDeletedExisting}
	for _, e := range found {
		kind, ok := kinds[e.Kind]
		if !ok {
			continue
		}
		ops := make([]string, len(e.Ops))
		for i, op := range e.Ops {
			if dst, ok := strings.CutPrefix(op, deptree.OpRename+" "); ok {
				op = deptree.OpRename + " " + l.Normalize(dst)
			}
			ops[i] = op
		}
		p.Alerts = append(p.Alerts, m.Alert{Kind: kind, Detail: l.Normalize(e.Path) + " (" + strings.Join(ops, ", ") + ")"})
	}
	if n := omitted + c.install.dropped; n > 0 {
		p.Alerts = append(p.Alerts, m.Alert{Kind: m.AlertTraceIncomplete,
			Detail: fmt.Sprintf("%d file events of the install were not followed for erased traces", n)})
	}
}
