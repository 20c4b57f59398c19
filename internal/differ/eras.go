package differ

import (
	"slices"
	"strings"

	"github.com/mcp-audit/mcp-audit/internal/diff"
	m "github.com/mcp-audit/mcp-audit/internal/manifest"
	"github.com/mcp-audit/mcp-audit/internal/textsafe"
)

// Eras lists what a server that speaks both protocol eras showed in one
// and not the other: run a and run b are the same server with the same
// secrets, identity and calls, opened in different eras. Its surface is
// compared as the offers of two sessions are (tools, prompts, resources,
// templates, field by field, after canonical encoding — so what the
// revisions themselves leave out or add, such as where serverInfo sits,
// is not compared), and its instructions; its behaviour as the witness
// comparison sees it (canaries, hosts, bare addresses).
func Eras(a, b Run) []m.EraDifference {
	var out []m.EraDifference
	for _, c := range diff.Offers(a.Manifest, b.Manifest, nil) {
		out = append(out, m.EraDifference{Subject: c.List + " " + c.Name + " " + c.Field, Eras: a.Name + " → " + b.Name, Evidence: c.Diff})
	}
	for _, c := range diff.Offers(b.Manifest, a.Manifest, nil) {
		if c.Field == "added" { // offered only in a's era: b's comparison lists no removal
			out = append(out, m.EraDifference{Subject: c.List + " " + c.Name + " offered", Only: a.Name, Evidence: c.Diff})
		}
	}
	if ia, ib := a.Manifest.Server.Instructions, b.Manifest.Server.Instructions; ia != ib {
		out = append(out, m.EraDifference{Subject: "server instructions", Eras: a.Name + " → " + b.Name,
			Evidence: textsafe.Line(ia, 200) + " → " + textsafe.Line(ib, 200)})
	}
	for _, pair := range [][2]Run{{a, b}, {b, a}} {
		for _, d := range OnlyIn(pair[0], pair[1], nil) {
			out = append(out, m.EraDifference{Subject: d.Subject, Only: pair[1].Name, Evidence: strings.Join(d.Evidence, "; ")})
		}
	}
	slices.SortFunc(out, func(x, y m.EraDifference) int { return strings.Compare(x.Subject+x.Only, y.Subject+y.Only) })
	if len(out) > maxEraDifferences {
		out = out[:maxEraDifferences]
	}
	return out
}

// maxEraDifferences bounds the list a hostile server can grow.
const maxEraDifferences = 200
