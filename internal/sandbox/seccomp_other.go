//go:build !linux

package sandbox

import (
	"errors"

	"github.com/moby/profiles/seccomp"
)

// defaultProfile: Docker's default profile is defined for Linux only, like
// the sandbox; builds for other systems (macOS, for diff, report and
// export) compile and fail here.
func defaultProfile() (*seccomp.Seccomp, error) {
	return nil, errors.New("the sandbox's seccomp profile exists only on Linux")
}
