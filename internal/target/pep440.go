package target

import (
	"cmp"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// PyVersion is a parsed PEP 440 version. The subset mcp-audit needs to pick
// a release: epoch, release numbers, pre-release (a, b, rc), post and dev
// releases; a local label ("+ubuntu1") is kept but only breaks ties.
type PyVersion struct {
	Raw     string
	epoch   int
	release []int
	pre     [2]int // phase (0 a, 1 b, 2 rc) and number; phase -1: none
	post    int    // -1: none
	dev     int    // -1: none
	local   string
}

// rePyVersion is PEP 440's permissive form (its appendix), e.g.
// "1!2.0.post1", "1.0rc1", "v2.1-alpha.3", "1.0.dev0+local.7".
var rePyVersion = regexp.MustCompile(`^v?(?:(\d+)!)?(\d+(?:\.\d+)*)` +
	`(?:[-_.]?(a|b|c|rc|alpha|beta|pre|preview)[-_.]?(\d+)?)?` +
	`(?:-(\d+)|[-_.]?(post|rev|r)[-_.]?(\d+)?)?` +
	`(?:[-_.]?(dev)[-_.]?(\d+)?)?` +
	`(?:\+([a-z0-9]+(?:[-_.][a-z0-9]+)*))?$`)

// ParsePyVersion parses a PEP 440 version.
func ParsePyVersion(s string) (PyVersion, error) {
	m := rePyVersion.FindStringSubmatch(strings.ToLower(strings.TrimSpace(s)))
	if m == nil {
		return PyVersion{}, fmt.Errorf("%q is not a PEP 440 version", s)
	}
	v := PyVersion{Raw: s, pre: [2]int{-1, 0}, post: -1, dev: -1, local: m[10]}
	v.epoch = atoi(m[1])
	for _, p := range strings.Split(m[2], ".") {
		v.release = append(v.release, atoi(p))
	}
	switch m[3] {
	case "a", "alpha":
		v.pre = [2]int{0, atoi(m[4])}
	case "b", "beta":
		v.pre = [2]int{1, atoi(m[4])}
	case "c", "rc", "pre", "preview":
		v.pre = [2]int{2, atoi(m[4])}
	}
	if m[5] != "" {
		v.post = atoi(m[5])
	} else if m[6] != "" {
		v.post = atoi(m[7])
	}
	if m[8] != "" {
		v.dev = atoi(m[9])
	}
	return v, nil
}

func atoi(s string) int {
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		return 0
	}
	return n
}

// Prerelease reports whether v is a pre- or dev release.
func (v PyVersion) Prerelease() bool { return v.pre[0] >= 0 || v.dev >= 0 }

// String is the normalized form ("1.0rc1.post2.dev3").
func (v PyVersion) String() string {
	var b strings.Builder
	if v.epoch != 0 {
		fmt.Fprintf(&b, "%d!", v.epoch)
	}
	for i, r := range v.release {
		if i > 0 {
			b.WriteByte('.')
		}
		b.WriteString(strconv.Itoa(r))
	}
	if v.pre[0] >= 0 {
		fmt.Fprintf(&b, "%s%d", []string{"a", "b", "rc"}[v.pre[0]], v.pre[1])
	}
	if v.post >= 0 {
		fmt.Fprintf(&b, ".post%d", v.post)
	}
	if v.dev >= 0 {
		fmt.Fprintf(&b, ".dev%d", v.dev)
	}
	if v.local != "" {
		b.WriteString("+" + v.local)
	}
	return b.String()
}

// Compare orders versions as PEP 440 does: 1.0.dev0 < 1.0a1 < 1.0 < 1.0.post1.
func (v PyVersion) Compare(w PyVersion) int {
	if c := cmp.Compare(v.epoch, w.epoch); c != 0 {
		return c
	}
	for i := 0; i < max(len(v.release), len(w.release)); i++ {
		if c := cmp.Compare(at(v.release, i), at(w.release, i)); c != 0 {
			return c
		}
	}
	if c := cmp.Compare(v.preKey(), w.preKey()); c != 0 {
		return c
	}
	if c := cmp.Compare(v.post, w.post); c != 0 {
		return c
	}
	if c := cmp.Compare(devKey(v.dev), devKey(w.dev)); c != 0 {
		return c
	}
	return cmp.Compare(v.local, w.local)
}

func at(r []int, i int) int {
	if i < len(r) {
		return r[i]
	}
	return 0
}

// preKey: a dev release of a final version sorts before its pre-releases,
// a final (or post) release after them.
func (v PyVersion) preKey() int {
	switch {
	case v.pre[0] >= 0:
		return v.pre[0]*1_000_000 + min(v.pre[1], 999_999)
	case v.post < 0 && v.dev >= 0:
		return math.MinInt
	}
	return math.MaxInt
}

func devKey(d int) int {
	if d < 0 {
		return math.MaxInt
	}
	return d
}

// PySpecifier is a parsed version specifier set ("~=1.2,!=1.2.3").
type PySpecifier struct {
	clauses []pyClause
	// pre is set when a clause names a pre-release: then pre-releases match.
	pre bool
}

type pyClause struct {
	op       string
	v        PyVersion
	wildcard bool // "==1.2.*" or "!=1.2.*"
}

var reClause = regexp.MustCompile(`^(~=|==|!=|<=|>=|<|>)\s*(\S+)$`)

// ParsePySpecifier parses the tested subset of PEP 440 specifiers: ==, !=
// (both with a trailing .* too), <, <=, >, >=, ~= (compatible release),
// comma-separated; a bare version means ==. "" matches every final release.
func ParsePySpecifier(s string) (PySpecifier, error) {
	var sp PySpecifier
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		m := reClause.FindStringSubmatch(part)
		if m == nil {
			m = []string{part, "==", part}
		}
		c := pyClause{op: m[1]}
		vs := m[2]
		if (c.op == "==" || c.op == "!=") && strings.HasSuffix(vs, ".*") {
			c.wildcard, vs = true, strings.TrimSuffix(vs, ".*")
		}
		v, err := ParsePyVersion(vs)
		if err != nil {
			return PySpecifier{}, fmt.Errorf("%w: specifier %q: %v", ErrUsage, part, err)
		}
		if c.op == "~=" && len(v.release) < 2 {
			return PySpecifier{}, fmt.Errorf("%w: specifier %q: ~= needs at least two release numbers", ErrUsage, part)
		}
		c.v = v
		sp.pre = sp.pre || v.Prerelease()
		sp.clauses = append(sp.clauses, c)
	}
	return sp, nil
}

// Match reports whether v satisfies every clause. Pre-releases match only
// when allowPre is set or a clause names one.
func (sp PySpecifier) Match(v PyVersion, allowPre bool) bool {
	if v.Prerelease() && !allowPre && !sp.pre {
		return false
	}
	for _, c := range sp.clauses {
		if !c.match(v) {
			return false
		}
	}
	return true
}

func (c pyClause) match(v PyVersion) bool {
	n := v.Compare(c.v)
	switch c.op {
	case "==":
		if c.wildcard {
			return prefixMatch(v, c.v)
		}
		return n == 0 || c.v.local == "" && v.withoutLocal().Compare(c.v) == 0
	case "!=":
		if c.wildcard {
			return !prefixMatch(v, c.v)
		}
		return n != 0
	case "<=":
		return n <= 0
	case ">=":
		return n >= 0
	case "<":
		// <V excludes V's own pre-releases (PEP 440).
		return n < 0 && !(v.Prerelease() && !c.v.Prerelease() && sameRelease(v, c.v))
	case ">":
		return n > 0 && !(v.post >= 0 && c.v.post < 0 && sameRelease(v, c.v))
	case "~=":
		prefix := c.v
		prefix.release = slices.Clone(c.v.release[:len(c.v.release)-1])
		return n >= 0 && prefixMatch(v, prefix)
	}
	return false
}

func (v PyVersion) withoutLocal() PyVersion { v.local = ""; return v }

func sameRelease(a, b PyVersion) bool {
	return a.epoch == b.epoch && slices.Equal(trimZeros(a.release), trimZeros(b.release))
}

func trimZeros(r []int) []int {
	for len(r) > 1 && r[len(r)-1] == 0 {
		r = r[:len(r)-1]
	}
	return r
}

// prefixMatch: v's release starts with p's (zero-padded), same epoch.
func prefixMatch(v, p PyVersion) bool {
	if v.epoch != p.epoch {
		return false
	}
	for i := range p.release {
		if at(v.release, i) != p.release[i] {
			return false
		}
	}
	return true
}
