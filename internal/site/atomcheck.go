package site

import (
	"encoding/xml"
	"errors"
	"fmt"
	"net/url"
	"time"
)

// atomIn is the part of an Atom document a feed reader relies on.
type atomIn struct {
	XMLName xml.Name `xml:"http://www.w3.org/2005/Atom feed"`
	ID      string   `xml:"id"`
	Title   string   `xml:"title"`
	Updated string   `xml:"updated"`
	Authors []struct {
		Name string `xml:"name"`
	} `xml:"author"`
	Links   []atomLink `xml:"link"`
	Entries []struct {
		ID        string `xml:"id"`
		Title     string `xml:"title"`
		Updated   string `xml:"updated"`
		Published string `xml:"published"`
		Authors   []struct {
			Name string `xml:"name"`
		} `xml:"author"`
		Links   []atomLink `xml:"link"`
		Content *atomText  `xml:"content"`
	} `xml:"entry"`
}

// CheckAtom applies the rules of RFC 4287 that feed readers depend on: a
// feed element in the Atom namespace with id, title, updated and a link;
// an author on the feed or on every entry; entries with an id unique in
// the feed, a title, an updated date and a link or content; ids that are
// absolute IRIs; dates in RFC 3339. It returns the number of entries.
func CheckAtom(data []byte) (int, error) {
	var f atomIn
	if err := xml.Unmarshal(data, &f); err != nil {
		return 0, fmt.Errorf("atom: %w", err)
	}
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf("atom: "+format, args...)) }
	if !absoluteIRI(f.ID) || f.Title == "" || len(f.Links) == 0 {
		bad("the feed needs an absolute id, a title and a link (id %q)", f.ID)
	}
	if !rfc3339(f.Updated) {
		bad("feed updated %q is not RFC 3339", f.Updated)
	}
	feedAuthor := len(f.Authors) > 0 && f.Authors[0].Name != ""
	ids := map[string]bool{}
	for i, e := range f.Entries {
		switch {
		case !absoluteIRI(e.ID):
			bad("entry %d: id %q is not an absolute IRI", i, e.ID)
		case ids[e.ID]:
			bad("entry %d: id %s is not unique", i, e.ID)
		}
		ids[e.ID] = true
		if e.Title == "" {
			bad("entry %d: no title", i)
		}
		if !rfc3339(e.Updated) || e.Published != "" && !rfc3339(e.Published) {
			bad("entry %d: updated %q or published %q is not RFC 3339", i, e.Updated, e.Published)
		}
		if !feedAuthor && (len(e.Authors) == 0 || e.Authors[0].Name == "") {
			bad("entry %d: no author, and the feed has none", i)
		}
		if len(e.Links) == 0 && e.Content == nil {
			bad("entry %d: neither a link nor content", i)
		}
		for _, l := range e.Links {
			if l.Href == "" {
				bad("entry %d: a link without href", i)
			}
		}
	}
	return len(f.Entries), errors.Join(errs...)
}

func absoluteIRI(s string) bool {
	u, err := url.Parse(s)
	return err == nil && u.Scheme != "" && s != ""
}

func rfc3339(s string) bool {
	_, err := time.Parse(time.RFC3339, s)
	return err == nil
}
