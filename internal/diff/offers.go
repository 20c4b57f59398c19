package diff

import (
	"cmp"
	"encoding/json"
	"slices"
	"strings"
	"unicode/utf8"

	m "github.com/mcp-audit/mcp-audit/internal/manifest"
)

// maxOfferChanges bounds the changes one comparison of offers returns.
const maxOfferChanges = 500

// Offers compares two listings of a server's offer — what it listed
// first with what it listed again (after the calls, on a list_changed, in
// another run or another protocol era) — item by item: an item only the
// later listing has is "added", a text that differs is a change of that
// field. norm, when set, rewrites each text before it is compared and
// shown (random labels as placeholders, so a nonce is not a change). The
// result is sorted and bounded; each diff is a short, linear-time
// character diff (diffTexts), deterministic whatever the input.
func Offers(before, after *m.Manifest, norm func(string) string) []m.ListChange {
	var out []m.ListChange
	out = append(out, offerChanges("tools", before.Tools, after.Tools, func(t m.Tool) string { return t.Name }, toolFields, norm)...)
	out = append(out, offerChanges("prompts", before.Prompts, after.Prompts, func(p m.Prompt) string { return p.Name }, promptFields, norm)...)
	out = append(out, offerChanges("resources", before.Resources, after.Resources, func(r m.Resource) string { return r.URI }, resourceFields, norm)...)
	out = append(out, offerChanges("resource_templates", before.ResourceTemplates, after.ResourceTemplates,
		func(r m.ResourceTemplate) string { return r.URITemplate }, templateFields, norm)...)
	SortListChanges(out)
	if len(out) > maxOfferChanges {
		out = out[:maxOfferChanges]
	}
	return out
}

// SortListChanges orders changes by list, item and field.
func SortListChanges(cs []m.ListChange) {
	slices.SortFunc(cs, func(a, b m.ListChange) int {
		return cmp.Or(cmp.Compare(a.List, b.List), cmp.Compare(a.Name, b.Name), cmp.Compare(a.Field, b.Field))
	})
}

// offerField is one compared text of a listed item.
type offerField struct{ name, text string }

func offerChanges[T any](list string, before, after []T, key func(T) string, fields func(T) []offerField, norm func(string) string) []m.ListChange {
	texts := func(v T) []offerField {
		fs := fields(v)
		if norm != nil {
			for i := range fs {
				fs[i].text = norm(fs[i].text)
			}
		}
		return fs
	}
	first := map[string]T{}
	for _, b := range before {
		first[key(b)] = b
	}
	var out []m.ListChange
	for _, a := range after {
		b, ok := first[key(a)]
		if !ok {
			var all []string
			for _, f := range texts(a) {
				if f.text != "" {
					all = append(all, f.name+": "+f.text)
				}
			}
			out = append(out, m.ListChange{List: list, Name: key(a), Field: "added", Diff: diffTexts("", strings.Join(all, "\n"))})
			continue
		}
		fb, fa := texts(b), texts(a)
		for i := range fa {
			if fa[i].text != fb[i].text {
				out = append(out, m.ListChange{List: list, Name: key(a), Field: fa[i].name, Diff: diffTexts(fb[i].text, fa[i].text)})
			}
		}
	}
	return out
}

func toolFields(t m.Tool) []offerField {
	return []offerField{{"title", t.Title}, {"description", t.Description}, {"input_schema", string(t.InputSchema)},
		{"output_schema", string(t.OutputSchema)}, {"annotations", string(t.Annotations)}}
}

func promptFields(p m.Prompt) []offerField {
	args, _ := json.Marshal(p.ArgumentDescriptions)
	return []offerField{{"description", p.Description}, {"arguments", strings.Join(p.Arguments, ",") + " " + string(args)}}
}

func resourceFields(r m.Resource) []offerField {
	return []offerField{{"name", r.Name}, {"title", r.Title}, {"description", r.Description}}
}

func templateFields(r m.ResourceTemplate) []offerField {
	return []offerField{{"name", r.Name}, {"title", r.Title}, {"description", r.Description}}
}

// diffContext and diffMax bound a change's diff.
const (
	diffContext = 40
	diffMax     = 2048
)

// diffTexts shows what differs between before and after: the shared start
// and end are cut to a little context, the differing middles shown as
// [-removed-]{+added+}. It is linear in the texts' length and needs no
// clock, unlike TextDiff (a word diff with a time limit, whose output can
// depend on the machine's load): what goes into a manifest must be the
// same bytes on every run.
func diffTexts(before, after string) string {
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
	return clip(strings.ToValidUTF8(b.String(), ""), diffMax)
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}
