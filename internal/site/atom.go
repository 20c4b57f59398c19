package site

import (
	"encoding/xml"
	"slices"
)

// The Atom feed (RFC 4287), rendered from changes.json with encoding/xml,
// which escapes every string it writes.
type atomFeed struct {
	XMLName   xml.Name    `xml:"http://www.w3.org/2005/Atom feed"`
	ID        string      `xml:"id"`
	Title     string      `xml:"title"`
	Subtitle  string      `xml:"subtitle"`
	Updated   string      `xml:"updated"`
	Author    atomPerson  `xml:"author"`
	Generator string      `xml:"generator"`
	Links     []atomLink  `xml:"link"`
	Entries   []atomEntry `xml:"entry"`
}

type atomPerson struct {
	Name string `xml:"name"`
}

type atomLink struct {
	Rel  string `xml:"rel,attr"`
	Type string `xml:"type,attr,omitempty"`
	Href string `xml:"href,attr"`
}

type atomEntry struct {
	ID        string       `xml:"id"`
	Title     string       `xml:"title"`
	Updated   string       `xml:"updated"`
	Published string       `xml:"published"`
	Links     []atomLink   `xml:"link"`
	Category  atomCategory `xml:"category"`
	Content   atomText     `xml:"content"`
}

type atomCategory struct {
	Term string `xml:"term,attr"`
}

type atomText struct {
	Type string `xml:"type,attr"`
	Text string `xml:",chardata"`
}

// atom renders the feed, newest entry first. Links are built only from
// validated paths, never from text a server controls.
func atom(idx *Index, ch *Changes, base string) ([]byte, error) {
	f := atomFeed{ID: idx.FeedID, Title: "mcp-audit: behavior changes of MCP servers",
		Subtitle:  "One entry per new version that behaves differently from the previous audited version.",
		Updated:   feedUpdated(idx, ch),
		Author:    atomPerson{Name: "mcp-audit"},
		Generator: "mcp-audit",
		Links: []atomLink{{Rel: "self", Type: "application/atom+xml", Href: link(base, FeedFile)},
			{Rel: "alternate", Type: "text/html", Href: link(base, HomeFile)}},
	}
	for _, e := range slices.Backward(ch.Entries) {
		p, err := pathsOf(e.Ecosystem, e.Name, e.NewVersion)
		if err != nil {
			return nil, err
		}
		f.Entries = append(f.Entries, atomEntry{ID: e.ID, Title: e.Title, Updated: e.Published, Published: e.Published,
			Links: []atomLink{{Rel: "alternate", Type: "text/html", Href: link(base, p.Page) + "#" + anchor(e.NewVersion)},
				{Rel: "related", Type: "application/json", Href: link(base, p.Manifest)}},
			Category: atomCategory{Term: e.Severity},
			Content:  atomText{Type: "text", Text: e.text()}})
	}
	b, err := xml.MarshalIndent(f, "", "  ")
	if err != nil {
		return nil, err
	}
	out := append(append([]byte(xml.Header), b...), '\n')
	if _, err := CheckAtom(out); err != nil {
		return nil, err // a feed readers would reject is not published
	}
	return out, nil
}

// feedUpdated is the newest entry's date, or the newest version's for a
// feed without entries, so the same site always renders the same feed.
func feedUpdated(idx *Index, ch *Changes) string {
	u := ""
	for _, e := range ch.Entries {
		if later(e.Published, u) {
			u = e.Published
		}
	}
	for _, t := range []string{u, idx.Updated, idx.ReportGeneratedAt} {
		if t != "" {
			return t
		}
	}
	return "1970-01-01T00:00:00Z"
}

// anchor is a version's fragment on its server page.
func anchor(version string) string { return "v" + version }
