package argsynth

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
)

// Correct proposes one corrected argument set after the server answered
// sent with the error message msg (an RPC error's message or the text of
// a result with isError): each parameter the message names fixed, with a
// value it allows or one made for what it asks (a YouTube watch URL when
// a video id must be inside a URL, the first of "url or text" when one is
// needed). It proposes none (ok false) when the message names no argument
// problem (a failed API call, a missing browser), names only parameters
// the tool does not have, or when the fix would break a set that
// validated: the message was then about something else, such as an API
// answer the server could not parse. The scheduler makes at most one
// retry per set and never retries a retry. For a prompt, pass a Tool with
// only its name: the arguments sent are then its parameters. The
// references and probes whose values the fix left alone are kept.
func Correct(t Tool, sent Set, msg string) (Set, bool) {
	issues := ParseError(msg)
	if len(issues) == 0 {
		return Set{}, false
	}
	c := compile(t)
	if c.err != nil {
		return Set{}, false
	}
	orig := decodeArgs(sent.Args)
	r := repair{c: c, args: decodeArgs(sent.Args)}
	for _, is := range issues {
		r.apply(is)
	}
	out := canonical(r.args)
	if bytes.Equal(out, canonical(orig)) {
		return Set{}, false
	}
	valid := c.valid(r.args)
	if sent.Valid && !valid {
		return Set{}, false
	}
	kept := func(ptr string) bool { return same(getAt(orig, splitPointer(ptr)), getAt(r.args, splitPointer(ptr))) }
	var refs []Ref
	for _, ref := range sent.Refs {
		if kept(ref.Pointer) {
			refs = append(refs, ref)
		}
	}
	var probes []Probe
	for _, p := range sent.Probes {
		if kept(p.Pointer) {
			probes = append(probes, p)
		}
	}
	return Set{Reason: ReasonRetry, Args: out, Valid: valid, Refs: refs, Probes: probes}, true
}

func decodeArgs(raw json.RawMessage) map[string]any {
	var v map[string]any
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	if d.Decode(&v) != nil || v == nil {
		return map[string]any{}
	}
	return v
}

// repair applies issues to a set's arguments.
type repair struct {
	c    *compiled
	args map[string]any
}

func (r *repair) apply(is Issue) {
	if is.Kind == IssueOneOf {
		r.oneOf(is)
		return
	}
	segs := r.locate(is)
	if len(segs) == 0 || !r.known(segs[0]) {
		return
	}
	cur, present := getAt(r.args, segs), getAt(r.args, segs) != nil
	var val any
	switch is.Kind {
	case IssueMissing:
		if present {
			return
		}
		val = r.valueAt(segs)
	case IssueType:
		val = r.typed(segs, is.Expected, cur)
	case IssueEnum:
		val = r.allowed(segs, is.Allowed, cur)
	case IssueFormat:
		val = r.formatted(segs, is.Expected)
	case IssueUnknown:
		deleteAt(r.args, segs)
		return
	}
	if val != nil {
		putAt(r.args, segs, val)
	}
}

// locate finds the parameter an issue is about: the one it names, else
// the one holding the value it quotes, else (for a URL it asks for) the
// one whose name says URL or video.
func (r *repair) locate(is Issue) []string {
	if is.Param != "" {
		return strings.Split(is.Param, ".")
	}
	var ls []leaf
	leaves(r.args, "", "", &ls)
	for _, lf := range ls {
		if s, ok := lf.value.(string); ok && is.Value != "" && (s == is.Value || strings.HasPrefix(s, strings.TrimRight(is.Value, "…"))) {
			return splitPointer(lf.ptr)
		}
	}
	if is.Kind == IssueFormat {
		for _, k := range sortedKeys(r.c.root.Properties) {
			if w := strings.ToLower(k); strings.Contains(w, "url") || strings.Contains(w, "video") || strings.Contains(w, "link") {
				return []string{k}
			}
		}
	}
	return nil
}

// known reports whether a top-level name is the tool's parameter (any,
// for a tool whose schema names none).
func (r *repair) known(k string) bool {
	_, inArgs := r.args[k]
	return r.c.root.Properties[k] != nil || inArgs || len(r.c.root.Properties) == 0
}

// oneOf makes a set carry one member of a group: the first (that takes a
// plain string) when it has none, only the first when it has several and
// the message says at most one.
func (r *repair) oneOf(is Issue) {
	var members, present []string
	for _, n := range is.Group {
		n = r.complete(n)
		if r.c.root.Properties[n] != nil || r.args[n] != nil {
			members = append(members, n)
			if r.args[n] != nil {
				present = append(present, n)
			}
		}
	}
	switch {
	case len(members) == 0:
	case len(present) == 0:
		k := group{names: members}.first(r.c.takesString)
		putAt(r.args, []string{k}, r.valueAt([]string{k}))
	case is.Exclusive && len(present) > 1:
		for _, k := range present[1:] {
			delete(r.args, k)
		}
	}
}

// complete finds the parameter a name cut short in a clipped message
// ("prom*") begins: the first, by name, of the tool's or the set's; and
// the parameter a message names in other capitals ("Either URL or a type
// is required", of chrome-devtools-mcp's url: the type alone failed
// again, and its page stayed blank for every later call).
func (r *repair) complete(n string) string {
	prefix, ok := strings.CutSuffix(n, "*")
	if !ok {
		if r.c.root.Properties[n] != nil || r.args[n] != nil {
			return n
		}
		for _, k := range sortedKeys(r.c.root.Properties) {
			if strings.EqualFold(k, n) {
				return k
			}
		}
		return n
	}
	for _, k := range append(sortedKeys(r.c.root.Properties), sortedKeys(r.args)...) {
		if strings.HasPrefix(k, prefix) {
			return k
		}
	}
	return n
}

// takesString reports whether top-level parameter k is a string.
func (c *compiled) takesString(k string) bool {
	g := newGen(c, false)
	return g.gather(g.gather([]*jsonschema.Schema{c.root}, "").prop(k), "").typ() == "string"
}

// valueAt synthesizes the value for one location of the arguments.
func (r *repair) valueAt(segs []string) any {
	g := newGen(r.c, false)
	cur := g.gather([]*jsonschema.Schema{r.c.root}, "")
	ptr := ""
	for _, s := range segs {
		ptr += "/" + escape(s)
		if _, err := strconv.Atoi(s); err == nil {
			cur = g.gather(cur.arrays().items, ptr)
		} else {
			cur = g.gather(cur.prop(s), ptr)
		}
	}
	var ls []leaf
	leaves(r.args, "", "", &ls)
	for _, lf := range ls {
		if s, ok := lf.value.(string); ok {
			g.used[s] = true // a value of its own, distinct from the others
		}
	}
	return g.value(cur, segs[len(segs)-1], ptr, len(segs))
}

// typed is a value of the type a message asks for.
func (r *repair) typed(segs []string, want string, cur any) any {
	if v := r.valueAt(segs); jsonType(v) == want || want == "integer" && jsonType(v) == "number" {
		return v
	}
	switch want {
	case "number", "integer":
		return 1
	case "string":
		return ForName(segs[len(segs)-1])
	case "boolean":
		return false
	case "array":
		if cur != nil {
			return []any{cur}
		}
		return []any{}
	case "object":
		return map[string]any{}
	}
	return nil
}

// allowed is the first allowed value the set does not already send;
// with none listed, another value of the schema's enum.
func (r *repair) allowed(segs []string, allowed []string, cur any) any {
	if len(allowed) == 0 {
		g := newGen(r.c, false)
		cur2 := g.gather([]*jsonschema.Schema{r.c.root}, "")
		for _, s := range segs {
			cur2 = g.gather(cur2.prop(s), "")
		}
		for _, e := range cur2.enum() {
			if !same(e, cur) {
				return e
			}
		}
		return nil
	}
	for _, a := range allowed {
		if !same(a, cur) {
			return a
		}
	}
	return nil
}

// formatted is a value of the format a message asks for.
func (r *repair) formatted(segs []string, format string) any {
	name := segs[len(segs)-1]
	switch format {
	case formatVideoURL:
		return services[0].urls[0]
	case formatURL, "uri":
		return r.c.tc.urls("", name)[0]
	case "email":
		return Email
	case "uuid":
		return values[kUUID][0]
	case "date":
		return values[kDate][0]
	case "date-time":
		return values[kDateTime][0]
	}
	return nil
}
