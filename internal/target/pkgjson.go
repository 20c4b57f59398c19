package target

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/mcp-audit/mcp-audit/internal/hosts"
)

// PackageJSON is the part of package.json mcp-audit reads.
type PackageJSON struct {
	Name         string            `json:"name"`
	Version      string            `json:"version"`
	Main         string            `json:"main"`
	Bin          json.RawMessage   `json:"bin"`
	Scripts      map[string]string `json:"scripts"`
	Dependencies map[string]string `json:"dependencies"`
	MCPName      string            `json:"mcpName"`
	Homepage     string            `json:"homepage"`
	Repository   json.RawMessage   `json:"repository"`
	Bugs         json.RawMessage   `json:"bugs"`
}

// ServiceDomains are the registrable domains of the package's homepage,
// repository and issue tracker, code hosts left out: where its own service
// most likely lives.
func (p PackageJSON) ServiceDomains() []string {
	urls := []string{p.Homepage, urlField(p.Repository), urlField(p.Bugs)}
	var out []string
	for _, u := range urls {
		h := hosts.FromURL(u)
		if h == "" || hosts.IsCodeHost(h) || !strings.Contains(h, ".") {
			continue
		}
		out = append(out, hosts.Registrable(h))
	}
	return out
}

// urlField reads a package.json field that is a URL string or an object
// with a url.
func urlField(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var o struct {
		URL string `json:"url"`
	}
	json.Unmarshal(raw, &o)
	return o.URL
}

// ReadPackageJSON reads dir/package.json (bounded to 4 MiB).
func ReadPackageJSON(dir string) (PackageJSON, error) {
	var m PackageJSON
	f, err := os.Open(filepath.Join(dir, "package.json"))
	if err != nil {
		return m, err
	}
	defer f.Close()
	if err := json.NewDecoder(io.LimitReader(f, 4<<20)).Decode(&m); err != nil {
		return m, fmt.Errorf("reading %s/package.json: %w", dir, err)
	}
	return m, nil
}

// Bins returns the package's executables, name -> relative path.
func (m PackageJSON) Bins() map[string]string {
	out := map[string]string{}
	var s string
	if json.Unmarshal(m.Bin, &s) == nil && s != "" {
		name := m.Name
		if i := strings.LastIndex(name, "/"); i >= 0 {
			name = name[i+1:]
		}
		out[name] = s
		return out
	}
	_ = json.Unmarshal(m.Bin, &out)
	return out
}

// HasInstallScripts reports lifecycle scripts npm would run on install.
func (m PackageJSON) HasInstallScripts() bool {
	for _, k := range []string{"preinstall", "install", "postinstall"} {
		if m.Scripts[k] != "" {
			return true
		}
	}
	return false
}

// Entry picks the server's entry file, relative to the package root:
// the bin named by want, the only bin, the bin named like the package or
// containing "mcp"/"server", then "main", then index.js.
func (m PackageJSON) Entry(want string) (string, error) {
	bins := m.Bins()
	if want != "" {
		if p, ok := bins[want]; ok {
			return cleanRel(p)
		}
		if strings.Contains(want, "/") || strings.HasSuffix(want, ".js") || strings.HasSuffix(want, ".mjs") || strings.HasSuffix(want, ".cjs") {
			return cleanRel(want)
		}
		return "", fmt.Errorf("%w: package has no bin %q (has: %s)", ErrUsage, want, binNames(bins))
	}
	switch len(bins) {
	case 0:
	case 1:
		for _, p := range bins {
			return cleanRel(p)
		}
	default:
		short := m.Name
		if i := strings.LastIndex(short, "/"); i >= 0 {
			short = short[i+1:]
		}
		if p, ok := bins[short]; ok {
			return cleanRel(p)
		}
		var cands []string
		for n := range bins {
			if strings.Contains(n, "mcp") || strings.Contains(n, "server") {
				cands = append(cands, n)
			}
		}
		if len(cands) == 1 {
			return cleanRel(bins[cands[0]])
		}
		return "", fmt.Errorf("%w: package has several bins (%s); choose one with --bin", ErrUsage, binNames(bins))
	}
	if m.Main != "" {
		return cleanRel(m.Main)
	}
	return "index.js", nil
}

func binNames(b map[string]string) string {
	var n []string
	for k := range b {
		n = append(n, k)
	}
	sort.Strings(n)
	return strings.Join(n, ", ")
}

// cleanRel keeps a path inside the package.
func cleanRel(p string) (string, error) {
	c := path.Clean("/" + filepath.ToSlash(p))
	if c == "/" {
		return "", fmt.Errorf("%w: empty entry path", ErrUsage)
	}
	return c[1:], nil
}

// Interpreter decides how to start an entry file: with node unless its
// shebang names another interpreter, in which case it runs directly.
func Interpreter(file string) []string {
	f, err := os.Open(file)
	if err != nil {
		return []string{"node"}
	}
	defer f.Close()
	line, _ := bufio.NewReader(io.LimitReader(f, 256)).ReadString('\n')
	if strings.HasPrefix(line, "#!") && !strings.Contains(line, "node") {
		return nil
	}
	return []string{"node"}
}

// InstallScripts lists the installed packages (the target and its
// dependencies) that have lifecycle scripts npm would run on install:
// preinstall, install, postinstall, or a binding.gyp (an implicit
// node-gyp rebuild). Package code is only read, never run.
func (p *Package) InstallScripts() []string {
	var out []string
	seen := map[string]bool{}
	var walk func(dir string, depth int)
	walk = func(dir string, depth int) {
		if depth > 6 || len(out) > 500 {
			return
		}
		entries, err := os.ReadDir(dir)
		if err != nil {
			return
		}
		for _, e := range entries {
			if !e.IsDir() || strings.HasPrefix(e.Name(), ".") {
				continue
			}
			sub := filepath.Join(dir, e.Name())
			if strings.HasPrefix(e.Name(), "@") {
				walk(sub, depth)
				continue
			}
			if m, err := ReadPackageJSON(sub); err == nil {
				_, gyp := os.Stat(filepath.Join(sub, "binding.gyp"))
				if (m.HasInstallScripts() || gyp == nil) && !seen[sub] {
					seen[sub] = true
					name := m.Name
					if name == "" {
						name = e.Name()
					}
					out = append(out, name)
				}
			}
			walk(filepath.Join(sub, "node_modules"), depth+1)
		}
	}
	walk(filepath.Join(p.Root, "node_modules"), 0)
	sort.Strings(out)
	return slices.Compact(out)
}
