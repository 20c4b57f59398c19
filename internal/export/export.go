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

	"github.com/mcp-audit/mcp-audit/internal/hosts"
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
// queries, so only hosts that pass hosts.Valid are exported: an allow-list
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
			if hosts.Valid(h) == nil {
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
