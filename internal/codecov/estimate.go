package codecov

// EstimateFunctions counts the functions a JavaScript text defines, for a
// file the server never loaded: the keyword function and arrows (=>),
// outside comments, strings and template literals. It is an estimate —
// regular-expression literals are not told apart from division, methods
// of a class or object (name() {…}) are not counted — stated as such in
// the manifest (code_coverage.estimated).
func EstimateFunctions(src []byte) int {
	n := 0
	for i := 0; i < len(src); i++ {
		c := src[i]
		switch {
		case c == '/' && i+1 < len(src) && src[i+1] == '/':
			for i < len(src) && src[i] != '\n' {
				i++
			}
		case c == '/' && i+1 < len(src) && src[i+1] == '*':
			i += 2
			for i+1 < len(src) && !(src[i] == '*' && src[i+1] == '/') {
				i++
			}
			i++
		case c == '"' || c == '\'' || c == '`':
			i++
			for i < len(src) && src[i] != c {
				if src[i] == '\\' {
					i++
				}
				i++
			}
		case c == '=' && i+1 < len(src) && src[i+1] == '>':
			n++
			i++
		case c == 'f' && word(src, i, "function"):
			n++
			i += len("function") - 1
		}
	}
	return n
}

// word reports the keyword w at src[i], not part of a longer name.
func word(src []byte, i int, w string) bool {
	if i+len(w) > len(src) || string(src[i:i+len(w)]) != w {
		return false
	}
	ident := func(b byte) bool {
		return b == '_' || b == '$' || b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z'
	}
	return (i == 0 || !ident(src[i-1])) && (i+len(w) == len(src) || !ident(src[i+len(w)]))
}
