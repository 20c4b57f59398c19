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
		{o: Options{Transport: TransportHTTP, Network: sandbox.NetSinkhole}, want: &sandbox.HTTPEndpoint{Port: DefaultHTTPPort, Path: DefaultHTTPPath}},
		{o: Options{Transport: TransportHTTP, Network: sandbox.NetOpen, HTTPPort: 3000, HTTPPath: "/rpc"}, want: &sandbox.HTTPEndpoint{Port: 3000, Path: "/rpc"}},
		{o: Options{Transport: TransportHTTP, Network: sandbox.NetNone}, bad: true},
		{o: Options{Transport: TransportHTTP, Network: sandbox.NetSinkhole, HTTPPort: 70000}, bad: true},
		{o: Options{Transport: TransportHTTP, Network: sandbox.NetSinkhole, HTTPPath: "mcp"}, bad: true},
		{o: Options{Transport: TransportHTTP, Network: sandbox.NetSinkhole, HTTPPath: "/a b"}, bad: true},
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
