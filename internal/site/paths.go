package site

import (
	"errors"
	"fmt"
	"net/url"
	"path"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/mcp-audit/mcp-audit/internal/baseline"
)

// ErrUnsafePath rejects a name or version that cannot be a stable URL.
var ErrUnsafePath = errors.New("not usable in a URL path")

// Segments of a stable URL: URL-safe characters only, so a path needs no
// escaping and a version cannot smuggle a scheme, a query or a fragment.
var (
	reEcosystem = regexp.MustCompile(`^[a-z][a-z0-9-]{0,31}$`)
	reNamePart  = regexp.MustCompile(`^@?[A-Za-z0-9][A-Za-z0-9._~-]{0,213}$`)
	reVersion   = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._+-]{0,127}$`)
)

// paths are a version's stable paths, relative to the site's root.
type paths struct {
	Dir      string // the server's directory: npm/@scope/name
	Manifest string // npm/@scope/name/1.2.3.json
	ToolHive string // npm/@scope/name/1.2.3.toolhive.json
	Docker   string // npm/@scope/name/1.2.3.docker.yaml
	Page     string // npm/@scope/name/index.html
}

// pathsOf validates ecosystem, name and version with baseline.Path's rules
// (no traversal, npm scopes only) and the URL-safe segment rules, and
// returns the version's stable paths.
func pathsOf(ecosystem, name, version string) (paths, error) {
	if _, err := baseline.Path("", ecosystem, name, version); err != nil {
		return paths{}, fmt.Errorf("%w: %w", ErrUnsafePath, err)
	}
	bad := !reEcosystem.MatchString(ecosystem) || !reVersion.MatchString(version) ||
		strings.HasSuffix(version, ".toolhive") || strings.HasSuffix(version, ".docker")
	for i, part := range strings.Split(name, "/") {
		if !reNamePart.MatchString(part) || i > 0 && strings.HasPrefix(part, "@") {
			bad = true
		}
	}
	if bad {
		return paths{}, fmt.Errorf("%w: %q %q %q", ErrUnsafePath, ecosystem, name, version)
	}
	dir := path.Join(ecosystem, name)
	return paths{Dir: dir, Manifest: path.Join(dir, version+".json"), ToolHive: path.Join(dir, version+".toolhive.json"),
		Docker: path.Join(dir, version+".docker.yaml"), Page: path.Join(dir, PageFile)}, nil
}

// file maps a site path to the file system.
func file(dir, p string) string { return filepath.Join(dir, filepath.FromSlash(p)) }

// link joins the site's base URL and a validated site path. Each segment
// is escaped all the same, so a link never carries more than a path.
func link(base, p string) string {
	parts := strings.Split(p, "/")
	for i, s := range parts {
		parts[i] = url.PathEscape(s)
	}
	return base + strings.Join(parts, "/")
}

// CheckBaseURL accepts "" (links relative to the site's root) or an
// absolute http(s) URL ending in a slash.
func CheckBaseURL(base string) error {
	if base == "" {
		return nil
	}
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || !strings.HasSuffix(u.Path, "/") ||
		u.RawQuery != "" || u.Fragment != "" || u.User != nil {
		return fmt.Errorf("base URL %q: want https://host/path/ (ending in a slash)", base)
	}
	return nil
}
