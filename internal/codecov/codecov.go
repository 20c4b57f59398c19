// Package codecov measures how much of a Node server's own code an audit
// ran, from the V8 coverage node writes when NODE_V8_COVERAGE is set:
// functions that ran over functions defined in the package's own
// JavaScript files (its dependencies apart), where a file never loaded
// counts as not run (its functions estimated from its text). Node writes
// the coverage only when it exits by itself — the audit closes the
// server's stdin first, which ends a well-behaved server — so a server
// killed at the end leaves none: that is "not measured", never 0%.
//
// The coverage files are written by the server's own process and are
// hostile input: bounded in count and bytes, parsed tolerantly, their URLs
// matched against the package's own paths and nothing else.
package codecov

import (
	"bytes"
	"encoding/json"
	"path"
	"slices"
	"strings"

	m "github.com/mcp-audit/mcp-audit/internal/manifest"
)

// Bounds on what is read.
const (
	MaxFiles     = 16       // coverage files
	MaxFileBytes = 16 << 20 // per coverage file
	maxScripts   = 20000    // script entries over all files
	maxFunctions = 1 << 20  // function entries over all files
)

// Source is one JavaScript file of the package's own, by its path
// relative to the package directory, with its text (bounded by the
// caller) for the estimate of a file never loaded.
type Source struct {
	Path string
	Text []byte
}

type v8File struct {
	Result []struct {
		URL       string `json:"url"`
		Functions []struct {
			Ranges []struct {
				Count int64 `json:"count"`
			} `json:"ranges"`
		} `json:"functions"`
	} `json:"result"`
}

// Measure is the code coverage of the package at pkgRoot (its path in
// the sandbox) from the coverage files, nil when none could be read.
func Measure(files [][]byte, pkgRoot string, own []Source) *m.CodeCoverage {
	type script struct{ defined, ran int }
	seen := map[string]*script{}
	scripts, functions, parsed := 0, 0, 0
	for i, f := range files {
		if i == MaxFiles || len(f) > MaxFileBytes {
			break
		}
		var v v8File
		if json.NewDecoder(bytes.NewReader(f)).Decode(&v) != nil {
			continue
		}
		parsed++
		for _, r := range v.Result {
			if scripts++; scripts > maxScripts {
				break
			}
			rel, ok := ownPath(r.URL, pkgRoot)
			if !ok || seen[rel] != nil && len(r.Functions) <= seen[rel].defined {
				continue
			}
			s := &script{}
			// The first entry is the module's own top-level function,
			// which runs when the file loads: it is not counted.
			for j, fn := range r.Functions {
				if functions++; functions > maxFunctions {
					break
				}
				if j == 0 {
					continue
				}
				s.defined++
				if len(fn.Ranges) > 0 && fn.Ranges[0].Count > 0 {
					s.ran++
				}
			}
			seen[rel] = s
		}
	}
	if parsed == 0 {
		return nil
	}
	c := &m.CodeCoverage{}
	for _, src := range own {
		c.Files++
		if s := seen[src.Path]; s != nil {
			c.FilesLoaded++
			c.Functions += s.defined
			c.Ran += s.ran
			continue
		}
		n := EstimateFunctions(src.Text)
		c.Functions += n
		c.Estimated += n
	}
	return c
}

// ownPath maps a coverage URL to a path inside the package directory, the
// package's own files only (not its node_modules).
func ownPath(url, pkgRoot string) (string, bool) {
	p, ok := strings.CutPrefix(url, "file://")
	if !ok || !strings.HasPrefix(p, "/") {
		return "", false
	}
	p = path.Clean(p)
	rel, ok := strings.CutPrefix(p, path.Clean(pkgRoot)+"/")
	if !ok || rel == "" || slices.Contains(strings.Split(rel, "/"), "node_modules") {
		return "", false
	}
	return rel, true
}

// IsSource reports a file of the package's own JavaScript.
func IsSource(rel string) bool {
	if slices.Contains(strings.Split(rel, "/"), "node_modules") {
		return false
	}
	switch path.Ext(rel) {
	case ".js", ".cjs", ".mjs":
		return true
	}
	return false
}
