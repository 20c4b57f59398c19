package scan

import (
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/mcp-audit/mcp-audit/internal/clientconfig"
)

// notes are what a reader of a server's report must know of its
// configuration: every place it is configured, whether it is disabled,
// and the warnings about it and about the files it is in.
func notes(res *clientconfig.Result, s *clientconfig.Server, home string) []string {
	var out []string
	var paths []string
	for _, src := range s.Sources {
		client := "a file"
		if c := clientconfig.ClientByID(src.Client); c != nil {
			client = c.Name
		}
		out = append(out, fmt.Sprintf("configured in %s: %s as %q", client, Where(src.Path, src.Line, home), src.Name))
		paths = append(paths, src.Path)
	}
	if s.Disabled {
		out = append(out, "disabled in its client: audited all the same, since it can be turned on")
	}
	for _, w := range res.WarningsFor(s) {
		out = append(out, warningNote(w, home))
	}
	for _, w := range res.Warnings {
		if w.Entry == 0 && slices.Contains(paths, w.Path) {
			out = append(out, warningNote(w, home))
		}
	}
	return out
}

func warningNote(w clientconfig.Warning, home string) string {
	return "warning (" + w.Kind + "): " + Where(w.Path, w.Line, home) + ": " + w.Message
}

// Where is a place in a file for people: the path home-relative (~/…),
// and the line when known.
func Where(path string, line int, home string) string {
	p := path
	if home != "" {
		if rel, err := filepath.Rel(home, path); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			p = filepath.ToSlash(filepath.Join("~", rel))
		}
	}
	if line > 0 {
		p += ":" + strconv.Itoa(line)
	}
	return p
}
