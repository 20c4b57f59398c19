package report

import (
	"fmt"
	"io"
	"strconv"

	"github.com/mcp-audit/mcp-audit/internal/policy"
	"github.com/mcp-audit/mcp-audit/internal/textsafe"
)

// AllowBlock ends a report of a server without an allow-list: the allow:
// block (YAML, for mcp-audit.yml) that would accept what was observed,
// ready to review and paste. Entries are quoted and cleaned: they come from
// what the server did.
func AllowBlock(w io.Writer, a policy.Allow, indent string) {
	if a.Empty() {
		return
	}
	fmt.Fprintf(w, "%s# to accept what was observed, review and add under the server in mcp-audit.yml:\n%sallow:\n", indent, indent)
	for _, sec := range []struct {
		name  string
		items []string
	}{{"hosts", a.Hosts}, {"paths", a.Paths}, {"processes", a.Processes}} {
		if len(sec.items) == 0 {
			continue
		}
		fmt.Fprintf(w, "%s  %s:\n", indent, sec.name)
		for _, it := range sec.items {
			fmt.Fprintf(w, "%s    - %s\n", indent, strconv.Quote(textsafe.Line(it, 300)))
		}
	}
}
