package batch

import (
	"runtime"

	"github.com/mcp-audit/mcp-audit/internal/audit"
	"github.com/mcp-audit/mcp-audit/internal/sandbox"
)

// auditsPerCore is how many audits share a core. An audit mostly waits:
// on the engine creating, starting and removing containers, on the
// server's answers, on each call's settle window and on the idle window;
// its own CPU (the tracer, the sink, the host's parsing) is a fraction of
// its wall time, so one audit per core leaves the cores idle most of the
// time (docs/performance.md).
const auditsPerCore = 2

// DefaultJobs sizes a batch by what an audit waits on (auditsPerCore per
// core), bounded by memory: every sandbox an audit holds at once
// (SandboxesPerAudit) may use the default memory limit.
func DefaultJobs(sandboxes int) int {
	return jobsFor(runtime.NumCPU(), totalMemory(), sandbox.DefaultLimits.MemoryBytes, sandboxes)
}

// SandboxesPerAudit is how many sandboxes an audit with these options
// holds at once: the traced run, the witness run beside it, and the
// calibration and secrets runs of the differential judgement (the era
// run of a server that speaks both protocol eras comes after them).
func SandboxesPerAudit(o audit.Options) int {
	n := 1
	if o.Witness {
		n++
	}
	if o.Differential {
		n += 2
	}
	return n
}

// jobsFor is the number of parallel audits for cores and mem bytes of
// memory (0: unknown), each audit holding sandboxes of perSandbox bytes.
func jobsFor(cores int, mem, perSandbox int64, sandboxes int) int {
	n := cores * auditsPerCore
	if mem > 0 && perSandbox > 0 {
		n = min(n, int(mem/(perSandbox*int64(max(1, sandboxes)))))
	}
	return max(1, n)
}
