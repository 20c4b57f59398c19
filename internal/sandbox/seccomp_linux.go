//go:build linux

package sandbox

import "github.com/moby/profiles/seccomp"

// defaultProfile is Docker's default seccomp allow-list.
func defaultProfile() (*seccomp.Seccomp, error) { return seccomp.DefaultProfile(), nil }
