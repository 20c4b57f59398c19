package classify

import (
	m "github.com/mcp-audit/mcp-audit/internal/manifest"
	"github.com/mcp-audit/mcp-audit/internal/trace"
)

// alertKinds maps the syscalls that are suspicious in themselves to the
// manifest's alert kinds.
var alertKinds = map[string]string{
	"io_uring_setup": m.AlertIOURing, "io_uring_enter": m.AlertIOURing, "io_uring_register": m.AlertIOURing,
	"ptrace": m.AlertPtrace, "memfd_create": m.AlertMemfd, "bpf": m.AlertBPF,
	"unshare": m.AlertNamespace, "setns": m.AlertNamespace,
	"process_vm_readv": m.AlertProcessVM, "process_vm_writev": m.AlertProcessVM, "mount": m.AlertMount,
	"seccomp": m.AlertSeccompListener,
}

// alert records an anti-analysis or escape attempt, whether or not the
// sandbox let it succeed: the attempt is the behavior.
func (c *classifier) alert(p *phaseAcc, r trace.Record) {
	kind := alertKinds[r.Op]
	if kind == "" && r.Name != "SIGSYS" || c.browserAlert(r) {
		return
	}
	res := "succeeded"
	if r.Failed() {
		res = "denied (" + r.Errno + ")"
	} else if r.Incomplete {
		res = "in progress"
	}
	detail := r.Name + " " + res
	if r.Op == "ptrace" && len(r.Args) > 0 {
		detail = r.Name + "(" + r.Args[0] + ") " + res
	}
	if r.Op == "mount" {
		detail = r.Description + " " + res
	}
	if r.Name == "SIGSYS" {
		detail = r.Description + ": the call did not run"
		if kind == "" {
			kind = m.AlertSeccompListener
		}
	}
	p.Alerts = append(p.Alerts, m.Alert{Kind: kind, Detail: detail})
}
