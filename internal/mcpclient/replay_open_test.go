package mcpclient

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// Openings against what the real SDK servers answered.

func openCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// A modern-only SDK v2 server (legacy: 'reject') is opened in the modern
// era: the discover result's _meta carries its identity.
func TestReplayOpenModernOnly(t *testing.T) {
	for _, name := range []string{"sdk2-modern-only-stdio-auto", "sdk2-modern-only-http-auto"} {
		t.Run(name, func(t *testing.T) {
			var c *Client
			var hc *headerCheck
			if strings.Contains(name, "http") {
				c, _, hc = replayHTTP(t, name, Options{})
			} else {
				c, _ = replayStdio(t, name, Options{})
			}
			o, err := c.Open(openCtx(t), OpenOptions{})
			if err != nil {
				t.Fatal(err)
			}
			got := []any{o.Era, o.Eras, o.Probe.Outcome, o.ServerInfo.Name, o.ServerInfoIn, o.SupportedVersions, o.CapabilityNames(), o.Instructions}
			want := []any{EraModern, []Era{EraModern}, ProbeDiscover, "sdk2-modern-only", "result _meta", []string{"2026-07-28"},
				[]string{"completions", "prompts", "resources", "tools"}, "Use echo to check the connection before other tools."}
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("opening (-want +got):\n%s", d)
			}
			if c.Era() != EraModern || o.Cache.TTLMs != 0 || o.Cache.Scope != "private" {
				t.Errorf("era %s cache %+v", c.Era(), o.Cache)
			}
			if hc != nil {
				hc.check(t)
			}
		})
	}
}

// The 2025 handshake against a modern-only server fails at once with
// the server's own reason, on both transports: not "not answered in time".
func TestReplayLegacyRejectedWithReason(t *testing.T) {
	for _, name := range []string{"sdk2-modern-only-stdio-legacy", "sdk2-modern-only-http-legacy"} {
		t.Run(name, func(t *testing.T) {
			var c *Client
			if strings.Contains(name, "http") {
				c, _, _ = replayHTTP(t, name, Options{})
			} else {
				c, _ = replayStdio(t, name, Options{})
			}
			start := time.Now()
			_, err := c.Open(openCtx(t), OpenOptions{Protocol: ProtocolLegacy})
			var oe *OpenError
			var rpc *RPCError
			if !errors.As(err, &oe) || !errors.As(err, &rpc) || rpc.Code != CodeUnsupportedVersion {
				t.Fatalf("err = %v", err)
			}
			if !strings.Contains(err.Error(), "supported: 2026-07-28") || time.Since(start) > time.Second {
				t.Errorf("err %q after %v", err, time.Since(start))
			}
		})
	}
}

// TestReplayProbeIsAll2025ServersSee: an SDK v1 server answers the probe
// with -32601; after it the auto client sends exactly what the 2025
// client sends (the same messages, the same ids), and the probe's error
// answer is observed as the probe's.
func TestReplayProbeIsAll2025ServersSee(t *testing.T) {
	for _, name := range []string{"sdk1-legacy-stdio-auto", "sdk1-legacy-http-auto", "sdk1-legacy-sse-auto"} {
		t.Run(name, func(t *testing.T) {
			var sent [2][]string
			for i, proto := range []string{ProtocolAuto, ProtocolLegacy} {
				var obs []Observation
				co := Options{Observe: func(o Observation) { obs = append(obs, o) }}
				var c *Client
				var r *replay
				switch {
				case strings.Contains(name, "-http-"):
					c, r, _ = replayHTTP(t, name, co)
				case strings.Contains(name, "-sse-"):
					c, r = replaySSE(t, name, co)
				default:
					c, r = replayStdio(t, name, co)
				}
				o, err := c.Open(openCtx(t), OpenOptions{Protocol: proto})
				if err != nil || o.Era != EraLegacy || o.ServerInfo.Name != "sdk1-legacy" {
					t.Fatalf("%s: %v %+v", proto, err, o)
				}
				if _, err := c.List(openCtx(t), "tools/list", "tools"); err != nil {
					t.Fatal(err)
				}
				time.Sleep(50 * time.Millisecond) // notifications/initialized is not awaited
				sent[i] = r.sentRaw()
				if proto == ProtocolAuto {
					wantOutcome := map[bool]string{false: ProbeOtherError, true: ProbeHTTPStatus}[strings.Contains(name, "-http-")]
					if o.Probe.Outcome != wantOutcome || !slices.ContainsFunc(obs, func(o Observation) bool { return o.Source == SourceProbe }) {
						t.Errorf("probe %+v, observations %+v", o.Probe, obs)
					}
				}
			}
			// The probe first; the rest byte for byte (in any order: HTTP
			// posts a notification without waiting).
			if len(sent[0]) == 0 || !strings.Contains(sent[0][0], `"id":"server-discover-probe-1"`) {
				t.Fatalf("auto did not probe first: %q", sent[0])
			}
			after := slices.Sorted(slices.Values(sent[0][1:]))
			if d := cmp.Diff(slices.Sorted(slices.Values(sent[1])), after); d != "" {
				t.Errorf("after the probe, auto sent (-2025 client +auto):\n%s", d)
			}
		})
	}
}
