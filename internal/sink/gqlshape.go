package sink

import (
	"strconv"
	"strings"
)

// gqlTokens splits a GraphQL document into names, punctuators and
// literals, dropping commas, comments and whitespace; bounded in count.
func gqlTokens(q string) []string {
	var out []string
	for i := 0; i < len(q) && len(out) < 8*gqlMaxNodes; {
		c := q[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == ',' || c == 0xef || c == 0xbb || c == 0xbf:
			i++
		case c == '#':
			for i < len(q) && q[i] != '\n' {
				i++
			}
		case strings.HasPrefix(q[i:], `"""`):
			j := strings.Index(q[i+3:], `"""`)
			if j < 0 {
				return out
			}
			out = append(out, `""`)
			i += j + 6
		case c == '"':
			j := i + 1
			for j < len(q) && q[j] != '"' && q[j] != '\n' {
				if q[j] == '\\' {
					j++
				}
				j++
			}
			out = append(out, `""`)
			i = j + 1
		case strings.HasPrefix(q[i:], "..."):
			out = append(out, "...")
			i += 3
		case c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-':
			j := i + 1
			for j < len(q) && (q[j] == '_' || q[j] >= 'a' && q[j] <= 'z' || q[j] >= 'A' && q[j] <= 'Z' || q[j] >= '0' && q[j] <= '9' || q[j] == '.') {
				j++
			}
			out = append(out, q[i:j])
			i = j
		default:
			out = append(out, q[i:i+1])
			i++
		}
	}
	return out
}

func isGQLName(t string) bool {
	return t != "" && (t[0] == '_' || t[0] >= 'a' && t[0] <= 'z' || t[0] >= 'A' && t[0] <= 'Z')
}

// shape answers a selection set: objects for fields with selections
// (lists when the name is plural and the field is no connection), and
// for leaves what their names suggest (ids, counts, flags, times, names,
// URLs), else null.
func (p *gqlParser) shape(sel []gqlField, typename string, depth int) map[string]any {
	out := map[string]any{}
	p.shapeInto(out, sel, typename, depth)
	return out
}

func (p *gqlParser) shapeInto(out map[string]any, sel []gqlField, typename string, depth int) {
	if depth > gqlMaxDepth {
		return
	}
	for _, f := range sel {
		if f.key == "..." {
			p.shapeInto(out, p.fragments[f.name], typename, depth+1)
			continue
		}
		switch {
		case f.name == "__typename":
			out[f.key] = typename
		case f.hasSel && !isConnection(p.expand(f.sel, depth)) && isCollection(strings.ToLower(f.name)):
			out[f.key] = []any{}
		case f.hasSel:
			child, _ := out[f.key].(map[string]any)
			if child == nil {
				child = map[string]any{}
			}
			p.shapeInto(child, f.sel, gqlTypeName(f.name), depth+1)
			out[f.key] = child
		default:
			out[f.key] = gqlLeaf(f.name, typename)
		}
	}
}

// expand replaces fragment spreads by their fields, one level.
func (p *gqlParser) expand(sel []gqlField, depth int) []gqlField {
	var out []gqlField
	for _, f := range sel {
		if f.key == "..." && depth < gqlMaxDepth {
			out = append(out, p.fragments[f.name]...)
		} else {
			out = append(out, f)
		}
	}
	return out
}

// isConnection: a Relay-style connection object, answered as an object
// whose nodes and edges are empty lists.
func isConnection(sel []gqlField) bool {
	for _, f := range sel {
		switch f.name {
		case "nodes", "edges", "pageInfo", "totalCount":
			return true
		}
	}
	return false
}

func gqlTypeName(field string) string {
	s := singular(field)
	if s == "" {
		return "Object"
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

func gqlLeaf(name, typename string) any {
	l := strings.ToLower(name)
	switch {
	case l == "id" || strings.HasSuffix(name, "Id") || strings.HasSuffix(l, "_id"):
		return strconv.Itoa(pathID(typename + "." + name))
	case strings.HasSuffix(l, "count") || l == "total":
		return 0
	case strings.HasSuffix(l, "cursor"):
		return nil
	case hasCamelPrefix(name, "is", "has", "can", "viewerCan", "viewerHas", "should", "was"):
		return false
	case strings.HasSuffix(name, "At") || strings.HasSuffix(l, "_at") || strings.HasSuffix(l, "date") || strings.HasSuffix(l, "time"):
		return fakeTime
	case strings.HasSuffix(l, "url") || strings.HasSuffix(l, "uri") || l == "href" || l == "link":
		return "https://example.com/"
	case strings.Contains(l, "email"):
		return "user@example.com"
	}
	switch l {
	case "name", "login", "title", "username", "slug", "namewithowner", "fullname", "displayname", "body", "description", "text", "content", "message", "state", "status":
		return "example"
	}
	return nil
}

func hasCamelPrefix(name string, prefixes ...string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(name, p) && len(name) > len(p) && name[len(p)] >= 'A' && name[len(p)] <= 'Z' {
			return true
		}
	}
	return false
}
