package clientconfig

import (
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

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
