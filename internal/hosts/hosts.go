// Package hosts finds host names in text and relates them to each other:
// the hosts a caller or a configuration handed a server (URLs, DSNs,
// host:port, user@host), and registrable domains (api.mail.example.com
// and mail.example.com share example.com) for judging whether traffic
// went to a server's own service. Everything it reads is untrusted; it
// returns lower-case names only.
package hosts

import (
	"net/netip"
	"net/url"
	"regexp"
	"slices"
	"strings"

	"golang.org/x/net/publicsuffix"
)

// reHost finds host-like tokens: labels joined by dots ending in a
// letter label, optionally inside a URL or after user@.
var reHost = regexp.MustCompile(`(?i)(?:[a-z][a-z0-9+.-]*://)?(?:[^\s@/:'"]+(?::[^\s@/'"]*)?@)?((?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z][a-z0-9-]{0,62}[a-z0-9]|\d{1,3}(?:\.\d{1,3}){3})`)

// maxText bounds the text scanned for hosts.
const maxText = 64 << 10

// Extract returns the distinct host names and IPv4 addresses in text,
// lower-cased and sorted. Tokens that look like file names (a known file
// extension as the last label) are left out.
func Extract(text string) []string {
	if len(text) > maxText {
		text = text[:maxText]
	}
	var out []string
	for _, m := range reHost.FindAllStringSubmatch(text, 256) {
		h := strings.ToLower(strings.TrimSuffix(m[1], "."))
		if _, err := netip.ParseAddr(h); err != nil && fileLike(h) {
			continue
		}
		out = append(out, h)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

var fileExt = map[string]bool{"js": true, "json": true, "ts": true, "md": true, "txt": true, "py": true, "yaml": true,
	"yml": true, "toml": true, "html": true, "css": true, "png": true, "jpg": true, "csv": true, "log": true, "sh": true,
	"mjs": true, "cjs": true, "db": true, "sqlite": true, "lock": true, "env": true, "pdf": true, "zip": true, "gz": true}

func fileLike(h string) bool {
	return fileExt[h[strings.LastIndexByte(h, '.')+1:]]
}

// FromURL is the lower-case host of a URL, or "".
func FromURL(raw string) string {
	u, err := url.Parse(strings.TrimSpace(strings.TrimPrefix(raw, "git+")))
	if err != nil {
		return ""
	}
	return strings.ToLower(u.Hostname())
}

// Registrable is the registrable domain of a host name (the public suffix
// plus one label), the host itself for addresses and names without a
// known suffix.
func Registrable(host string) string {
	host = strings.ToLower(strings.TrimSuffix(host, "."))
	if _, err := netip.ParseAddr(host); err == nil {
		return host
	}
	if d, err := publicsuffix.EffectiveTLDPlusOne(host); err == nil {
		return d
	}
	return host
}

// SameService reports whether host belongs to one of the registrable
// domains.
func SameService(host string, domains []string) bool {
	return slices.Contains(domains, Registrable(host))
}

// codeHosts serve source code and release files; a repository there says
// nothing about the service a package talks to.
var codeHosts = []string{"github.com", "githubusercontent.com", "gitlab.com", "bitbucket.org", "codeberg.org",
	"sourceforge.net", "sr.ht", "gitee.com"}

// buckets are storage and release hosts install scripts download prebuilt
// binaries from.
var buckets = []string{"amazonaws.com", "googleapis.com", "cloudfront.net", "blob.core.windows.net", "r2.dev",
	"digitaloceanspaces.com", "backblazeb2.com", "jsdelivr.net", "unpkg.com", "githubassets.com"}

// IsCodeHost reports whether host is a source code host.
func IsCodeHost(host string) bool { return withinAny(host, codeHosts) }

// IsDownloadHost reports whether host is a code host or a storage bucket or
// CDN that install scripts fetch prebuilt binaries from.
func IsDownloadHost(host string) bool { return IsCodeHost(host) || withinAny(host, buckets) }

// withinAny matches a domain or any name below it (the public suffix list
// makes some of these suffixes, so registrable domains would miss them).
func withinAny(host string, domains []string) bool {
	host = strings.ToLower(strings.TrimSuffix(host, "."))
	for _, d := range domains {
		if host == d || strings.HasSuffix(host, "."+d) {
			return true
		}
	}
	return false
}
