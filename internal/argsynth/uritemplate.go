package argsynth

import (
	"fmt"
	"strings"
)

// maxTemplate bounds the template text expanded.
const maxTemplate = 4096

// ExpandURI fills an RFC 6570 URI template (levels 1-4: {var}, {+var},
// {#var}, {.var}, {/var}, {;var}, {?var}, {&var}, lists, prefix and explode
// modifiers) with the value a parameter of each variable's name gets, so a
// resource template can be read like a client would. Unclosed braces are
// kept as they are.
func ExpandURI(tmpl string) string {
	if len(tmpl) > maxTemplate {
		tmpl = tmpl[:maxTemplate]
	}
	var b strings.Builder
	for {
		open := strings.IndexByte(tmpl, '{')
		if open < 0 {
			b.WriteString(tmpl)
			return b.String()
		}
		end := strings.IndexByte(tmpl[open:], '}')
		if end < 0 {
			b.WriteString(tmpl)
			return b.String()
		}
		b.WriteString(tmpl[:open])
		b.WriteString(expression(tmpl[open+1 : open+end]))
		tmpl = tmpl[open+end+1:]
	}
}

// operator is how one kind of expression joins its variables.
type operator struct {
	first, sep string
	named      bool // name=value
	reserved   bool // reserved characters pass unencoded
}

var operators = map[byte]operator{
	'+': {"", ",", false, true},
	'#': {"#", ",", false, true},
	'.': {".", ".", false, false},
	'/': {"/", "/", false, false},
	';': {";", ";", true, false},
	'?': {"?", "&", true, false},
	'&': {"&", "&", true, false},
}

func expression(expr string) string {
	op := operator{sep: ","}
	if len(expr) > 0 {
		if o, ok := operators[expr[0]]; ok {
			op, expr = o, expr[1:]
		}
	}
	var parts []string
	for _, v := range strings.Split(expr, ",") {
		name, _, _ := strings.Cut(v, ":") // a prefix modifier keeps the value whole: it is short
		name = strings.TrimSuffix(name, "*")
		if name == "" {
			continue
		}
		val := encode(ForName(name), op.reserved)
		if op.named {
			val = name + "=" + val
		}
		parts = append(parts, val)
	}
	if len(parts) == 0 {
		return ""
	}
	return op.first + strings.Join(parts, op.sep)
}

// encode percent-encodes all but unreserved characters, and with reserved
// also leaves reserved characters (RFC 3986 gen-delims and sub-delims).
func encode(s string, reserved bool) string {
	var b strings.Builder
	for _, c := range []byte(s) {
		if isUnreserved(c) || reserved && strings.IndexByte(":/?#[]@!$&'()*+,;=", c) >= 0 {
			b.WriteByte(c)
			continue
		}
		fmt.Fprintf(&b, "%%%02X", c)
	}
	return b.String()
}

func isUnreserved(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("-._~", c) >= 0
}
