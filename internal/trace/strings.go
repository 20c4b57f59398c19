package trace

import (
	"slices"
	"strings"
)

// Unquote decodes a strace string argument such as "a\"b\n\0\303\277"...
// and reports whether strace truncated it (the trailing "..."). It accepts
// the C escapes strace emits: \n \t \r \v \f \a \b \" \\ \' \xHH and octal
// \N, \NN, \NNN. ok is false when s is not a quoted string.
func Unquote(s string) (b []byte, truncated, ok bool) {
	s = strings.TrimSpace(s)
	// Abstract unix socket paths are printed as @"name".
	s = strings.TrimPrefix(s, "@")
	if len(s) < 2 || s[0] != '"' {
		return nil, false, false
	}
	if rest, found := strings.CutSuffix(s, "..."); found {
		s, truncated = rest, true
	}
	if len(s) < 2 || s[len(s)-1] != '"' {
		// A line cut by MaxLine may end mid-string: decode what is there.
		s += `"`
		truncated = true
	}
	s = s[1 : len(s)-1]
	out := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 >= len(s) {
			out = append(out, c)
			continue
		}
		i++
		switch e := s[i]; e {
		case 'n':
			out = append(out, '\n')
		case 't':
			out = append(out, '\t')
		case 'r':
			out = append(out, '\r')
		case 'v':
			out = append(out, '\v')
		case 'f':
			out = append(out, '\f')
		case 'a':
			out = append(out, '\a')
		case 'b':
			out = append(out, '\b')
		case 'x':
			v, n := 0, 0
			for n < 2 && i+1 < len(s) && isHex(s[i+1]) {
				v = v*16 + hexVal(s[i+1])
				i++
				n++
			}
			if n == 0 {
				out = append(out, 'x')
				continue
			}
			out = append(out, byte(v))
		case '0', '1', '2', '3', '4', '5', '6', '7':
			v := int(e - '0')
			for n := 1; n < 3 && i+1 < len(s) && s[i+1] >= '0' && s[i+1] <= '7'; n++ {
				v = v*8 + int(s[i+1]-'0')
				i++
			}
			out = append(out, byte(v))
		default:
			out = append(out, e)
		}
	}
	return out, truncated, true
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

func hexVal(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'f':
		return int(c-'a') + 10
	}
	return int(c-'A') + 10
}

// UnquoteString is Unquote returning a string, "" when not quoted.
func UnquoteString(s string) string {
	b, _, ok := Unquote(s)
	if !ok {
		return ""
	}
	return string(b)
}

// Annotation returns the text of a -y/-yy annotation on an fd argument,
// such as "/home/dev" from AT_FDCWD</home/dev> or "TCP:[…]" from 3<TCP:[…]>.
func Annotation(arg string) (string, bool) {
	i := strings.IndexByte(arg, '<')
	if i <= 0 || !strings.HasSuffix(arg, ">") {
		return "", false
	}
	inner := arg[i+1 : len(arg)-1]
	// Annotations escape special bytes like strings do.
	if strings.IndexByte(inner, '\\') >= 0 {
		b, _, _ := Unquote(`"` + inner + `"`)
		return string(b), true
	}
	return inner, true
}

// Field returns the value of name=value inside a struct or flag argument
// printed by strace, e.g. Field("{sa_family=AF_INET, sin_port=htons(53)}",
// "sin_port") is "htons(53)". Nesting and quotes are respected.
func Field(arg, name string) (string, bool) {
	inner := strings.TrimSpace(arg)
	inner = strings.TrimPrefix(inner, "{")
	inner = strings.TrimSuffix(inner, "}")
	parts, _ := splitArgs(inner + ")")
	for _, p := range parts {
		k, v, ok := strings.Cut(p, "=")
		if ok && strings.TrimSpace(k) == name {
			return strings.TrimSpace(v), true
		}
	}
	return "", false
}

// Elements splits an array argument "[a, b, {c}]" into its elements.
func Elements(arg string) []string {
	s := strings.TrimSpace(arg)
	if !strings.HasPrefix(s, "[") {
		return nil
	}
	s = strings.TrimPrefix(s, "[")
	s = strings.TrimSuffix(s, "]")
	parts, _ := splitArgs(s + ")")
	return slices.DeleteFunc(parts, func(p string) bool { return p == "" })
}

// Flags splits "O_RDONLY|O_CLOEXEC" into its names.
func Flags(arg string) []string {
	return strings.Split(strings.TrimSpace(arg), "|")
}
