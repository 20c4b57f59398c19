// Package apps reads the pages of MCP Apps (the io.modelcontextprotocol/ui
// extension): the ui:// HTML a host renders in a sandboxed frame when a
// tool names it. What the page's scripts reach is client-side egress —
// traffic from the user's machine that no server-side trace shows — and
// the page declares, in its _meta, the domains its content security
// policy lets it reach and the permissions it asks the host for. The page
// is hostile input: bounded, hashed, its text sanitized by the caller.
package apps

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/url"
	"regexp"
	"slices"
	"strings"

	"github.com/mcp-audit/mcp-audit/internal/hosts"
	m "github.com/mcp-audit/mcp-audit/internal/manifest"
	"github.com/mcp-audit/mcp-audit/internal/textsafe"
)

// Bounds of what a page puts in the manifest.
const (
	maxPageBytes = 4 << 20
	maxHosts     = 64
	maxExcerpt   = 2 << 10
)

// reURL finds the absolute http(s) and ws(s) URLs a page loads or sends
// to: in attributes that load (src, href, action, …), in the arguments of
// the calls that fetch (fetch, XMLHttpRequest's open, WebSocket,
// EventSource, sendBeacon, import, CSS url), and in url settings. A URL
// in a comment, a licence or a schema's $id loads nothing and is left out.
var reURL = regexp.MustCompile("(?i)(?:\\b(?:src|href|action|formaction|poster|srcset)\\s*=\\s*[\"']?|\\b(?:fetch|open|WebSocket|EventSource|sendBeacon|import|importScripts|url)\\s*\\(\\s*(?:[\"'`]|[\"'`]?[a-z]+[\"'`]?\\s*,\\s*[\"'`])|\\burl\\s*[:=]\\s*[\"'`])((?:https?|wss?)://[a-z0-9.-]{1,253}(?::[0-9]{1,5})?)")

// Read reads one resources/read answer of the ui:// page uri. redact
// removes canary values from the excerpt (the hits are the caller's:
// the page's text is searched like any result).
func Read(uri string, raw []byte, redact func(string) string) m.AppPage {
	page := m.AppPage{URI: textsafe.Line(uri, 512)}
	var res struct {
		Contents []struct {
			URI      string `json:"uri"`
			MimeType string `json:"mimeType"`
			Text     string `json:"text"`
			Blob     string `json:"blob"`
			Meta     struct {
				UI struct {
					CSP map[string][]string `json:"csp"`
					// Permissions are what the page asks the host for:
					// camera, microphone, geolocation, clipboard…
					Permissions map[string]json.RawMessage `json:"permissions"`
				} `json:"ui"`
			} `json:"_meta"`
		} `json:"contents"`
	}
	if len(raw) > maxPageBytes || json.Unmarshal(raw, &res) != nil {
		page.Problem = "the answer could not be read"
		return page
	}
	var html strings.Builder
	for _, c := range res.Contents {
		if html.Len()+len(c.Text) <= maxPageBytes {
			html.WriteString(c.Text)
		}
		page.MimeType = textsafe.Line(c.MimeType, 128)
		for kind, ds := range c.Meta.UI.CSP {
			for _, d := range ds {
				if h := hostOf(d); h != "" && len(page.CSP) < maxHosts {
					page.CSP = append(page.CSP, textsafe.Line(kind, 40)+" "+h)
				}
			}
		}
		for p := range c.Meta.UI.Permissions {
			if len(page.Permissions) < 16 {
				page.Permissions = append(page.Permissions, textsafe.Line(p, 40))
			}
		}
	}
	text := html.String()
	sum := sha256.Sum256([]byte(text))
	page.SHA256, page.Size = hex.EncodeToString(sum[:]), len(text)
	page.Excerpt = textsafe.Clip(textsafe.Text(redact(text), maxExcerpt*2), maxExcerpt)
	declared := map[string]bool{}
	for _, c := range page.CSP {
		_, h, _ := strings.Cut(c, " ")
		declared[h] = true
	}
	for _, ix := range reURL.FindAllStringSubmatchIndex(text, 4*maxHosts) {
		if isLink(text, ix[0]) {
			continue // a link the user may follow loads nothing by itself
		}
		h := hostOf(text[ix[2]:ix[3]])
		if h == "" || slices.Contains(page.Hosts, h) || len(page.Hosts) == maxHosts {
			continue
		}
		page.Hosts = append(page.Hosts, h)
		if !covered(h, declared) {
			page.Outside = append(page.Outside, h)
		}
	}
	slices.Sort(page.CSP)
	slices.Sort(page.Permissions)
	slices.Sort(page.Hosts)
	slices.Sort(page.Outside)
	return page
}

// isLink reports whether the attribute at i belongs to an <a> or <area>
// element: a link, which loads nothing unless the user follows it.
func isLink(text string, i int) bool {
	lt := strings.LastIndexByte(text[:i], '<')
	if lt < 0 || strings.ContainsAny(text[lt:i], ">") {
		return false
	}
	tag := strings.ToLower(text[lt+1 : min(len(text), lt+6)])
	return strings.HasPrefix(tag, "a ") || strings.HasPrefix(tag, "a\t") || strings.HasPrefix(tag, "a\n") || strings.HasPrefix(tag, "area")
}

// covered reports whether a CSP's domains cover host h: the same host, or
// a wildcard (*.example.com) over it.
func covered(h string, declared map[string]bool) bool {
	if declared[h] {
		return true
	}
	for d := range declared {
		if rest, ok := strings.CutPrefix(d, "*."); ok && strings.HasSuffix(h, "."+rest) {
			return true
		}
	}
	return false
}

// hostOf is the host of a URL or a bare domain a CSP lists, lower case
// ("" when there is none).
func hostOf(s string) string {
	s = strings.TrimSpace(s)
	wild := strings.Contains(s, "://*.") || strings.HasPrefix(s, "*.")
	s = strings.Replace(s, "*.", "", 1)
	if !strings.Contains(s, "://") {
		s = "https://" + s
	}
	u, err := url.Parse(s)
	if err != nil || u.Hostname() == "" || hosts.Valid(u.Hostname()) != nil {
		return ""
	}
	if wild {
		return "*." + strings.ToLower(u.Hostname())
	}
	return strings.ToLower(u.Hostname())
}
