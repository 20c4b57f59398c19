package sandbox

import (
	"encoding/json"
	"fmt"
	"sync"

	"github.com/moby/profiles/seccomp"
	specs "github.com/opencontainers/runtime-spec/specs-go"
)

// enosys is the errno io_uring calls get: "not implemented" makes libuv and
// other runtimes fall back to ordinary syscalls, which the tracer sees.
const enosys = 38

var (
	profileOnce sync.Once
	profileJSON string
	profileErr  error
)

// SeccompProfile returns the sandbox's seccomp profile as JSON: Docker's
// default allow-list, plus io_uring answered with ENOSYS and seccomp filters
// with a user-notification listener answered with EPERM. io_uring lets a
// process read and write files without any syscall the tracer can see
// (reproduced on this kind of machine: with UV_USE_IO_URING=1 node read a
// file with no openat in the trace).
func SeccompProfile() (string, error) {
	profileOnce.Do(func() {
		p, err := defaultProfile()
		if err != nil {
			profileErr = err
			return
		}
		errno := uint(enosys)
		rule := &seccomp.Syscall{
			LinuxSyscall: specs.LinuxSyscall{
				Names:    []string{"io_uring_setup", "io_uring_enter", "io_uring_register"},
				Action:   specs.ActErrno,
				ErrnoRet: &errno,
			},
			Comment: "mcp-audit: io_uring bypasses syscall tracing",
		}
		// Drop any allow rule for io_uring so that only the errno rule
		// applies, whatever order the runtime evaluates rules in.
		var kept []*seccomp.Syscall
		for _, s := range p.Syscalls {
			var names []string
			for _, n := range s.Names {
				if n != "io_uring_setup" && n != "io_uring_enter" && n != "io_uring_register" {
					names = append(names, n)
				}
			}
			if len(names) > 0 {
				s.Names = names
				kept = append(kept, s)
			}
		}
		p.Syscalls = append(dropListener(kept), rule, listenerRule(true), listenerRule(false))
		b, err := json.Marshal(p)
		if err != nil {
			profileErr = fmt.Errorf("encoding seccomp profile: %w", err)
			return
		}
		profileJSON = string(b)
	})
	return profileJSON, profileErr
}

// newListener is SECCOMP_FILTER_FLAG_NEW_LISTENER. A filter installed with
// it returns SECCOMP_RET_USER_NOTIF, which outranks the tracer's
// SECCOMP_RET_TRACE: a notified call answered with "continue" runs with no
// ptrace stop, invisible to strace --seccomp-bpf. Filters without a listener
// cannot hide a call that succeeds, and strace and browsers install them,
// so only this flag is refused.
const newListener = 8

// dropListener removes seccomp from the unconditional allow rules, so that
// only listenerRule decides it.
func dropListener(rules []*seccomp.Syscall) []*seccomp.Syscall {
	var kept []*seccomp.Syscall
	for _, s := range rules {
		if len(s.Args) == 0 && s.Action == specs.ActAllow {
			var names []string
			for _, n := range s.Names {
				if n != "seccomp" {
					names = append(names, n)
				}
			}
			if len(names) == 0 {
				continue
			}
			s.Names = names
		}
		kept = append(kept, s)
	}
	return kept
}

// listenerRule allows seccomp() without the listener flag, or answers it
// with EPERM when the flag is set.
func listenerRule(refuse bool) *seccomp.Syscall {
	r := &seccomp.Syscall{
		LinuxSyscall: specs.LinuxSyscall{
			Names:  []string{"seccomp"},
			Action: specs.ActAllow,
			Args:   []specs.LinuxSeccompArg{{Index: 1, Value: newListener, ValueTwo: 0, Op: specs.OpMaskedEqual}},
		},
		Comment: "mcp-audit: seccomp filters without a listener",
	}
	if refuse {
		// SIGSYS rather than an errno: an errno outranks the tracer, so the
		// attempt would leave no trace; the signal is traced (the
		// entrypoint prints SIGSYS) and becomes a seccomp_listener alert.
		r.Action = specs.ActTrap
		r.Args[0].ValueTwo = newListener
		r.Comment = "mcp-audit: a seccomp listener hides calls from the tracer"
	}
	return r
}
