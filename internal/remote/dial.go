package remote

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"sync/atomic"
	"syscall"
	"time"
)

// ErrRefused: the server's address is one a surface audit does not
// contact (private, loopback, link-local, …), or its URL is not http(s).
var ErrRefused = errors.New("not contacted")

// refusedNets are the ranges a surface audit never connects to: a URL in
// a client file is anyone's (a project's .mcp.json comes with the
// repository), and these reach the user's own machine, network or cloud
// metadata service instead of a public server.
var refusedNets = func() []netip.Prefix {
	var out []netip.Prefix
	for _, s := range []string{
		"0.0.0.0/8", "10.0.0.0/8", "100.64.0.0/10", "127.0.0.0/8", "169.254.0.0/16", "172.16.0.0/12",
		"192.0.0.0/24", "192.168.0.0/16", "198.18.0.0/15", "224.0.0.0/4", "240.0.0.0/4",
		"::/128", "::1/128", "fc00::/7", "fe80::/10", "ff00::/8", "64:ff9b:1::/48",
	} {
		out = append(out, netip.MustParsePrefix(s))
	}
	return out
}()

var nat64 = netip.MustParsePrefix("64:ff9b::/96")

// Refused says why addr may not be contacted ("" when it may): loopback
// only when allowLoopback (tests).
func Refused(addr netip.Addr, allowLoopback bool) string {
	addr = addr.Unmap()
	if nat64.Contains(addr) {
		// NAT64 carries an IPv4 address in its last 32 bits.
		b := addr.As16()
		addr = netip.AddrFrom4([4]byte{b[12], b[13], b[14], b[15]})
	}
	if allowLoopback && addr.IsLoopback() {
		return ""
	}
	for _, p := range refusedNets {
		if p.Contains(addr) {
			return fmt.Sprintf("%s is a private, loopback, link-local or reserved address", addr)
		}
	}
	return ""
}

// guard refuses connections to refused addresses at the moment of
// connecting, after name resolution, so a name that resolves (or
// rebinds) to one is refused too. It remembers the last refusal.
type guard struct {
	allowLoopback bool
	refused       atomic.Pointer[string]
}

func (g *guard) control(_, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return fmt.Errorf("%w: cannot read the address %q", ErrRefused, address)
	}
	if why := Refused(ap.Addr(), g.allowLoopback); why != "" {
		g.refused.Store(&why)
		return fmt.Errorf("%w: %s", ErrRefused, why)
	}
	return nil
}

// why is the last refusal, "" when none.
func (g *guard) why() string {
	if p := g.refused.Load(); p != nil {
		return *p
	}
	return ""
}

// newHTTPClient is the only road to the server: no proxy (the address
// checked is the server's), no cookies, no redirect to another origin,
// bounded headers, and every response body drawn from one byte budget.
func newHTTPClient(g *guard, budget *budget) *http.Client {
	d := &net.Dialer{Timeout: 15 * time.Second, Control: g.control}
	tr := &http.Transport{
		Proxy: nil, DialContext: d.DialContext, ForceAttemptHTTP2: true,
		TLSHandshakeTimeout: 15 * time.Second, ResponseHeaderTimeout: 30 * time.Second,
		MaxResponseHeaderBytes: 64 << 10, MaxIdleConns: 4, IdleConnTimeout: 30 * time.Second,
	}
	return &http.Client{
		Transport: budgetTransport{next: tr, b: budget},
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			first := via[0].URL
			if len(via) > 3 || req.URL.Scheme != first.Scheme || req.URL.Host != first.Host {
				return fmt.Errorf("%w: a redirect to another origin or too many redirects", ErrRefused)
			}
			return nil
		},
	}
}

// checkURL accepts an http or https URL whose host, when it is an
// address, is not refused.
func checkURL(raw string, allowLoopback bool) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return nil, fmt.Errorf("%w: not an http or https URL", ErrRefused)
	}
	if u.User != nil || u.RawQuery != "" || u.Fragment != "" {
		return nil, fmt.Errorf("%w: a URL with a user, a query or a fragment (they can hold keys)", ErrRefused)
	}
	host := u.Hostname()
	if a, err := netip.ParseAddr(host); err == nil {
		if why := Refused(a, allowLoopback); why != "" {
			return nil, fmt.Errorf("%w: %s", ErrRefused, why)
		}
	} else if h := strings.ToLower(strings.TrimSuffix(host, ".")); h == "localhost" || strings.HasSuffix(h, ".localhost") || strings.HasSuffix(h, ".local") {
		if !allowLoopback {
			return nil, fmt.Errorf("%w: %s names this machine or its network", ErrRefused, host)
		}
	}
	return u, nil
}

// budget is what may still be read from the server, over every response
// of the audit: a server cannot make it read without end by answering
// each bounded request with a large body, page after page.
type budget struct{ left atomic.Int64 }

// errBudget ends a body past the budget.
var errBudget = errors.New("the server sent more than the surface audit reads")

type budgetTransport struct {
	next http.RoundTripper
	b    *budget
}

func (t budgetTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if t.b.left.Load() <= 0 {
		return nil, errBudget
	}
	resp, err := t.next.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	resp.Body = &budgetBody{rc: resp.Body, b: t.b}
	return resp, nil
}

type budgetBody struct {
	rc io.ReadCloser
	b  *budget
}

func (r *budgetBody) Read(p []byte) (int, error) {
	if r.b.left.Load() <= 0 {
		return 0, errBudget
	}
	n, err := r.rc.Read(p)
	r.b.left.Add(-int64(n))
	return n, err
}

func (r *budgetBody) Close() error { return r.rc.Close() }
