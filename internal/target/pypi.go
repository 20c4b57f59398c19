package target

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"io"
	"net/http"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"
)

// DefaultPyPIIndex is pip's default simple index, used when nothing else
// is configured.
const DefaultPyPIIndex = "https://pypi.org/simple/"

// PyPIConfig is the part of pip's configuration mcp-audit honors.
type PyPIConfig struct {
	// Index is the simple index URL (PEP 503/691), trailing slash, without
	// credentials.
	Index string
	// user and password come from the index URL's userinfo (never printed).
	user, password string
}

// LoadPyPIConfig reads, lowest precedence first: /etc/pip.conf,
// ~/.pip/pip.conf, ~/.config/pip/pip.conf (or $XDG_CONFIG_HOME), the file
// in PIP_CONFIG_FILE, then PIP_INDEX_URL; flag (--index-url) wins over all.
func LoadPyPIConfig(getenv func(string) string, flag string) PyPIConfig {
	index := DefaultPyPIIndex
	home := getenv("HOME")
	xdg := getenv("XDG_CONFIG_HOME")
	if xdg == "" && home != "" {
		xdg = filepath.Join(home, ".config")
	}
	files := []string{"/etc/pip.conf"}
	if home != "" {
		files = append(files, filepath.Join(home, ".pip", "pip.conf"))
	}
	if xdg != "" {
		files = append(files, filepath.Join(xdg, "pip", "pip.conf"))
	}
	if f := getenv("PIP_CONFIG_FILE"); f != "" && f != os.DevNull {
		files = append(files, f)
	}
	for _, f := range files {
		if u := pipConfIndex(f); u != "" {
			index = u
		}
	}
	if v := getenv("PIP_INDEX_URL"); v != "" {
		index = v
	}
	if flag != "" {
		index = flag
	}
	return newPyPIConfig(index)
}

func newPyPIConfig(index string) PyPIConfig {
	c := PyPIConfig{Index: withSlash(index)}
	if u, err := url.Parse(c.Index); err == nil && u.User != nil {
		c.user = u.User.Username()
		c.password, _ = u.User.Password()
		u.User = nil
		c.Index = u.String()
	}
	return c
}

// pipConfIndex reads index-url from the [global] or [install] section of an
// INI-style pip.conf.
func pipConfIndex(file string) string {
	f, err := os.Open(file)
	if err != nil {
		return ""
	}
	defer f.Close()
	section, found := "", ""
	sc := bufio.NewScanner(io.LimitReader(f, 1<<20))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "[") && strings.HasSuffix(line, "]") {
			section = strings.ToLower(strings.Trim(line, "[] "))
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok || section != "global" && section != "install" {
			continue
		}
		if k = strings.ToLower(strings.TrimSpace(k)); k == "index-url" || k == "index_url" {
			found = strings.TrimSpace(v)
		}
	}
	return found
}

// PyFile is one distribution file of a project on the index.
type PyFile struct {
	Filename string
	URL      string
	SHA256   string
	Version  PyVersion
	Yanked   bool
	// Uploaded is the file's upload time (PEP 700, JSON form only); zero
	// when the index does not say.
	Uploaded time.Time
}

var reNormalize = regexp.MustCompile(`[-_.]+`)

// NormalizePyName is PEP 503's normalized project name.
func NormalizePyName(s string) string { return strings.ToLower(reNormalize.ReplaceAllString(s, "-")) }

// rePyName is a valid project name (PEP 508).
var rePyName = regexp.MustCompile(`^[A-Za-z0-9]([A-Za-z0-9._-]*[A-Za-z0-9])?$`)

// PyPIFiles lists a project's files from the simple index, asking for the
// JSON form (PEP 691) and reading the HTML form (PEP 503) otherwise.
func PyPIFiles(ctx context.Context, hc *http.Client, cfg PyPIConfig, name string) ([]PyFile, error) {
	page := cfg.Index + NormalizePyName(name) + "/"
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, page, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/vnd.pypi.simple.v1+json, text/html;q=0.1")
	if cfg.user != "" {
		req.SetBasicAuth(cfg.user, cfg.password)
	}
	res, err := hc.Do(req)
	if err != nil {
		return nil, fmt.Errorf("reading the simple index for %s: %w", name, err)
	}
	defer res.Body.Close()
	if res.StatusCode == http.StatusNotFound {
		return nil, fmt.Errorf("%w: %s is not on the index %s", ErrUsage, name, cfg.Index)
	}
	if res.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("reading the simple index for %s: %s", name, res.Status)
	}
	body, err := io.ReadAll(io.LimitReader(res.Body, maxMetadata+1))
	if err != nil || len(body) > maxMetadata {
		return nil, fmt.Errorf("reading the simple index for %s: too large or cut: %v", name, err)
	}
	base, _ := url.Parse(page)
	var files []PyFile
	if strings.Contains(res.Header.Get("Content-Type"), "json") {
		files, err = parseSimpleJSON(body, base)
	} else {
		files = parseSimpleHTML(body, base)
	}
	if err != nil {
		return nil, fmt.Errorf("reading the simple index for %s: %w", name, err)
	}
	return withVersions(files, name), nil
}

func parseSimpleJSON(body []byte, base *url.URL) ([]PyFile, error) {
	var doc struct {
		Files []struct {
			Filename string            `json:"filename"`
			URL      string            `json:"url"`
			Hashes   map[string]string `json:"hashes"`
			Yanked   any               `json:"yanked"`
			Uploaded string            `json:"upload-time"`
		} `json:"files"`
	}
	if err := json.Unmarshal(body, &doc); err != nil {
		return nil, err
	}
	var out []PyFile
	for _, f := range doc.Files {
		u, err := base.Parse(f.URL)
		if err != nil {
			continue
		}
		yanked := f.Yanked != nil && f.Yanked != false
		up, _ := time.Parse(time.RFC3339, f.Uploaded)
		out = append(out, PyFile{Filename: f.Filename, URL: stripFragment(u), SHA256: f.Hashes["sha256"], Yanked: yanked, Uploaded: up.UTC()})
	}
	return out, nil
}

// reAnchor matches one link of a PEP 503 page, e.g.
// <a href="../../files/x-1.0.tar.gz#sha256=ab…" data-yanked="">x-1.0.tar.gz</a>
var reAnchor = regexp.MustCompile(`(?is)<a\s([^>]*)>([^<]*)</a>`)
var reHref = regexp.MustCompile(`(?is)\bhref\s*=\s*"([^"]*)"`)

func parseSimpleHTML(body []byte, base *url.URL) []PyFile {
	var out []PyFile
	for _, m := range reAnchor.FindAllSubmatch(body, -1) {
		h := reHref.FindSubmatch(m[1])
		if h == nil {
			continue
		}
		u, err := base.Parse(html.UnescapeString(string(h[1])))
		if err != nil {
			continue
		}
		f := PyFile{Filename: path.Base(u.Path), URL: stripFragment(u),
			Yanked: strings.Contains(strings.ToLower(string(m[1])), "data-yanked")}
		if k, v, ok := strings.Cut(u.Fragment, "="); ok && k == "sha256" {
			f.SHA256 = v
		}
		out = append(out, f)
	}
	return out
}

func stripFragment(u *url.URL) string {
	c := *u
	c.Fragment = ""
	return c.String()
}

// withVersions keeps the wheels and sdists whose file names carry a
// version of the project.
func withVersions(files []PyFile, name string) []PyFile {
	var out []PyFile
	for _, f := range files {
		if v, ok := fileVersion(f.Filename, name); ok {
			f.Version = v
			out = append(out, f)
		}
	}
	return out
}

// fileVersion reads the version from a wheel name (name-ver(-build)?-py-abi-plat.whl)
// or an sdist name (name-ver.tar.gz).
func fileVersion(file, name string) (PyVersion, bool) {
	var stem string
	switch {
	case strings.HasSuffix(file, ".whl"):
		parts := strings.Split(strings.TrimSuffix(file, ".whl"), "-")
		if len(parts) < 5 {
			return PyVersion{}, false
		}
		stem = parts[0] + "-" + parts[1]
	case strings.HasSuffix(file, ".tar.gz"):
		stem = strings.TrimSuffix(file, ".tar.gz")
	default:
		return PyVersion{}, false
	}
	i := strings.LastIndex(stem, "-")
	if i <= 0 || NormalizePyName(stem[:i]) != NormalizePyName(name) {
		return PyVersion{}, false
	}
	v, err := ParsePyVersion(stem[i+1:])
	return v, err == nil
}

// pureWheel reports whether a wheel runs on any Python 3 (py3-none-any).
func pureWheel(file string) bool {
	parts := strings.Split(strings.TrimSuffix(file, ".whl"), "-")
	if !strings.HasSuffix(file, ".whl") || len(parts) < 5 {
		return false
	}
	py, abi, plat := parts[len(parts)-3], parts[len(parts)-2], parts[len(parts)-1]
	return slices.Contains(strings.Split(py, "."), "py3") && abi == "none" && plat == "any"
}

// PickPyFile resolves a specifier to one file: the highest matching
// version that is not yanked (unless pinned with ==), its pure-Python wheel
// if it has one, its sdist otherwise.
func PickPyFile(files []PyFile, spec string, allowPre bool) (PyFile, error) {
	sp, err := ParsePySpecifier(spec)
	if err != nil {
		return PyFile{}, err
	}
	pinned := len(sp.clauses) == 1 && sp.clauses[0].op == "==" && !sp.clauses[0].wildcard
	var best *PyFile
	for i, f := range files {
		if f.Yanked && !pinned || !sp.Match(f.Version, allowPre) {
			continue
		}
		if !pureWheel(f.Filename) && !strings.HasSuffix(f.Filename, ".tar.gz") {
			continue
		}
		if best == nil || better(f, *best) {
			best = &files[i]
		}
	}
	if best == nil {
		return PyFile{}, fmt.Errorf("%w: no pure-Python wheel or sdist matches %q", ErrUsage, spec)
	}
	return *best, nil
}

func better(a, b PyFile) bool {
	if c := a.Version.Compare(b.Version); c != 0 {
		return c > 0
	}
	return pureWheel(a.Filename) && !pureWheel(b.Filename)
}

// errNoHash marks an index file without a sha256 to verify.
var errNoHash = errors.New("the index gives no sha256 for it; refusing to install unverifiable code")
