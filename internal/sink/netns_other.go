//go:build !linux

package sink

import (
	"errors"
	"net"
)

// errLinuxOnly: the sink lives in the sandbox's network namespace, which
// only Linux has. Builds for other systems (macOS, for diff, report and
// export) keep the package compiling and fail here.
var errLinuxOnly = errors.New("the network sink runs only on Linux")

func setupSinkhole() error { return errLinuxOnly }

func setupOpen() error { return errLinuxOnly }

func originalDst(*net.TCPConn) (*net.TCPAddr, error) { return nil, errLinuxOnly }
