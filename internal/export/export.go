// Package export turns observed behavior into enforcement allow-lists for
// MCP runtimes: a ToolHive permission profile and the allowHosts list of a
// Docker MCP catalog entry. What a reviewed version did becomes what it
// may do.
package export

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"net/netip"

	m "github.com/mcp-audit/mcp-audit/internal/manifest"
	"github.com/mcp-audit/mcp-audit/internal/textsafe"
)

// Endpoint is a host and port the server connected to.
type Endpoint struct {
	Host string
	Port int
}

// Endpoints lists the egress endpoints of a manifest (every phase), by name
// when the sink knew it, sorted. Names come from the server's own DNS
// queries, so only hosts that pass ValidHost are exported: an allow-list
// must never carry a wildcard, a private or metadata address, or text.
func Endpoints(man *m.Manifest) []Endpoint {
	seen := map[Endpoint]bool{}
	for _, p := range man.Phases {
		for _, c := range p.Network {
			if c.Category != m.ConnEgress || c.Port == 0 || (c.Proto != "tcp" && c.Proto != "udp") {
				continue
			}
			h := c.Name
			if h == "" {
				h = c.Address
			}
			if ValidHost(h) == nil {
				seen[Endpoint{strings.ToLower(h), c.Port}] = true
			}
		}
	}
	out := make([]Endpoint, 0, len(seen))
	for e := range seen {
		out = append(out, e)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Host != out[j].Host {
			return out[i].Host < out[j].Host
		}
		return out[i].Port < out[j].Port
	})
	return out
}

// ToolHive is a ToolHive permission profile: outbound network limited to
// the observed hosts and ports. File system access is not exported: the
// profile's paths are host mounts, which an audit cannot infer.
func ToolHive(man *m.Manifest) ([]byte, error) {
	type outbound struct {
		InsecureAllowAll bool     `json:"insecure_allow_all"`
		AllowHost        []string `json:"allow_host"`
		AllowPort        []int    `json:"allow_port"`
	}
	var prof struct {
		Read    []string `json:"read"`
		Write   []string `json:"write"`
		Network struct {
			Outbound outbound `json:"outbound"`
		} `json:"network"`
	}
	prof.Read, prof.Write = []string{}, []string{}
	hosts, ports := map[string]bool{}, map[int]bool{}
	for _, e := range Endpoints(man) {
		hosts[e.Host], ports[e.Port] = true, true
	}
	prof.Network.Outbound.AllowHost, prof.Network.Outbound.AllowPort = keys(hosts), []int{}
	for p := range ports {
		prof.Network.Outbound.AllowPort = append(prof.Network.Outbound.AllowPort, p)
	}
	sort.Ints(prof.Network.Outbound.AllowPort)
	b, err := json.MarshalIndent(prof, "", "  ")
	return append(b, '\n'), err
}

func keys(mp map[string]bool) []string {
	out := []string{}
	for k := range mp {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// DockerAllowHosts is the allowHosts entry of a Docker MCP catalog server
// (host:port items), as YAML.
func DockerAllowHosts(man *m.Manifest) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s %s: hosts observed by mcp-audit\nallowHosts:", textsafe.Line(man.Target.Name, 200), textsafe.Line(man.Target.Version, 200))
	eps := Endpoints(man)
	if len(eps) == 0 {
		b.WriteString(" []\n")
		return []byte(b.String())
	}
	b.WriteString("\n")
	for _, e := range eps {
		b.WriteString("  - " + strconv.Quote(e.Host+":"+strconv.Itoa(e.Port)) + "\n")
	}
	return []byte(b.String())
}

// ValidHost accepts what an allow-list may name: an RFC 1123 host name
// with at least two labels and no wildcard, or a public unicast IP
// address. Loopback, private, link-local (cloud metadata), shared,
// benchmark (the sinkhole's own 198.18.0.0/15) and reserved ranges, and
// local-only names, are refused.
func ValidHost(h string) error {
	if a, err := netip.ParseAddr(h); err == nil {
		if !publicAddr(a) {
			return fmt.Errorf("%q is not a public address", h)
		}
		return nil
	}
	if len(h) == 0 || len(h) > 253 {
		return fmt.Errorf("host name of %d bytes", len(h))
	}
	labels := strings.Split(strings.TrimSuffix(strings.ToLower(h), "."), ".")
	if len(labels) < 2 {
		return fmt.Errorf("%q is not a fully qualified name", textsafe.Line(h, 200))
	}
	for _, l := range labels {
		if !validLabel(l) {
			return fmt.Errorf("%q is not an RFC 1123 host name", textsafe.Line(h, 200))
		}
	}
	switch labels[len(labels)-1] {
	case "localhost", "local", "internal", "lan", "home", "arpa":
		return fmt.Errorf("%q is a local name", textsafe.Line(h, 200))
	}
	if _, err := strconv.Atoi(labels[len(labels)-1]); err == nil {
		return fmt.Errorf("%q looks like a partial address", textsafe.Line(h, 200))
	}
	return nil
}

func validLabel(l string) bool {
	if len(l) == 0 || len(l) > 63 || l[0] == '-' || l[len(l)-1] == '-' {
		return false
	}
	for i := 0; i < len(l); i++ {
		c := l[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}

var nonPublic = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"), netip.MustParsePrefix("100.64.0.0/10"), netip.MustParsePrefix("192.0.0.0/24"),
	netip.MustParsePrefix("192.0.2.0/24"), netip.MustParsePrefix("198.18.0.0/15"), netip.MustParsePrefix("198.51.100.0/24"),
	netip.MustParsePrefix("203.0.113.0/24"), netip.MustParsePrefix("240.0.0.0/4"), netip.MustParsePrefix("2001:db8::/32"),
	netip.MustParsePrefix("64:ff9b::/96"),
}

func publicAddr(a netip.Addr) bool {
	a = a.Unmap()
	if !a.IsGlobalUnicast() || a.IsPrivate() || a.IsLoopback() || a.IsLinkLocalUnicast() || a.IsUnspecified() {
		return false
	}
	for _, p := range nonPublic {
		if p.Contains(a) {
			return false
		}
	}
	return true
}
