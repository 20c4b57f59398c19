package clientconfig

import (
	"fmt"
	"strconv"
	"strings"
)

// The JSON reader keeps every value's line, so a problem is reported where
// the user wrote it, and accepts what VS Code's and Zed's readers accept
// (// and /* */ comments, trailing commas). Clients with a strict reader
// get a note when their file uses either (see ext): the file is still read,
// since auditing a server the client would reject costs time while missing
// one it runs costs the audit.

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
