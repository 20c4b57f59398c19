package diff

import (
	"slices"
	"strings"

	m "github.com/mcp-audit/mcp-audit/internal/manifest"
	"github.com/mcp-audit/mcp-audit/internal/textsafe"
)

// surface compares the texts a client shows the model besides tools:
// prompts (and their arguments' descriptions), resources, resource
// templates and the server's instructions. A changed text is pinned like
// a tool description: "<subject> changed its description" with a word
// diff; new and removed items are listed.
func (r *Result) surface(old, new *m.Manifest) {
	before, after := surfaceTexts(old), surfaceTexts(new)
	keys := make([]string, 0, len(after))
	for k := range after {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		o, ok := before[k]
		switch {
		case !ok:
			r.add(Change{Op: Added, Area: m.AreaTool, Subject: k, Detail: textsafe.OneLine(after[k], 160)})
		case o != after[k]:
			r.add(textChange(Change{Op: Changed, Area: m.AreaTool, Subject: k}, "description", o, after[k]))
		}
	}
	for k := range before {
		if _, ok := after[k]; !ok {
			r.add(Change{Op: Removed, Area: m.AreaTool, Subject: k})
		}
	}
}

// surfaceTexts keys every non-tool text of a manifest's surface.
func surfaceTexts(man *m.Manifest) map[string]string {
	out := map[string]string{}
	for _, p := range man.Prompts {
		var args []string
		for _, a := range p.ArgumentDescriptions {
			args = append(args, a.Name+": "+a.Description)
		}
		out["prompt "+p.Name] = strings.TrimSpace(p.Description + "\n" + strings.Join(args, "\n"))
	}
	for _, res := range man.Resources {
		out["resource "+res.URI] = strings.TrimSpace(res.Name + "\n" + res.Title + "\n" + res.Description)
	}
	for _, t := range man.ResourceTemplates {
		out["resource template "+t.URITemplate] = strings.TrimSpace(t.Name + "\n" + t.Title + "\n" + t.Description)
	}
	if man.Server.Instructions != "" {
		out["server instructions"] = man.Server.Instructions
	}
	return out
}

// surfaceName names a surface item in a finding: tools by "tool NAME",
// the rest by their own subject ("prompt NAME", "resource URI", …).
func surfaceName(subject string) string {
	for _, p := range []string{"prompt ", "resource ", "server instructions"} {
		if strings.HasPrefix(subject, p) {
			return subject
		}
	}
	return "tool " + subject
}
