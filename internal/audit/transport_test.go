package audit

import (
	"errors"
	"testing"

	"github.com/mcp-audit/mcp-audit/internal/sandbox"
	"github.com/mcp-audit/mcp-audit/internal/target"
)

func TestHTTPEndpoint(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		o    Options
		want *sandbox.HTTPEndpoint
		bad  bool
	}{
		{o: Options{}, want: nil},
		{o: Options{Transport: TransportStdio}, want: nil},
		{o: Options{Transport: TransportHTTP, Sandbox: SandboxOptions{Network: sandbox.NetSinkhole}}, want: &sandbox.HTTPEndpoint{Port: DefaultHTTPPort, Path: DefaultHTTPPath}},
		{o: Options{Transport: TransportHTTP, HTTPPort: 3000, HTTPPath: "/rpc", Sandbox: SandboxOptions{Network: sandbox.NetOpen}}, want: &sandbox.HTTPEndpoint{Port: 3000, Path: "/rpc"}},
		{o: Options{Transport: TransportHTTP, Sandbox: SandboxOptions{Network: sandbox.NetNone}}, bad: true},
		{o: Options{Transport: TransportHTTP, HTTPPort: 70000, Sandbox: SandboxOptions{Network: sandbox.NetSinkhole}}, bad: true},
		{o: Options{Transport: TransportHTTP, HTTPPath: "mcp", Sandbox: SandboxOptions{Network: sandbox.NetSinkhole}}, bad: true},
		{o: Options{Transport: TransportHTTP, HTTPPath: "/a b", Sandbox: SandboxOptions{Network: sandbox.NetSinkhole}}, bad: true},
		{o: Options{Transport: "grpc"}, bad: true},
	} {
		got, err := httpEndpoint(tc.o)
		if tc.bad {
			if !errors.Is(err, target.ErrUsage) {
				t.Errorf("%+v: err %v, want a usage error", tc.o, err)
			}
			continue
		}
		if err != nil || (got == nil) != (tc.want == nil) || got != nil && *got != *tc.want {
			t.Errorf("%+v: %+v %v, want %+v", tc.o, got, err, tc.want)
		}
	}
}
