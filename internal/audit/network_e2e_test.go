package audit_test

import (
	"cmp"
	"context"
	"fmt"
	"net"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/miekg/dns"
	"github.com/moby/moby/client"

	"github.com/mcp-audit/mcp-audit/internal/audit"
	m "github.com/mcp-audit/mcp-audit/internal/manifest"
	"github.com/mcp-audit/mcp-audit/internal/policy"
	"github.com/mcp-audit/mcp-audit/internal/sandbox"
	"github.com/mcp-audit/mcp-audit/internal/testenv"
)

func runResult(t *testing.T, o audit.Options) *audit.Result {
	t.Helper()
	if o.Timing.IdleQuiet == 0 {
		o.Timing.IdleQuiet, o.Timing.IdleMin = time.Second, 500*time.Millisecond
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	res, err := audit.Run(ctx, deps(t), harnessOptions(o))
	if err != nil {
		t.Fatalf("audit %s: %v", o.Target, err)
	}
	return res
}

// harnessOptions has the sinkhole answer the reserved names the fixtures
// use (testenv.AnswerReserved), unless the test chose otherwise, and
// plants every canary variable (testenv.AllCanaries).
func harnessOptions(o audit.Options) audit.Options {
	if o.Sandbox.AnswerReserved == nil {
		o.Sandbox.AnswerReserved = testenv.AnswerReserved
	}
	o.AllCanaries = testenv.AllCanaries
	return o
}

func canaryHits(p *m.Phase) map[string]m.CanaryHit {
	out := map[string]m.CanaryHit{}
	for _, h := range p.Canaries {
		out[h.Canary+" "+h.How+" "+h.Evidence] = h
	}
	return out
}

// TestSinkholeRecordsWhatServersSend runs every network behavior of the
// fixture in the default sinkhole mode and checks each appears with the
// right name, port and canary hit.
func TestSinkholeRecordsWhatServersSend(t *testing.T) {
	t.Parallel()
	// OPENAI_API_KEY is declared as the credential the server needs; the
	// others are planted.
	res := runResult(t, audit.Options{Target: fixture, CanaryEnv: []string{"OPENAI_API_KEY"}, Args: []string{
		"post-fetch", "post-https", "tls-raw", "dns-hex", "odd-port", "rogue-dns", "udp"}})
	man := res.Manifest
	st := man.PhaseByName(m.PhaseStartup)
	if man.Outcome.Status != m.StatusOK {
		t.Fatalf("outcome %+v", man.Outcome)
	}
	hits := canaryHits(st)
	for _, want := range []struct{ key, enc string }{
		{"env:GITHUB_TOKEN sent https POST api.fixture.example/v1/send", "raw"},
		{"env:OPENAI_API_KEY sent https POST hooks.fixture.example/collect", "url"},
		{"env:NPM_TOKEN sent udp 192.0.2.99:9999", "raw"},
	} {
		if h, ok := hits[want.key]; !ok || h.Encoding != want.enc && !(want.enc == "url" && h.Encoding == "raw") {
			t.Errorf("missing canary hit %q (%s); have %v", want.key, want.enc, keys(hits))
		}
	}
	for key, h := range hits {
		if h.Given != strings.HasPrefix(key, "env:OPENAI_API_KEY ") {
			t.Errorf("%s: given=%v", key, h.Given)
		}
	}
	kinds := map[string]policy.Severity{}
	for _, f := range policy.Evaluate(man, policy.Policy{FailOn: policy.DefaultFailOn}) {
		if f.Kind == policy.KindCanary || f.Kind == policy.KindCredential {
			kinds[f.Kind+" "+f.Subject] = f.Severity
		}
	}
	if kinds["credential env:OPENAI_API_KEY sent"] != policy.Medium || kinds["canary env:GITHUB_TOKEN sent"] != policy.Critical {
		t.Errorf("a given credential sent is medium, a planted one critical: %v", kinds)
	}
	var dnsHex bool
	for _, h := range st.Canaries {
		dnsHex = dnsHex || h.Canary == "env:AWS_SECRET_ACCESS_KEY" && h.Encoding == "hex" && strings.HasSuffix(h.Evidence, ".exfil.example")
	}
	if !dnsHex {
		t.Errorf("hex canary in a DNS label not found: %v", keys(hits))
	}

	conns := map[string]m.Connection{}
	for _, c := range st.Network {
		conns[fmt.Sprintf("%s %s:%d", c.Proto, cmp.Or(c.Name, c.Address), c.Port)] = c
	}
	for key, check := range map[string]func(c m.Connection) bool{
		"tcp api.fixture.example:443": func(c m.Connection) bool {
			return c.TLS == "intercepted" && c.SNI == "api.fixture.example" && c.Address == ""
		},
		"tcp hooks.fixture.example:443": func(c m.Connection) bool { return c.TLS == "intercepted" },
		"tcp raw.fixture.example:8443":  func(c m.Connection) bool { return c.Protocol == "tls" && c.SNI == "raw.fixture.example" },
		"tcp 198.51.100.7:4444":         func(c m.Connection) bool { return c.Protocol == "other" },
		"udp 192.0.2.99:9999":           func(c m.Connection) bool { return c.Op == "send" },
	} {
		c, ok := conns[key]
		if !ok || !check(c) {
			t.Errorf("connection %s: got %+v (have %v)", key, c, keys(conns))
		}
		if ok && !strings.HasPrefix(c.Process, "node <pkg>/server.js") {
			t.Errorf("connection %s not attributed to the server process: %q", key, c.Process)
		}
	}
	var rogue bool
	for _, d := range st.DNS {
		rogue = rogue || d.Name == "rogue.fixture.example" && d.Server == "203.0.113.53"
	}
	if !rogue {
		t.Errorf("query to the rogue resolver not recorded: %+v", st.DNS)
	}
	var post *m.Request
	for i, r := range st.Requests {
		if r.Name == "api.fixture.example" {
			post = &st.Requests[i]
		}
	}
	if post == nil || post.Method != "POST" || post.Path != "/v1/send" || strings.Join(post.BodyFields, ",") != "to,token" ||
		strings.Join(post.Emails, ",") != "someone@fixture.example" {
		t.Errorf("request record %+v", post)
	}
	// Bodies go to the evidence, with canaries redacted and secrets masked.
	var ev bool
	for _, e := range res.Evidence {
		if e.Name == "api.fixture.example" && e.Kind == "http" {
			ev = true
			if !strings.Contains(e.Body, "<canary env:GITHUB_TOKEN>") || strings.Contains(e.Body, "ghp_") {
				t.Errorf("evidence body not redacted: %q", e.Body)
			}
			for _, h := range e.Headers {
				if strings.EqualFold(h[0], "authorization") && h[1] != "<masked>" {
					t.Errorf("authorization header not masked: %q", h[1])
				}
			}
			if e.TraceLine == 0 {
				t.Error("evidence does not link to the connect in the trace")
			}
		}
	}
	if !ev {
		t.Error("no evidence for the POST")
	}
	b, _ := m.Encode(man)
	for _, secret := range []string{"ghp_", "sk-proj-", "npm_"} {
		if strings.Contains(string(b), secret) {
			t.Errorf("manifest contains a canary value (%s…)", secret)
		}
	}
}

func keys[V any](mp map[string]V) []string {
	var out []string
	for k := range mp {
		out = append(out, k)
	}
	return out
}

// TestRealServerShowsItsHosts audits a real npm server that checks for
// updates at startup: its host appears by name with the request it sent,
// and nothing left the sandbox.
func TestRealServerShowsItsHosts(t *testing.T) {
	t.Parallel()
	man := run(t, audit.Options{Target: "npm:okx-trade-mcp@1.2.8"})
	// The update check runs in the background, so it may finish after the
	// handshake: look in every phase.
	var conn, req bool
	for _, p := range man.Phases {
		for _, c := range p.Network {
			conn = conn || c.Category == "egress" && c.Name != "" && c.TLS == "intercepted" && c.SNI == c.Name
		}
		for _, r := range p.Requests {
			req = req || r.Method == "GET" && r.Scheme == "https" && strings.Contains(r.Path, "okx-trade-mcp")
		}
	}
	if !conn || !req {
		t.Errorf("expected a named, intercepted connection and its request: %+v", man.Phases)
	}
}

// hostListeners listens for TCP and UDP on addr and counts what arrives.
func hostListeners(t *testing.T, ip string) (port int, got *atomic.Int32) {
	t.Helper()
	got = &atomic.Int32{}
	l, err := net.Listen("tcp4", ip+":0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	port = l.Addr().(*net.TCPAddr).Port
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			got.Add(1)
			c.Close()
		}
	}()
	u, err := net.ListenPacket("udp4", fmt.Sprintf("%s:%d", ip, port))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { u.Close() })
	go func() {
		buf := make([]byte, 2048)
		for {
			if _, _, err := u.ReadFrom(buf); err != nil {
				return
			}
			got.Add(1)
		}
	}()
	return port, got
}

func bridgeGateway(t *testing.T) string {
	t.Helper()
	res, err := testenv.Engine(t).NetworkInspect(context.Background(), "bridge", client.NetworkInspectOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range res.Network.IPAM.Config {
		if c.Gateway.Is4() {
			return c.Gateway.String()
		}
	}
	// Docker 20.10 leaves the default bridge's gateway out of inspect; it
	// is the address of the docker0 interface.
	if ifc, err := net.InterfaceByName("docker0"); err == nil {
		addrs, _ := ifc.Addrs()
		for _, a := range addrs {
			if ipn, ok := a.(*net.IPNet); ok && ipn.IP.To4() != nil {
				return ipn.IP.String()
			}
		}
	}
	t.Skip("no IPv4 address for the Docker bridge")
	return ""
}

// TestContainment: a server that tries to reach listeners on the host's
// loopback and on the Docker bridge address reaches neither, in the
// sinkhole and in no-network mode.
func TestContainment(t *testing.T) {
	t.Parallel()
	gw := bridgeGateway(t)
	loPort, loGot := hostListeners(t, "127.0.0.1")
	gwPort, gwGot := hostListeners(t, gw)
	for _, mode := range []string{sandbox.NetSinkhole, sandbox.NetNone} {
		t.Run(mode, func(t *testing.T) {
			man := run(t, audit.Options{Target: fixture, Args: []string{
				fmt.Sprintf("connect=127.0.0.1:%d", loPort), fmt.Sprintf("connect=%s:%d", gw, gwPort),
				fmt.Sprintf("udp=127.0.0.1:%d", loPort), fmt.Sprintf("udp=%s:%d", gw, gwPort)}, Sandbox:
			// The attempts are on record…
			audit.SandboxOptions{Network: mode},
			})

			st := man.PhaseByName(m.PhaseStartup)
			var attempted bool
			for _, c := range st.Network {
				attempted = attempted || c.Address == gw && c.Port == gwPort
			}
			if !attempted {
				t.Errorf("attempt to reach %s:%d not recorded: %+v", gw, gwPort, st.Network)
			}
		})
	}
	// …and nothing arrived.
	time.Sleep(500 * time.Millisecond)
	if n := loGot.Load() + gwGot.Load(); n != 0 {
		t.Fatalf("host listeners received %d connections or datagrams from the sandbox", n)
	}
}

// TestOpenMode: real egress, names still logged through the forwarding
// resolver. To keep every packet on this machine, the upstream resolver and
// the destination are listeners on the Docker bridge address.
func TestOpenMode(t *testing.T) {
	t.Parallel()
	gw := bridgeGateway(t)
	port, got := hostListeners(t, gw)
	pc, err := net.ListenPacket("udp4", gw+":0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &dns.Server{PacketConn: pc, Handler: dns.HandlerFunc(func(w dns.ResponseWriter, r *dns.Msg) {
		resp := new(dns.Msg)
		resp.SetReply(r)
		for _, q := range r.Question {
			if q.Qtype == dns.TypeA && q.Name == "svc.fixture.example." {
				resp.Answer = append(resp.Answer, &dns.A{Hdr: dns.RR_Header{Name: q.Name, Rrtype: dns.TypeA, Class: dns.ClassINET, Ttl: 5},
					A: net.ParseIP(gw).To4()})
			}
		}
		w.WriteMsg(resp)
	})}
	go srv.ActivateAndServe()
	defer srv.Shutdown()
	man := run(t, audit.Options{Target: fixture,
		Args: []string{fmt.Sprintf("connect=svc.fixture.example:%d", port)}, Sandbox: audit.SandboxOptions{Network: sandbox.NetOpen, UpstreamDNS: pc.LocalAddr().String()},
	})
	st := man.PhaseByName(m.PhaseStartup)
	var named bool
	for _, c := range st.Network {
		named = named || c.Name == "svc.fixture.example" && c.Address == gw && c.Port == port
	}
	if !named {
		t.Errorf("connection not mapped to its name: %+v", st.Network)
	}
	if got.Load() == 0 {
		t.Error("open mode did not reach the destination")
	}
}
