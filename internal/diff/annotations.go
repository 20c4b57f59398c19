package diff

import (
	"encoding/json"
	"fmt"

	m "github.com/mcp-audit/mcp-audit/internal/manifest"
	"github.com/mcp-audit/mcp-audit/internal/policy"
)

// KindAnnotation marks a tool whose annotations claim less safety than
// its baseline's did: a client that runs read-only or closed-world tools
// without asking, on the old claim, now runs one that says it writes or
// reaches out. What the tool then does is judged as ever; the flip itself
// is a change a reviewer should see.
const KindAnnotation = "annotation"

// hintSet is a tool's behavior hints with the protocol's defaults
// applied: readOnlyHint false, destructiveHint true, openWorldHint true.
type hintSet struct{ readOnly, destructive, openWorld bool }

func effectiveHints(t m.Tool) hintSet {
	var h struct {
		ReadOnly    *bool `json:"readOnlyHint"`
		Destructive *bool `json:"destructiveHint"`
		OpenWorld   *bool `json:"openWorldHint"`
	}
	if len(t.Annotations) > 0 {
		_ = json.Unmarshal(t.Annotations, &h) // hostile text: what does not parse claims nothing
	}
	or := func(b *bool, def bool) bool {
		if b == nil {
			return def
		}
		return *b
	}
	return hintSet{readOnly: or(h.ReadOnly, false), destructive: or(h.Destructive, true), openWorld: or(h.OpenWorld, true)}
}

// annotationFindings report, for each tool in both versions, the hints
// that flipped towards harm: read-only to not, closed world to open,
// non-destructive to destructive (destructiveHint only means something
// when the tool is not read-only). Each is medium.
func (r *Result) annotationFindings(old, new *m.Manifest) {
	before := map[string]m.Tool{}
	for _, t := range old.Tools {
		before[t.Name] = t
	}
	for _, t := range new.Tools {
		o, ok := before[t.Name]
		if !ok {
			continue
		}
		was, is := effectiveHints(o), effectiveHints(t)
		add := func(hint, from, to string) {
			r.Findings = append(r.Findings, policy.Finding{Severity: policy.Medium, Kind: KindAnnotation, Subject: "tool " + t.Name + " " + hint,
				Summary:  fmt.Sprintf("tool %s no longer claims to be %s: it is now %s", t.Name, from, to),
				Evidence: fmt.Sprintf("%s: was %s, now %s", hint, string(m.CanonicalJSON(o.Annotations)), string(m.CanonicalJSON(t.Annotations)))})
		}
		if was.readOnly && !is.readOnly {
			add("readOnlyHint", "read-only", "one that may change its environment")
		}
		if !was.openWorld && is.openWorld {
			add("openWorldHint", "closed-world", "one that may reach external hosts")
		}
		if !was.readOnly && !is.readOnly && !was.destructive && is.destructive {
			add("destructiveHint", "non-destructive", "one that may destroy data")
		}
	}
}
