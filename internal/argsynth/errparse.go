package argsynth

import (
	"encoding/json"
	"regexp"
	"slices"
	"strings"
)

// Issue is one thing a server's error message says is wrong with the
// arguments it got.
type Issue struct {
	Kind IssueKind
	// Param is the parameter, as a dotted path ("count", "filters.date"),
	// or "" when the message names none.
	Param string
	// Expected is the type ("number") or format ("url") asked for.
	Expected string
	// Allowed are the values the message allows.
	Allowed []string
	// Group are the parameters one of which is needed; Exclusive says at
	// most one ("exactly one of", "not both").
	Group     []string
	Exclusive bool
	// Value is the value the message quotes as wrong.
	Value string
}

// IssueKind is what an Issue says.
type IssueKind string

// The issue kinds.
const (
	IssueMissing IssueKind = "missing" // a parameter is required
	IssueType    IssueKind = "type"    // a parameter has the wrong type
	IssueEnum    IssueKind = "enum"    // a parameter must be one of Allowed
	IssueFormat  IssueKind = "format"  // a parameter must be a url, email, uuid, date
	IssueOneOf   IssueKind = "one-of"  // one of Group is needed
	IssueUnknown IssueKind = "unknown" // a parameter is not accepted
)

// Bounds on parsing a message (hostile input).
const (
	maxMessage = 8 << 10
	maxIssues  = 16
)

// ParseError reads the argument problems an error message states, in
// the styles servers use: zod's JSON issue lists and its text, pydantic's
// validation errors, ajv's messages, and plain sentences ("Provide
// exactly one of url or text", "Invalid resourceType: x. Must be Text or
// Blob.", "Could not extract video ID from: …"). A message that names no
// argument problem (a failed API call, a missing browser) yields none.
func ParseError(msg string) []Issue {
	if len(msg) > maxMessage {
		msg = msg[:maxMessage]
	}
	var out []Issue
	add := func(is ...Issue) {
		for _, i := range is {
			if len(out) < maxIssues && !slices.ContainsFunc(out, func(o Issue) bool { return sameIssue(o, i) }) {
				out = append(out, i)
			}
		}
	}
	if i := strings.Index(msg, `[{"`); i >= 0 {
		add(zodJSON(msg[i:])...)
		msg = msg[:i] // the list's keys are not sentences
	}
	add(pydantic(msg)...)
	add(sentences(msg)...)
	return out
}

func sameIssue(a, b Issue) bool {
	return a.Kind == b.Kind && a.Param == b.Param && slices.Equal(a.Group, b.Group)
}

// zodIssue is one element of a zod error's issue list.
type zodIssue struct {
	Code       string   `json:"code"`
	Expected   any      `json:"expected"`
	Received   any      `json:"received"`
	Path       []any    `json:"path"`
	Options    []any    `json:"options"`
	Values     []any    `json:"values"`
	Keys       []string `json:"keys"`
	Validation any      `json:"validation"`
	Format     string   `json:"format"`
	UnionErrs  []struct {
		Issues []zodIssue `json:"issues"`
	} `json:"unionErrors"`
}

// zodJSON reads a JSON list of zod issues in the message, as far as it
// goes (messages are cut at 200 characters: the issues before the cut
// count).
func zodJSON(msg string) []Issue {
	i := strings.Index(msg, `[{"`)
	if i < 0 {
		return nil
	}
	d := json.NewDecoder(strings.NewReader(msg[i:]))
	if _, err := d.Token(); err != nil {
		return nil
	}
	var out []Issue
	for d.More() && len(out) < maxIssues {
		var z zodIssue
		if d.Decode(&z) != nil {
			break
		}
		out = append(out, fromZod(z)...)
	}
	return out
}

func fromZod(z zodIssue) []Issue {
	param := dotted(z.Path)
	switch z.Code {
	case "invalid_type":
		if z.Received == "undefined" || z.Received == nil && z.Expected != nil {
			return []Issue{{Kind: IssueMissing, Param: param}}
		}
		return []Issue{{Kind: IssueType, Param: param, Expected: strOf(z.Expected)}}
	case "invalid_enum_value", "invalid_value", "invalid_literal":
		return []Issue{{Kind: IssueEnum, Param: param, Allowed: strs(append(z.Options, z.Values...))}}
	case "invalid_string", "invalid_format":
		return []Issue{{Kind: IssueFormat, Param: param, Expected: strOf(z.Validation) + z.Format}}
	case "unrecognized_keys":
		var out []Issue
		for _, k := range z.Keys {
			out = append(out, Issue{Kind: IssueUnknown, Param: join(param, k)})
		}
		return out
	case "invalid_union":
		if len(z.UnionErrs) > 0 { // the branches are alternatives: the first says enough
			var out []Issue
			for _, s := range z.UnionErrs[0].Issues {
				out = append(out, fromZod(s)...)
			}
			return out
		}
	}
	return nil
}

// dotted joins a path of names and indexes with dots.
func dotted(path []any) string {
	var parts []string
	for _, p := range path {
		parts = append(parts, strOf(p))
	}
	return strings.Join(parts, ".")
}

func strOf(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case nil:
		return ""
	}
	b, _ := json.Marshal(v)
	return strings.Trim(string(b), `"`)
}

func strs(vs []any) []string {
	var out []string
	for _, v := range vs {
		out = append(out, strOf(v))
	}
	return out
}

// rePydantic is one error of a pydantic ValidationError:
//
//	count
//	  Input should be a valid integer [type=int_parsing, input_value='x', input_type=str]
var rePydantic = regexp.MustCompile(`(?m)^([A-Za-z_][\w.]*)\s*\n\s+([^\n\[]{1,200})\[type=([a-z_]+)`)

func pydantic(msg string) []Issue {
	var out []Issue
	for _, m := range rePydantic.FindAllStringSubmatch(msg, maxIssues) {
		param, text, typ := m[1], m[2], m[3]
		switch {
		case typ == "missing":
			out = append(out, Issue{Kind: IssueMissing, Param: param})
		case typ == "literal_error" || typ == "enum":
			out = append(out, Issue{Kind: IssueEnum, Param: param, Allowed: alternatives(strings.TrimPrefix(text, "Input should be "))})
		case strings.HasPrefix(typ, "url"), strings.HasPrefix(typ, "uuid"), strings.HasPrefix(typ, "date"):
			out = append(out, Issue{Kind: IssueFormat, Param: param, Expected: strings.SplitN(typ, "_", 2)[0]})
		case typ == "extra_forbidden":
			out = append(out, Issue{Kind: IssueUnknown, Param: param})
		default:
			if t, ok := pyTypes[strings.SplitN(typ, "_", 2)[0]]; ok {
				out = append(out, Issue{Kind: IssueType, Param: param, Expected: t})
			}
		}
	}
	return out
}

var pyTypes = map[string]string{"int": "integer", "float": "number", "string": "string", "bool": "boolean",
	"list": "array", "dict": "object", "model": "object"}

// reQuotedValue is a quoted or bare value in a list of alternatives.
var reQuotedValue = regexp.MustCompile("[`'\"]([^`'\"]{1,64})[`'\"]")

var reAltSep = regexp.MustCompile(`\s*(?:,|\||\bor\b)\s*`)

// alternatives reads "'a', 'b' or 'c'", "'a' | 'b'", "Text or Blob".
func alternatives(s string) []string {
	if len(s) > 400 {
		s = s[:400]
	}
	var out []string
	if ms := reQuotedValue.FindAllStringSubmatch(s, 32); len(ms) > 0 {
		for _, m := range ms {
			out = append(out, m[1])
		}
		return out
	}
	s = strings.TrimRight(strings.SplitN(s, ". ", 2)[0], ". ")
	for _, part := range reAltSep.Split(s, 32) {
		if part = strings.TrimSpace(part); part != "" && !strings.Contains(part, " ") {
			out = append(out, part)
		}
	}
	return out
}
