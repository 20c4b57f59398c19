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
// default allow-list, plus io_uring answered with ENOSYS. io_uring lets a
// process read and write files without any syscall the tracer can see
// (reproduced on this kind of machine: with UV_USE_IO_URING=1 node read a
// file with no openat in the trace).
func SeccompProfile() (string, error) {
	profileOnce.Do(func() {
		p := seccomp.DefaultProfile()
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
		p.Syscalls = append(kept, rule)
		b, err := json.Marshal(p)
		if err != nil {
			profileErr = fmt.Errorf("encoding seccomp profile: %w", err)
			return
		}
		profileJSON = string(b)
	})
	return profileJSON, profileErr
}
