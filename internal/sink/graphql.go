package sink

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
)

// Bounds on a GraphQL document the sink shapes an answer for.
const (
	gqlMaxQuery = 256 << 10
	gqlMaxNodes = 5000
	gqlMaxDepth = 24
	gqlMaxBatch = 20
)

// graphQLRequest finds a GraphQL query in a request: a JSON body with a
// "query" string, a body of type application/graphql, or ?query= on a
// GraphQL path.
func graphQLRequest(req *http.Request, u *url.URL, body []byte) (query, op string, ok bool) {
	gqlPath := strings.HasSuffix(strings.TrimSuffix(strings.ToLower(u.Path), "/"), "graphql")
	if strings.Contains(strings.ToLower(req.Header.Get("Content-Type")), "application/graphql") {
		return string(body), "", true
	}
	var in struct {
		Query         *string `json:"query"`
		OperationName string  `json:"operationName"`
	}
	if t := bytes.TrimSpace(body); len(t) > 0 && t[0] == '{' && json.Unmarshal(t, &in) == nil && in.Query != nil && (gqlPath || looksGraphQL(*in.Query)) {
		return *in.Query, in.OperationName, true
	}
	if q := u.Query().Get("query"); gqlPath && q != "" {
		return q, u.Query().Get("operationName"), true
	}
	return "", "", false
}

// graphQLBatch answers a JSON array of GraphQL operations.
func graphQLBatch(req *http.Request, u *url.URL, body []byte) ([]any, bool) {
	t := bytes.TrimSpace(body)
	if len(t) == 0 || t[0] != '[' {
		return nil, false
	}
	var in []struct {
		Query         string `json:"query"`
		OperationName string `json:"operationName"`
	}
	if json.Unmarshal(t, &in) != nil || len(in) == 0 || !looksGraphQL(in[0].Query) {
		return nil, false
	}
	var out []any
	for _, op := range in[:min(len(in), gqlMaxBatch)] {
		out = append(out, graphQLAnswer(op.Query, op.OperationName))
	}
	return out, true
}

func looksGraphQL(q string) bool {
	q = strings.TrimSpace(q)
	for _, p := range []string{"{", "query", "mutation", "subscription", "fragment"} {
		if strings.HasPrefix(q, p) {
			return true
		}
	}
	return false
}

// gqlField is one selected field: the key it answers under, its name and
// what is selected below it.
type gqlField struct {
	key, name string
	sel       []gqlField
	hasSel    bool
}

// gqlParser reads the outline of a GraphQL document: operations,
// fragments and their selection sets; arguments, variables and
// directives are skipped.
type gqlParser struct {
	toks      []string
	i         int
	nodes     int
	fragments map[string][]gqlField
}

// graphQLAnswer is {"data": …} shaped from the chosen operation's
// selections.
func graphQLAnswer(query, opName string) map[string]any {
	if len(query) > gqlMaxQuery {
		query = query[:gqlMaxQuery]
	}
	p := &gqlParser{toks: gqlTokens(query), fragments: map[string][]gqlField{}}
	type op struct {
		kind, name string
		sel        []gqlField
	}
	var ops []op
	for p.i < len(p.toks) {
		switch t := p.toks[p.i]; t {
		case "fragment":
			p.i++
			name := p.next()
			for p.i < len(p.toks) && p.toks[p.i] != "{" {
				p.i++
			}
			p.fragments[name] = p.selectionSet(0)
		case "{":
			ops = append(ops, op{kind: "query", sel: p.selectionSet(0)})
		case "query", "mutation", "subscription":
			p.i++
			name := ""
			if p.i < len(p.toks) && isGQLName(p.toks[p.i]) {
				name = p.next()
			}
			for p.i < len(p.toks) && p.toks[p.i] != "{" {
				p.skipBalanced()
			}
			ops = append(ops, op{kind: t, name: name, sel: p.selectionSet(0)})
		default:
			p.i++
		}
	}
	if len(ops) == 0 {
		return map[string]any{"data": map[string]any{}}
	}
	chosen := ops[0]
	for _, o := range ops {
		if opName != "" && o.name == opName {
			chosen = o
		}
	}
	typename := strings.ToUpper(chosen.kind[:1]) + chosen.kind[1:]
	return map[string]any{"data": p.shape(chosen.sel, typename, 0)}
}

func (p *gqlParser) next() string {
	if p.i >= len(p.toks) {
		return ""
	}
	p.i++
	return p.toks[p.i-1]
}

// skipBalanced skips one token, or a whole parenthesized or bracketed
// group.
func (p *gqlParser) skipBalanced() {
	open := p.toks[p.i]
	closer := map[string]string{"(": ")", "[": "]"}[open]
	p.i++
	if closer == "" {
		return
	}
	depth := 1
	for p.i < len(p.toks) && depth > 0 {
		switch p.toks[p.i] {
		case open:
			depth++
		case closer:
			depth--
		}
		p.i++
	}
}

// selectionSet reads "{ … }" at p.i.
func (p *gqlParser) selectionSet(depth int) []gqlField {
	if p.i >= len(p.toks) || p.toks[p.i] != "{" {
		return nil
	}
	p.i++
	var out []gqlField
	for p.i < len(p.toks) && p.toks[p.i] != "}" {
		t := p.toks[p.i]
		switch {
		case t == "...":
			p.i++
			if p.i < len(p.toks) && p.toks[p.i] == "on" {
				p.i += 2
			}
			if p.i < len(p.toks) && isGQLName(p.toks[p.i]) && p.toks[p.i] != "on" {
				out = append(out, gqlField{key: "...", name: p.next()}) // a fragment spread
				continue
			}
			p.skipDirectives()
			if depth < gqlMaxDepth {
				out = append(out, p.selectionSet(depth+1)...)
			}
		case isGQLName(t):
			out = append(out, p.field(depth))
		default:
			p.skipBalanced()
		}
	}
	p.i++
	return out
}

func (p *gqlParser) field(depth int) gqlField {
	f := gqlField{name: p.next()}
	f.key = f.name
	if p.i+1 < len(p.toks) && p.toks[p.i] == ":" {
		p.i++
		f.name = p.next()
	}
	p.nodes++
	if p.i < len(p.toks) && p.toks[p.i] == "(" {
		p.skipBalanced()
	}
	p.skipDirectives()
	if p.i < len(p.toks) && p.toks[p.i] == "{" {
		f.hasSel = true
		if depth < gqlMaxDepth && p.nodes < gqlMaxNodes {
			f.sel = p.selectionSet(depth + 1)
		} else {
			p.skipSelection()
		}
	}
	return f
}

func (p *gqlParser) skipDirectives() {
	for p.i < len(p.toks) && p.toks[p.i] == "@" {
		p.i += 2
		if p.i < len(p.toks) && p.toks[p.i] == "(" {
			p.skipBalanced()
		}
	}
}

func (p *gqlParser) skipSelection() {
	depth := 0
	for p.i < len(p.toks) {
		switch p.toks[p.i] {
		case "{":
			depth++
		case "}":
			depth--
		}
		p.i++
		if depth == 0 {
			return
		}
	}
}
