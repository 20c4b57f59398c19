package audit

import (
	"cmp"
	"context"
	"encoding/json"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/mcp-audit/mcp-audit/internal/canary"
	m "github.com/mcp-audit/mcp-audit/internal/manifest"
)

// relist reads the lists again after the calls, as a client does when it
// refreshes, so an offer that changes once the server has been used (a
// description that turns into instructions after the first call) is seen.
func (ex *execution) relist(ctx context.Context, seg *segment) {
	if ex.ses.init == nil || len(ex.p.Manifest.Calls) == 0 {
		return
	}
	later := &session{init: ex.ses.init}
	listAll(ctx, ex.o, seg.client, later)
	ex.later = later
}

// maxRelists bounds the listings a server can ask for by announcing
// changes.
const maxRelists = 5

// relistNow lists again right after a call during which the server
// announced that a list changed, as a client does: a server that shows a
// new text only until its next call is seen. The lists are compared with
// the first ones with the others (allListChanges).
func (x *exerciser) relistNow(ctx context.Context, seg *segment) {
	if x.ses.init == nil || len(x.relisted) >= maxRelists {
		return
	}
	later := &session{init: x.ses.init}
	listAll(ctx, x.o, seg.client, later)
	x.relisted = append(x.relisted, later)
}

// allListChanges compares every later listing with the first one; a
// change seen in several is listed once, as first seen.
func allListChanges(man *m.Manifest, sessions []*session, cs *canary.Set) []m.ListChange {
	seen := map[string]bool{}
	var out []m.ListChange
	for _, s := range sessions {
		for _, c := range listChanges(man, s, cs) {
			if k := c.List + "\x00" + c.Name + "\x00" + c.Field; !seen[k] {
				seen[k] = true
				out = append(out, c)
			}
		}
	}
	slices.SortFunc(out, func(a, b m.ListChange) int {
		return cmp.Or(cmp.Compare(a.List, b.List), cmp.Compare(a.Name, b.Name), cmp.Compare(a.Field, b.Field))
	})
	if len(out) > maxTools {
		out = out[:maxTools]
	}
	return out
}

// listChanges compares what was listed first (already in man) with what
// was listed after the calls.
func listChanges(man *m.Manifest, later *session, cs *canary.Set) []m.ListChange {
	if later == nil {
		return nil
	}
	after := &m.Manifest{}
	fillServer(after, later, cs)
	first := map[string]bool{}
	for _, ph := range man.Phases {
		for _, h := range ph.Canaries {
			first[h.Canary+"\x00"+h.How+"\x00"+h.Evidence] = true
		}
	}
	for _, h := range mcpCanaries(later, cs) {
		if first[h.Canary+"\x00"+h.How+"\x00"+h.Evidence] {
			continue // the first listing showed it already
		}
		h.Evidence += " (listed again after the calls)"
		addStartupHits(man, []m.CanaryHit{h})
	}
	var out []m.ListChange
	out = append(out, compare("tools", man.Tools, after.Tools, func(t m.Tool) string { return t.Name }, toolFields)...)
	out = append(out, compare("prompts", man.Prompts, after.Prompts, func(p m.Prompt) string { return p.Name }, promptFields)...)
	out = append(out, compare("resources", man.Resources, after.Resources, func(r m.Resource) string { return r.URI }, resourceFields)...)
	out = append(out, compare("resource_templates", man.ResourceTemplates, after.ResourceTemplates,
		func(r m.ResourceTemplate) string { return r.URITemplate }, templateFields)...)
	slices.SortFunc(out, func(a, b m.ListChange) int {
		return cmp.Or(cmp.Compare(a.List, b.List), cmp.Compare(a.Name, b.Name), cmp.Compare(a.Field, b.Field))
	})
	if len(out) > maxTools {
		out = out[:maxTools]
	}
	return out
}

// field is one compared text of a listed item.
type field struct{ name, text string }

func compare[T any](list string, before, after []T, key func(T) string, fields func(T) []field) []m.ListChange {
	first := map[string]T{}
	for _, b := range before {
		first[key(b)] = b
	}
	var out []m.ListChange
	for _, a := range after {
		b, ok := first[key(a)]
		if !ok {
			var all []string
			for _, f := range fields(a) {
				if f.text != "" {
					all = append(all, f.name+": "+f.text)
				}
			}
			out = append(out, m.ListChange{List: list, Name: key(a), Field: "added", Diff: textDiff("", strings.Join(all, "\n"))})
			continue
		}
		fb, fa := fields(b), fields(a)
		for i := range fa {
			if fa[i].text != fb[i].text {
				out = append(out, m.ListChange{List: list, Name: key(a), Field: fa[i].name, Diff: textDiff(fb[i].text, fa[i].text)})
			}
		}
	}
	return out
}

func toolFields(t m.Tool) []field {
	return []field{{"title", t.Title}, {"description", t.Description}, {"input_schema", string(t.InputSchema)},
		{"output_schema", string(t.OutputSchema)}, {"annotations", string(t.Annotations)}}
}

func promptFields(p m.Prompt) []field {
	args, _ := json.Marshal(p.ArgumentDescriptions)
	return []field{{"description", p.Description}, {"arguments", strings.Join(p.Arguments, ",") + " " + string(args)}}
}

func resourceFields(r m.Resource) []field {
	return []field{{"name", r.Name}, {"title", r.Title}, {"description", r.Description}}
}

func templateFields(r m.ResourceTemplate) []field {
	return []field{{"name", r.Name}, {"title", r.Title}, {"description", r.Description}}
}

// diffContext and diffMax bound a change's diff.
const (
	diffContext = 40
	diffMax     = 2048
)

// textDiff shows what differs between before and after: the shared start
// and end are cut to a little context, the differing middles shown as
// [-removed-]{+added+}.
func textDiff(before, after string) string {
	p := 0
	for p < len(before) && p < len(after) && before[p] == after[p] {
		p++
	}
	for p > 0 && p < len(before) && !utf8.RuneStart(before[p]) {
		p-- // cut between runes: before and after share these bytes
	}
	s := 0
	for s < len(before)-p && s < len(after)-p && before[len(before)-1-s] == after[len(after)-1-s] {
		s++
	}
	for s > 0 && !utf8.RuneStart(before[len(before)-s]) {
		s--
	}
	head, tail := before[:p], before[len(before)-s:]
	if len(head) > diffContext {
		head = "…" + strings.ToValidUTF8(head[len(head)-diffContext:], "")
	}
	if len(tail) > diffContext {
		tail = strings.ToValidUTF8(tail[:diffContext], "") + "…"
	}
	var b strings.Builder
	b.WriteString(head)
	if removed := before[p : len(before)-s]; removed != "" {
		b.WriteString("[-" + removed + "-]")
	}
	if added := after[p : len(after)-s]; added != "" {
		b.WriteString("{+" + added + "+}")
	}
	b.WriteString(tail)
	return truncate(strings.ToValidUTF8(b.String(), ""), diffMax)
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}
