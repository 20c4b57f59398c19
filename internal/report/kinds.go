package report

import (
	"fmt"
	"io"
	"strings"
)

// KindDoc explains one finding kind to the person who has to act on it:
// what was observed, how severe each form is, and what to do. `mcp-audit
// explain KIND` prints it, each SARIF rule carries it as its help, and
// docs/policy.md has the same text at the kind's anchor (TestKindDocs
// keeps them equal).
type KindDoc struct {
	Kind string
	// Title is one line: what was observed.
	Title string
	// What says what the finding means and how severe each form of it is.
	What string
	// Do says what a reviewer does about it.
	Do string
}

// DocsURL is the published policy documentation; each kind has an anchor
// in it (DocsAnchor).
const DocsURL = "https://github.com/mcp-audit/mcp-audit/blob/main/docs/policy.md"

// DocsAnchor is the anchor of a kind's section in docs/policy.md: the
// GitHub anchor of its heading "Kind `KIND`".
func DocsAnchor(kind string) string { return "kind-" + kind }

// DocsLink is the URL of a kind's section in the published docs.
func DocsLink(kind string) string { return DocsURL + "#" + DocsAnchor(kind) }

// Explain returns the documentation of a finding kind, or false for a
// kind mcp-audit does not report.
func Explain(kind string) (KindDoc, bool) {
	for _, d := range kindDocs {
		if d.Kind == kind {
			return d, true
		}
	}
	return KindDoc{}, false
}

// Kinds lists every finding kind mcp-audit reports, in the order of the
// docs.
func Kinds() []string {
	out := make([]string, len(kindDocs))
	for i, d := range kindDocs {
		out[i] = d.Kind
	}
	return out
}

// WriteExplain prints a kind's documentation for a terminal.
func WriteExplain(w io.Writer, d KindDoc) {
	fmt.Fprintf(w, "%s: %s\n\n%s\n\nWhat to do: %s\n\nMore: %s\n", d.Kind, d.Title, wrap(d.What, 90, ""), wrap(d.Do, 90, ""), DocsLink(d.Kind))
}

// KindsMarkdown is the "Finding kinds" part of docs/policy.md: a section
// per kind, with the same text as WriteExplain.
func KindsMarkdown() string {
	var b strings.Builder
	for i, d := range kindDocs {
		if i > 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "### Kind `%s`\n\n%s.\n\n%s\n\n**What to do:** %s\n", d.Kind, capitalize(d.Title), d.What, d.Do)
	}
	return b.String()
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
