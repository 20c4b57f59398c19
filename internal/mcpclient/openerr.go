package mcpclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// CodeUnsupportedVersion is the 2026-07-28 UnsupportedProtocolVersion
// error; codeUnsupportedDraft is its number in the drafts before the
// revision renumbered it (some SDK betas still send it).
const (
	CodeUnsupportedVersion = -32022
	codeUnsupportedDraft   = -32004
)

// OpenError is a failed opening. Err is what happened: an *RPCError (the
// server answered with an error, or an HTTP status: HTTPStatus), ErrClosed
// (the server's output ended), or context.DeadlineExceeded (nothing
// answered in time).
type OpenError struct {
	Protocol string // the Protocol the opening was asked for
	Step     string // the request that failed: server/discover or initialize
	Probe    Probe  // the modern probe's outcome (auto)
	Err      error
	// Transport is the transport's last failure to reach the server (an
	// HTTP server that never listened, an event stream that ended), when
	// the opening ran out of time or the stream closed.
	Transport string
}

func (c *Client) openErr(proto, step string, err error, p Probe) *OpenError {
	e := &OpenError{Protocol: proto, Step: step, Err: err, Probe: p}
	if l, ok := c.w.(interface{ lastError() string }); ok && (errors.Is(err, context.DeadlineExceeded) || errors.Is(err, ErrClosed)) {
		e.Transport = l.lastError()
	}
	return e
}

func (e *OpenError) Error() string {
	var rpc *RPCError
	switch {
	case errors.Is(e.Err, context.DeadlineExceeded) && e.Transport != "":
		return fmt.Sprintf("%s was not answered in time: the server could not be reached (%s)", e.Step, e.Transport)
	case errors.Is(e.Err, context.DeadlineExceeded):
		return fmt.Sprintf("%s was not answered in time", e.Step)
	case errors.Is(e.Err, ErrClosed) && e.Transport != "":
		return fmt.Sprintf("the server closed its output before answering %s (%s)", e.Step, e.Transport)
	case errors.Is(e.Err, ErrClosed):
		return fmt.Sprintf("the server closed its output before answering %s", e.Step)
	case errors.As(e.Err, &rpc) && rpc.Code == CodeTransport:
		return fmt.Sprintf("%s failed: %s", e.Step, rpc.Message)
	case errors.As(e.Err, &rpc):
		msg := fmt.Sprintf("%s was answered with an error: %s", e.Step, rpc.Error())
		if s, ok := modernError(rpc); ok {
			msg += " (supported: " + truncate(joinVersions(s), 200) + ")"
		}
		return msg
	}
	return fmt.Sprintf("%s: %v", e.Step, e.Err)
}

func (e *OpenError) Unwrap() error { return e.Err }

// modernError reports whether rpc is the unsupported-version error of the
// modern era, with the versions it lists.
func modernError(rpc *RPCError) ([]string, bool) {
	if rpc == nil || rpc.Code != CodeUnsupportedVersion && rpc.Code != codeUnsupportedDraft {
		return nil, false
	}
	var d struct {
		Supported []json.RawMessage `json:"supported"`
	}
	if json.Unmarshal(rpc.Data, &d) != nil || d.Supported == nil {
		return nil, false
	}
	var out []string
	for _, v := range d.Supported[:min(len(d.Supported), maxVersions)] {
		var s string
		if json.Unmarshal(v, &s) == nil {
			out = append(out, truncate(s, 64))
		}
	}
	return out, true
}

// hasLegacy reports whether a version list names a 2025-era revision
// (revisions are dates; the modern era starts at 2026-07-28).
func hasLegacy(versions []string) bool {
	return slices.ContainsFunc(versions, func(v string) bool { return len(v) == 10 && v < ProtocolModern })
}

func joinVersions(v []string) string { return strings.Join(v, ", ") }
