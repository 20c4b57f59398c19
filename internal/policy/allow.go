package policy

import (
	"path"
	"strings"
)

// Allow is a per-server allow-list. Allowed behavior yields no finding.
type Allow struct {
	// Hosts are names or addresses; "*.example.com" matches subdomains.
	Hosts []string `yaml:"hosts" json:"hosts"`
	// Paths are normalized paths; a trailing /** matches a subtree.
	Paths []string `yaml:"paths" json:"paths"`
	// Processes are program paths or base names.
	Processes []string `yaml:"processes" json:"processes"`
}

// host matches a name or address, exactly or as a subdomain of a
// "*." pattern.
func (a Allow) host(h string) bool {
	h = strings.ToLower(strings.TrimSuffix(h, "."))
	for _, p := range a.Hosts {
		p = strings.ToLower(p)
		if p == h || strings.HasPrefix(p, "*.") && strings.HasSuffix(h, p[1:]) {
			return true
		}
	}
	return false
}

// path matches a normalized path, exactly, under a "/**" subtree or by
// path.Match glob.
func (a Allow) path(p string) bool {
	for _, x := range a.Paths {
		if x == p || strings.HasSuffix(x, "/**") && strings.HasPrefix(p, strings.TrimSuffix(x, "**")) {
			return true
		}
		if ok, _ := path.Match(x, p); ok {
			return true
		}
	}
	return false
}

// process matches a program by path or base name.
func (a Allow) process(p string) bool {
	for _, x := range a.Processes {
		if x == p || x == path.Base(p) {
			return true
		}
	}
	return false
}
