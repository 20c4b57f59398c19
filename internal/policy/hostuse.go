package policy

import (
	"cmp"
	"slices"
	"strings"

	"github.com/mcp-audit/mcp-audit/internal/hosts"
	m "github.com/mcp-audit/mcp-audit/internal/manifest"
)

// Relations of a contacted host to the server, from least to most
// concerning; reports group hosts by them.
const (
	RelationSupplied   = "supplied"    // the configuration or a call's arguments named it
	RelationService    = "service"     // the server's own service (homepage, repository, given credential's host)
	RelationThirdParty = "third-party" // contacted during a call, nobody named it
	RelationUnexpected = "unexpected"  // contacted unprompted, or received a planted canary
)

var relationRank = map[string]int{RelationSupplied: 0, RelationService: 1, RelationThirdParty: 2, RelationUnexpected: 3}

// HostUse is one host a server contacted, how it relates to the server,
// and in which phases.
type HostUse struct {
	Host     string   `json:"host"`
	Relation string   `json:"relation"`
	Calls    int      `json:"calls"`  // call phases in which it was contacted
	Phases   []string `json:"phases"` // sorted
}

// HostUses relates every host a manifest contacted (looked up, connected
// to, sent a request to) to the server, with the same context the egress
// findings use. A host seen in several phases takes its most concerning
// relation: a host the caller supplied that is also contacted unprompted
// at startup is unexpected.
func HostUses(man *m.Manifest) []HostUse {
	e := newEgressContext(man)
	stolen := canaryRecipients(man)
	byHost := map[string]*HostUse{}
	for _, ph := range man.Phases {
		for _, h := range phaseHosts(ph) {
			u := byHost[h]
			if u == nil {
				u = &HostUse{Host: h, Relation: RelationSupplied}
				byHost[h] = u
			}
			if isCallPhase(ph.Name) {
				u.Calls++
			}
			u.Phases = append(u.Phases, ph.Name)
			rel := e.relation(h, ph.Name)
			if stolen[h] {
				rel = RelationUnexpected
			}
			if relationRank[rel] > relationRank[u.Relation] {
				u.Relation = rel
			}
		}
	}
	out := make([]HostUse, 0, len(byHost))
	for _, u := range byHost {
		slices.Sort(u.Phases)
		out = append(out, *u)
	}
	slices.SortFunc(out, func(a, b HostUse) int {
		if d := relationRank[b.Relation] - relationRank[a.Relation]; d != 0 {
			return d
		}
		return strings.Compare(a.Host, b.Host)
	})
	return out
}

// relation is how a host contacted in a phase relates to the server.
func (e *egressContext) relation(h, phase string) string {
	switch {
	case e.supplied[h] || e.byCall[phase][h]:
		return RelationSupplied
	case hosts.SameService(h, e.service):
		return RelationService
	case isCallPhase(phase):
		return RelationThirdParty
	}
	return RelationUnexpected
}

// phaseHosts are the distinct host names (or addresses, when no name is
// known) a phase looked up, connected to or sent a request to.
func phaseHosts(ph m.Phase) []string {
	seen := map[string]bool{}
	add := func(h string) {
		h = strings.ToLower(strings.TrimSuffix(h, "."))
		if h != "" {
			seen[h] = true
		}
	}
	for _, d := range ph.DNS {
		add(d.Name)
	}
	for _, c := range ph.Network {
		if c.Category == m.ConnEgress {
			add(cmp.Or(c.Name, c.Address))
		}
	}
	for _, r := range ph.Requests {
		add(cmp.Or(r.Name, r.Host))
	}
	out := make([]string, 0, len(seen))
	for h := range seen {
		out = append(out, h)
	}
	slices.Sort(out)
	return out
}

// canaryRecipients are the hosts a planted canary was sent to.
func canaryRecipients(man *m.Manifest) map[string]bool {
	out := map[string]bool{}
	for _, ph := range man.Phases {
		for _, h := range ph.Canaries {
			if !h.Given && h.How == m.HowSent {
				if host := sentTo(h.Evidence); host != "" {
					out[host] = true
				}
			}
		}
	}
	return out
}
