package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/mcp-audit/mcp-audit/internal/canary"
	m "github.com/mcp-audit/mcp-audit/internal/manifest"
)

// maxCallsNamed bounds the calls named on one collapsed line.
const maxCallsNamed = 3

// writePhases prints a line per phase. Calls that did the same thing
// share one line ("32 calls (call:a, call:b, call:c, +29 more): …"), and
// calls with no side effects are only counted: a server with many tools
// reads the same files in each call, and 32 identical lines would push
// the findings out of view.
func writePhases(w io.Writer, phases []m.Phase) {
	type group struct {
		text  string
		names []string
	}
	var groups []*group
	byText := map[string]*group{}
	quiet := 0
	for _, p := range phases {
		text := phaseLine(p)
		if !strings.Contains(p.Name, ":") {
			groups = append(groups, &group{text: text, names: []string{p.Name}})
			continue
		}
		if text == "nothing observed" {
			quiet++
			continue
		}
		if g := byText[text]; g != nil {
			g.names = append(g.names, p.Name)
			continue
		}
		g := &group{text: text, names: []string{p.Name}}
		byText[text] = g
		groups = append(groups, g)
	}
	for _, g := range groups {
		if len(g.names) == 1 {
			fmt.Fprintf(w, "  %-8s %s\n", line(g.names[0])+":", g.text)
			continue
		}
		named := make([]string, 0, maxCallsNamed)
		for _, n := range g.names[:min(len(g.names), maxCallsNamed)] {
			named = append(named, line(n))
		}
		if more := len(g.names) - len(named); more > 0 {
			named = append(named, fmt.Sprintf("+%d more", more))
		}
		fmt.Fprintf(w, "  %d calls (%s): %s\n", len(g.names), strings.Join(named, ", "), g.text)
	}
	if quiet > 0 {
		fmt.Fprintf(w, "  (%s with no observed side effects)\n", plural(quiet, "call", "calls"))
	}
}

// canaryParts says what a phase did with canaries: a hit is a planted
// credential the server was never given; the one it was given and used
// as intended, and the decoy .env dotenv reads at startup, are named for
// what they are.
func canaryParts(hits []m.CanaryHit) []string {
	var real, used, dotenv int
	for _, h := range hits {
		switch {
		case h.Given && (h.How == m.HowSent || h.How == m.HowArgv):
			used++
		case h.Canary == "file:"+canary.WorkspaceEnv && (h.How == m.HowFileRead || h.How == m.HowFileReadWitness):
			dotenv++
		default:
			real++
		}
	}
	var out []string
	if real > 0 {
		out = append(out, plural(real, "CANARY HIT", "CANARY HITS"))
	}
	if used > 0 {
		out = append(out, plural(used, "use", "uses")+" of the credential it was given")
	}
	if dotenv > 0 {
		out = append(out, "read the workspace .env")
	}
	return out
}
