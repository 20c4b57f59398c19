package site

import (
	"bytes"
	_ "embed"
	"html/template"
	"path"
	"slices"
	"strings"

	"github.com/mcp-audit/mcp-audit/internal/policy"
)

// The pages are static HTML from html/template (contextual escaping) under
// a Content-Security-Policy that allows no script and no request; the text
// they show was cleaned with textsafe when it was recorded, and names and
// versions are validated path segments.
var (
	//go:embed page.html
	pageHTML string
	pages    = template.Must(template.New("page").Funcs(template.FuncMap{"sev": sevClass}).Parse(pageHTML))
)

// maxRecent bounds the changes listed on the home page; the feed has all.
const maxRecent = 50

type homeData struct {
	Servers []homeServer
	Recent  []recentEntry
	Updated string
}

type homeServer struct {
	Name, Ecosystem, Page, Latest, Verdict, Status string
	Versions, Changes                              int
}

type recentEntry struct {
	Entry
	Page string // the server page, with the version's fragment
}

// homePage lists the servers, the newest changes and the machine formats.
func homePage(idx *Index, ch *Changes) ([]byte, error) {
	d := homeData{Updated: feedUpdated(idx, ch)}
	for _, s := range idx.Servers {
		if len(s.Versions) == 0 {
			continue
		}
		v := s.Versions[len(s.Versions)-1]
		h := homeServer{Name: s.Name, Ecosystem: s.Ecosystem, Page: s.Page, Latest: v.Version, Verdict: v.Verdict, Status: v.Status, Versions: len(s.Versions)}
		for _, v := range s.Versions {
			if v.Change != "" {
				h.Changes++
			}
		}
		d.Servers = append(d.Servers, h)
	}
	for _, e := range slices.Backward(ch.Entries) {
		if len(d.Recent) == maxRecent {
			break
		}
		p, err := pathsOf(e.Ecosystem, e.Name, e.NewVersion)
		if err != nil {
			return nil, err
		}
		d.Recent = append(d.Recent, recentEntry{Entry: e, Page: p.Page + "#" + anchor(e.NewVersion)})
	}
	return render("home", d)
}

type serverData struct {
	Server
	Root     string // relative path to the site's root
	Versions []versionData
}

type versionData struct {
	Version
	Anchor string
	Entry  *Entry
}

// serverPage lists a server's versions, newest first, each with what
// changed since the one before.
func serverPage(s Server, ch *Changes) ([]byte, error) {
	d := serverData{Server: s, Root: strings.Repeat("../", strings.Count(path.Dir(s.Page), "/")+1)}
	byID := map[string]*Entry{}
	for i := range ch.Entries {
		byID[ch.Entries[i].ID] = &ch.Entries[i]
	}
	for _, v := range slices.Backward(s.Versions) {
		v.Manifest, v.ToolHive, v.Docker = path.Base(v.Manifest), base(v.ToolHive), base(v.Docker)
		d.Versions = append(d.Versions, versionData{Version: v, Anchor: anchor(v.Version), Entry: byID[v.Change]})
	}
	return render("server", d)
}

func base(p string) string {
	if p == "" {
		return ""
	}
	return path.Base(p)
}

func render(name string, data any) ([]byte, error) {
	var b bytes.Buffer
	if err := pages.ExecuteTemplate(&b, name, data); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// sevClass maps a severity to its CSS class; anything else gets none.
func sevClass(s any) string {
	var name string
	switch v := s.(type) {
	case policy.Severity:
		name = v.String()
	case string:
		name = v
	}
	if slices.Contains([]string{"critical", "high", "medium", "low", "info"}, name) {
		return "sev-" + name
	}
	return "sev-none"
}
