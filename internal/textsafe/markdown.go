package textsafe

import "strings"

// Markdown makes hostile text safe in a Markdown paragraph or table cell
// (GitHub comments, job summaries, RESULTS.md): one line, no HTML, no
// emphasis, links, images or headings, no pipes, no autolinks; cut to max
// bytes (0: no limit) before escaping.
func Markdown(s string, max int) string {
	s = OneLine(s, max)
	var b strings.Builder
	for _, r := range s {
		switch r {
		case '<':
			b.WriteString("&lt;")
		case '>':
			b.WriteString("&gt;")
		case '&':
			b.WriteString("&amp;")
		case '|':
			b.WriteString("\\|")
		case '\\', '`', '*', '_', '[', ']', '#', '!', '~', '@':
			b.WriteString("\\" + string(r))
		default:
			b.WriteRune(r)
		}
	}
	return breakAutolinks(b.String())
}

// breakAutolinks keeps GitHub from turning a server's host names and URLs
// into links: it links text after a scheme or "www.".
func breakAutolinks(s string) string {
	return strings.NewReplacer("://", "&#58;//", "www.", "www&#46;", "WWW.", "WWW&#46;").Replace(s)
}

// MarkdownCode shows hostile text verbatim in an inline <code> element:
// Markdown code spans do not interpret entities, so the text is escaped
// for HTML instead, and nothing in it can close the element or link.
func MarkdownCode(s string, max int) string {
	if s == "" {
		return ""
	}
	s = OneLine(s, max)
	r := strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", "|", "&#124;", "`", "&#96;", "\\", "&#92;",
		"*", "&#42;", "_", "&#95;", "[", "&#91;", "]", "&#93;", "@", "&#64;")
	return "<code>" + breakAutolinks(r.Replace(s)) + "</code>"
}

// Text is Clean and Clip: multi-line text (notes, stderr) kept readable
// and bounded.
func Text(s string, max int) string { return Clip(Clean(s), max) }

// Valid makes s valid UTF-8 and cuts it to max bytes on a rune boundary,
// without an ellipsis or escaping: for recording what was observed (the
// sink's log), not for printing it.
func Valid(s string, max int) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	if max > 0 && len(s) > max {
		s = s[:runeCut(s, max)]
	}
	return s
}
