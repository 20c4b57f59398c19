package deptree

import (
	"cmp"
	"slices"
	"strings"
	"unicode/utf8"
)

// Look-alike kinds.
const (
	LookEdit       = "one-edit"    // one insertion, deletion, substitution or swap of neighbours from a popular name
	LookSeparator  = "separator"   // the same name but for "-", "_", "." or case
	LookScope      = "scope"       // a popular scoped package's name under another scope, or none
	LookBinCommand = "bin-command" // a bin named like a well-known command
	LookBinServer  = "bin-server"  // a bin named like a popular server's command
)

// Lengths below which a resemblance means nothing: a popular name shorter
// than minEditLength is one edit from too many others, and bare names
// shorter than minScopedBare ("mcp") are shared across scopes by design.
const (
	minEditLength = 6
	minScopedBare = 8
)

// Lookalike is a package whose name resembles a popular MCP server's, or
// whose bin takes over another package's command. It is an observation
// (low): typosquats look like this, and so do honest forks.
type Lookalike struct {
	Ecosystem string `json:"ecosystem"`
	// Name is the package in the tree; Bin its command, for bin kinds.
	Name string `json:"name"`
	Bin  string `json:"bin,omitempty"`
	Kind string `json:"kind"`
	// Resembles is the popular name or the command it resembles; Owner,
	// for bin-server, the package whose command it is.
	Resembles string   `json:"resembles"`
	Owner     string   `json:"owner,omitempty"`
	Severity  Severity `json:"severity"`
}

// Lookalikes lists the look-alike names and shadowing bins of t, sorted.
func Lookalikes(t *Tree) []Lookalike {
	if t == nil {
		return nil
	}
	var out []Lookalike
	for _, p := range t.NPM {
		if r, kind := ResemblesNPM(p.Name); kind != "" {
			out = append(out, Lookalike{Ecosystem: NPM, Name: p.Name, Kind: kind, Resembles: r, Severity: Low})
		}
		for _, b := range p.Bins {
			out = append(out, shadows(NPM, p.Name, b.Name)...)
		}
	}
	for _, d := range t.Python {
		if r, kind := ResemblesPyPI(d.Key); kind != "" {
			out = append(out, Lookalike{Ecosystem: PyPI, Name: d.Key, Kind: kind, Resembles: r, Severity: Low})
		}
		for _, b := range pyBins([]PyDist{d}) {
			out = append(out, shadows(PyPI, d.Key, b)...)
		}
	}
	slices.SortFunc(out, func(a, b Lookalike) int {
		return cmp.Or(strings.Compare(a.Ecosystem, b.Ecosystem), strings.Compare(a.Name, b.Name),
			strings.Compare(a.Kind, b.Kind), strings.Compare(a.Bin, b.Bin), strings.Compare(a.Resembles, b.Resembles))
	})
	return slices.Compact(out)
}

// shadows reports a bin of pkg that takes over a well-known command or a
// popular server's command.
func shadows(eco, pkg, bin string) []Lookalike {
	var out []Lookalike
	if owners, ok := Commands[bin]; ok && !slices.Contains(owners, pkg) {
		out = append(out, Lookalike{Ecosystem: eco, Name: pkg, Bin: bin, Kind: LookBinCommand, Resembles: bin, Severity: Low})
	}
	if owner, ok := ServerBins[bin]; ok && owner != pkg {
		out = append(out, Lookalike{Ecosystem: eco, Name: pkg, Bin: bin, Kind: LookBinServer, Resembles: bin, Owner: owner, Severity: Low})
	}
	return out
}

// ResemblesNPM tells whether an npm name is a look-alike of a popular
// one, and of which; kind is "" when it is not (or is a popular name
// itself). npm names differ by every character, so "-", "_", "." and case
// confusions are distinct packages.
func ResemblesNPM(name string) (popular, kind string) {
	if slices.Contains(PopularNPM, name) {
		return "", ""
	}
	for _, p := range PopularNPM {
		if k := resembles(name, p); k != "" {
			return p, k
		}
	}
	return "", ""
}

// ResemblesPyPI is ResemblesNPM for Python projects, compared in their
// normalized form (PEP 503): names an index treats as one project are the
// same project, not look-alikes.
func ResemblesPyPI(name string) (popular, kind string) {
	key := NormalizePyName(name)
	for _, p := range PopularPyPI {
		if key == NormalizePyName(p) {
			return "", ""
		}
	}
	for _, p := range PopularPyPI {
		if k := resembles(key, NormalizePyName(p)); k != "" {
			return p, k
		}
	}
	return "", ""
}

func resembles(name, popular string) string {
	switch {
	case name == popular:
		return ""
	case foldSeparators(name) == foldSeparators(popular):
		return LookSeparator
	case utf8.RuneCountInString(popular) >= minEditLength && withinOneEdit(name, popular):
		return LookEdit
	}
	scope, bare, scoped := strings.Cut(popular, "/")
	if !scoped || len(bare) < minScopedBare {
		return ""
	}
	if nScope, nBare, ok := strings.Cut(name, "/"); ok && nScope != scope && nBare == bare || !ok && name == bare {
		return LookScope
	}
	return ""
}

// foldSeparators lowers a name and drops "-", "_" and ".".
func foldSeparators(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '-' || r == '_' || r == '.' {
			return -1
		}
		return r
	}, strings.ToLower(s))
}

// withinOneEdit reports whether a and b (different) are at
// Damerau–Levenshtein distance 1: one rune inserted, deleted or
// substituted, or two neighbours swapped.
func withinOneEdit(a, b string) bool {
	x, y := []rune(a), []rune(b)
	if len(x) > len(y) {
		x, y = y, x
	}
	if len(y)-len(x) > 1 {
		return false
	}
	i := 0
	for i < len(x) && x[i] == y[i] {
		i++
	}
	if len(x) < len(y) {
		return slices.Equal(x[i:], y[i+1:])
	}
	if i == len(x) {
		return false // equal
	}
	if slices.Equal(x[i+1:], y[i+1:]) {
		return true
	}
	return i+1 < len(x) && x[i] == y[i+1] && x[i+1] == y[i] && slices.Equal(x[i+2:], y[i+2:])
}
