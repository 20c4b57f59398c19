package clientconfig

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// The JSON reader keeps every value's line, so a problem is reported where
// the user wrote it, and accepts what VS Code's and Zed's readers accept
// (// and /* */ comments, trailing commas). Clients with a strict reader
// get a note when their file uses either (see ext): the file is still read,
// since auditing a server the client would reject costs time while missing
// one it runs costs the audit.

// jkind is the kind of a JSON value.
type jkind uint8

const (
	jNull jkind = iota
	jBool
	jNumber
	jString
	jArray
	jObject
)

// jvalue is a parsed JSON value and the line it starts on.
type jvalue struct {
	kind jkind
	line int
	str  string // a string's value, a number's text
	b    bool
	arr  []*jvalue
	obj  []jmember
}

// jmember is one key of an object.
type jmember struct {
	key  string
	line int
	val  *jvalue
}

// ext records the first use of each extension to strict JSON (0: none).
type ext struct {
	comment, trailingComma int
}

// Bounds of one parse: a file of many tiny values must not cost the host
// more memory than a file of strings of the same size.
const (
	maxDepth = 64
	maxNodes = 400_000
)

// syntaxError is a malformed file, in the user's words.
type syntaxError struct {
	line int
	msg  string
}

func (e *syntaxError) Error() string { return fmt.Sprintf("line %d: %s", e.line, e.msg) }

type jparser struct {
	s     []byte
	i     int
	line  int
	nodes int
	ext   ext
}

// parseJSONC parses one JSON document with comments and trailing commas.
func parseJSONC(data []byte) (*jvalue, ext, error) {
	p := &jparser{s: data, line: 1}
	if len(data) >= 3 && data[0] == 0xEF && data[1] == 0xBB && data[2] == 0xBF {
		p.i = 3
	}
	if err := p.space(); err != nil {
		return nil, p.ext, err
	}
	if p.i >= len(p.s) {
		return nil, p.ext, &syntaxError{p.line, "the file is empty"}
	}
	v, err := p.value(0)
	if err != nil {
		return nil, p.ext, err
	}
	if err := p.space(); err != nil {
		return nil, p.ext, err
	}
	if p.i < len(p.s) {
		return nil, p.ext, p.errorf("more text after the end of the document: %s", p.near())
	}
	return v, p.ext, nil
}

func (p *jparser) errorf(format string, a ...any) error {
	return &syntaxError{p.line, fmt.Sprintf(format, a...)}
}

// near quotes a few characters at the current position for an error.
func (p *jparser) near() string {
	end := min(p.i+12, len(p.s))
	t := string(p.s[p.i:end])
	if i := strings.IndexAny(t, "\r\n"); i >= 0 {
		t = t[:i]
	}
	return strconv.Quote(strings.ToValidUTF8(t, "\uFFFD"))
}

// space skips white space and comments.
func (p *jparser) space() error {
	for p.i < len(p.s) {
		switch c := p.s[p.i]; {
		case c == '\n':
			p.line++
			p.i++
		case c == ' ' || c == '\t' || c == '\r':
			p.i++
		case c == '/' && p.i+1 < len(p.s) && p.s[p.i+1] == '/':
			p.noteComment()
			for p.i < len(p.s) && p.s[p.i] != '\n' {
				p.i++
			}
		case c == '/' && p.i+1 < len(p.s) && p.s[p.i+1] == '*':
			p.noteComment()
			start := p.line
			p.i += 2
			for ; p.i+1 < len(p.s) && !(p.s[p.i] == '*' && p.s[p.i+1] == '/'); p.i++ {
				if p.s[p.i] == '\n' {
					p.line++
				}
			}
			if p.i+1 >= len(p.s) {
				return &syntaxError{start, "a /* comment is not closed"}
			}
			p.i += 2
		default:
			return nil
		}
	}
	return nil
}

func (p *jparser) noteComment() {
	if p.ext.comment == 0 {
		p.ext.comment = p.line
	}
}

func (p *jparser) value(depth int) (*jvalue, error) {
	if depth > maxDepth {
		return nil, p.errorf("values are nested more than %d deep", maxDepth)
	}
	if p.nodes++; p.nodes > maxNodes {
		return nil, p.errorf("the file has more than %d values", maxNodes)
	}
	v := &jvalue{line: p.line}
	switch c := p.s[p.i]; {
	case c == '{':
		return v, p.object(v, depth)
	case c == '[':
		return v, p.array(v, depth)
	case c == '"':
		s, err := p.string()
		v.kind, v.str = jString, s
		return v, err
	case c == '-' || c >= '0' && c <= '9':
		v.kind, v.str = jNumber, p.number()
		if v.str == "" {
			return nil, p.errorf("%s is not a number", p.near())
		}
		return v, nil
	}
	for _, lit := range []struct {
		word string
		kind jkind
		b    bool
	}{{"true", jBool, true}, {"false", jBool, false}, {"null", jNull, false}} {
		if strings.HasPrefix(string(p.s[p.i:min(p.i+5, len(p.s))]), lit.word) {
			p.i += len(lit.word)
			v.kind, v.b = lit.kind, lit.b
			return v, nil
		}
	}
	if p.s[p.i] == '\'' {
		return nil, p.errorf("strings must be in double quotes, not single quotes")
	}
	return nil, p.errorf("expected a value (a string in double quotes, a number, true, false, null, [ or {), found %s", p.near())
}

func (p *jparser) object(v *jvalue, depth int) error {
	v.kind = jObject
	open := p.line
	p.i++
	for {
		if err := p.space(); err != nil {
			return err
		}
		if p.i >= len(p.s) {
			return &syntaxError{p.line, fmt.Sprintf("the file ends inside the { opened on line %d", open)}
		}
		if p.s[p.i] == '}' {
			p.i++
			return nil
		}
		if len(v.obj) > 0 {
			if p.s[p.i] != ',' {
				return p.errorf("expected a comma or } after the value of %s, found %s", strconv.Quote(v.obj[len(v.obj)-1].key), p.near())
			}
			p.i++
			if err := p.space(); err != nil {
				return err
			}
			if p.i < len(p.s) && p.s[p.i] == '}' {
				p.noteTrailing()
				p.i++
				return nil
			}
		}
		if p.i >= len(p.s) {
			return &syntaxError{p.line, fmt.Sprintf("the file ends inside the { opened on line %d", open)}
		}
		if p.s[p.i] != '"' {
			return p.errorf("expected a key in double quotes, found %s", p.near())
		}
		m := jmember{line: p.line}
		key, err := p.string()
		if err != nil {
			return err
		}
		m.key = key
		if err := p.space(); err != nil {
			return err
		}
		if p.i >= len(p.s) || p.s[p.i] != ':' {
			return p.errorf("expected a colon after the key %s", strconv.Quote(key))
		}
		p.i++
		if err := p.space(); err != nil {
			return err
		}
		if p.i >= len(p.s) {
			return p.errorf("the file ends before the value of %s", strconv.Quote(key))
		}
		if m.val, err = p.value(depth + 1); err != nil {
			return err
		}
		v.obj = append(v.obj, m)
	}
}

func (p *jparser) array(v *jvalue, depth int) error {
	v.kind = jArray
	open := p.line
	p.i++
	for {
		if err := p.space(); err != nil {
			return err
		}
		if p.i >= len(p.s) {
			return &syntaxError{p.line, fmt.Sprintf("the file ends inside the [ opened on line %d", open)}
		}
		if p.s[p.i] == ']' {
			p.i++
			return nil
		}
		if len(v.arr) > 0 {
			if p.s[p.i] != ',' {
				return p.errorf("expected a comma or ] after an item of the list, found %s", p.near())
			}
			p.i++
			if err := p.space(); err != nil {
				return err
			}
			if p.i < len(p.s) && p.s[p.i] == ']' {
				p.noteTrailing()
				p.i++
				return nil
			}
			if p.i >= len(p.s) {
				return &syntaxError{p.line, fmt.Sprintf("the file ends inside the [ opened on line %d", open)}
			}
		}
		item, err := p.value(depth + 1)
		if err != nil {
			return err
		}
		v.arr = append(v.arr, item)
	}
}

func (p *jparser) noteTrailing() {
	if p.ext.trailingComma == 0 {
		p.ext.trailingComma = p.line
	}
}

func (p *jparser) number() string {
	start := p.i
	for p.i < len(p.s) && strings.IndexByte("+-0123456789.eE", p.s[p.i]) >= 0 {
		p.i++
	}
	t := string(p.s[start:p.i])
	if _, err := strconv.ParseFloat(t, 64); err != nil && !strings.Contains(err.Error(), "range") {
		p.i = start
		return ""
	}
	return t
}

// string reads a double-quoted string; the current byte is the quote.
func (p *jparser) string() (string, error) {
	line := p.line
	p.i++
	var b strings.Builder
	for p.i < len(p.s) {
		c := p.s[p.i]
		switch {
		case c == '"':
			p.i++
			return b.String(), nil
		case c == '\n':
			return "", &syntaxError{line, "a string is not closed before the end of the line"}
		case c < 0x20:
			return "", p.errorf("a string holds a control character; write it as an escape such as \\t")
		case c == '\\':
			if err := p.escape(&b); err != nil {
				return "", err
			}
		default:
			r, n := utf8.DecodeRune(p.s[p.i:])
			b.WriteRune(r)
			p.i += n
		}
	}
	return "", &syntaxError{line, "a string is not closed before the end of the file"}
}

func (p *jparser) escape(b *strings.Builder) error {
	if p.i+1 >= len(p.s) {
		return p.errorf("a string is not closed before the end of the file")
	}
	c := p.s[p.i+1]
	p.i += 2
	if r, ok := map[byte]rune{'"': '"', '\\': '\\', '/': '/', 'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t'}[c]; ok {
		b.WriteRune(r)
		return nil
	}
	if c != 'u' {
		return p.errorf("\\%c is not an escape JSON knows", c)
	}
	r, ok := p.hex4()
	if !ok {
		return p.errorf("\\u must be followed by four hexadecimal digits")
	}
	if utf16.IsSurrogate(r) && p.i+1 < len(p.s) && p.s[p.i] == '\\' && p.s[p.i+1] == 'u' {
		save := p.i
		p.i += 2
		if r2, ok := p.hex4(); ok && utf16.DecodeRune(r, r2) != utf8.RuneError {
			b.WriteRune(utf16.DecodeRune(r, r2))
			return nil
		}
		p.i = save
	}
	b.WriteRune(r)
	return nil
}

func (p *jparser) hex4() (rune, bool) {
	if p.i+4 > len(p.s) {
		return 0, false
	}
	n, err := strconv.ParseUint(string(p.s[p.i:p.i+4]), 16, 32)
	if err != nil {
		return 0, false
	}
	p.i += 4
	return rune(n), true
}

// get is the value of key in an object (the last one, as JSON.parse
// keeps), or nil.
func (v *jvalue) get(key string) *jvalue {
	if v == nil || v.kind != jObject {
		return nil
	}
	for i := len(v.obj) - 1; i >= 0; i-- {
		if v.obj[i].key == key {
			return v.obj[i].val
		}
	}
	return nil
}

// members are an object's keys, the last of each duplicate kept, in
// file order.
func (v *jvalue) members() []jmember {
	if v == nil || v.kind != jObject {
		return nil
	}
	last := map[string]int{}
	for i, m := range v.obj {
		last[m.key] = i
	}
	var out []jmember
	for i, m := range v.obj {
		if last[m.key] == i {
			out = append(out, m)
		}
	}
	return out
}

// kindName names a kind as the user thinks of it.
func (k jkind) String() string {
	return [...]string{"null", "true or false", "a number", "a string", "a list", "an object"}[k]
}
