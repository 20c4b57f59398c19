package policy

import (
	"encoding/json"
	"fmt"
	"path"
	"regexp"
	"strings"

	m "github.com/mcp-audit/mcp-audit/internal/manifest"
)

// userDataFindings report the files that existed before the run, in the
// home or the workspace, that a phase destroyed (classify lists them:
// deleted, truncated, replaced, moved away). One the call's arguments did
// not name is medium; three or more in a phase are high, each; readable
// content replaced by random-looking bytes (encrypted, or random data) is
// high whatever the call named. Whatever the tool says it does: this is
// judged by the effect.
func userDataFindings(pe *phaseEval) []Finding {
	var unnamed, named []m.DestroyedFile
	for _, d := range pe.phase.Destroyed {
		switch {
		case pe.pol.Allow.path(d.Path):
		case pe.namedByCall(d.Path):
			named = append(named, d)
		default:
			unnamed = append(unnamed, d)
		}
	}
	many := len(unnamed) >= 3
	var out []Finding
	for _, d := range unnamed {
		f := userDataFinding(pe.phase.Name, d)
		switch {
		case d.HighEntropy:
		case many:
			f.Severity = High
			f.Summary += fmt.Sprintf(" (one of %d in this phase)", len(unnamed))
		}
		out = append(out, f)
	}
	for _, d := range named {
		if d.HighEntropy {
			out = append(out, userDataFinding(pe.phase.Name, d))
		}
	}
	return out
}

// userDataFinding is the finding of one destroyed file: medium, high when
// its content became random-looking bytes.
func userDataFinding(phase string, d m.DestroyedFile) Finding {
	f := Finding{Severity: Medium, Kind: KindDestroyed, Phase: phase, Subject: d.Path,
		Summary: d.How + " a file of the user's that the call did not name", Evidence: d.How + " " + d.Path}
	if d.Target != "" {
		f.Evidence += " (" + d.Target + ")"
	}
	if d.HighEntropy {
		f.Severity = High
		f.Summary = d.How + " a file of the user's, its readable content replaced by random-looking bytes (encrypted or random data)"
		if d.Written != "" {
			f.Evidence += "; random-looking bytes in " + d.Written
		}
	}
	return f
}

// maxArgStrings bounds the strings read from one call's arguments.
const maxArgStrings = 256

// namedByCall reports whether the phase's call named a normalized home or
// workspace path in its arguments: the file, a directory above it, or a
// glob that matches it. A value the tool's own schema put there (a
// default, an enum) is the server's choice, not the caller's.
func (pe *phaseEval) namedByCall(norm string) bool { return pe.named(norm, false) }

// named: the phase's call named the path, or (outputs) asked for its
// output there, it or a call of another tool made before it, in a
// parameter named for an output (filename, outputPath, savePath,
// destination): the caller asked for that file, and it may land in the
// next call's window (a browser writes a screenshot after it answered).
// A file a call was asked to read is no output of it, and an earlier call
// of the same tool does not count: a read-only tool that changes the file
// it was given, then or on its next call, is still the one that broke
// the contract.
func (pe *phaseEval) named(norm string, outputs bool) bool {
	rel, ok := strings.CutPrefix(norm, "<workspace>/")
	if !ok {
		if rel, ok = strings.CutPrefix(norm, "~/"); !ok {
			return false
		}
	}
	current := ""
	for _, c := range pe.man.Calls {
		if c.Phase == pe.phase.Name {
			current = c.Name
		}
	}
	for _, c := range pe.man.Calls {
		own := c.Phase == pe.phase.Name
		var vals []string
		switch {
		case !outputs && own:
			vals = argStrings(c.Args)
		case outputs && (own || c.Name != current):
			vals = outputArgs(c.Args)
		}
		for _, v := range vals {
			if namesPath(v, rel) && !ServerChosen(pe.man, c, v) {
				return true
			}
		}
		if own {
			break
		}
	}
	return false
}

// reOutputKey is a parameter named for where a call puts its output.
var reOutputKey = regexp.MustCompile(`(?i)^(file_?name|output.*|save.*|dest|destination.*|target_?(file|path)|export_?path|screenshot_?path)$`)

// outputArgs are the top-level string arguments named for an output.
func outputArgs(raw json.RawMessage) []string {
	var v map[string]any
	if json.Unmarshal(raw, &v) != nil {
		return nil
	}
	var out []string
	for k, x := range v {
		if s, ok := x.(string); ok && reOutputKey.MatchString(k) && len(out) < maxArgStrings {
			out = append(out, s)
		}
	}
	return out
}

// argStrings are the string values in a call's arguments, bounded.
func argStrings(raw json.RawMessage) []string {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return nil
	}
	var out []string
	var walk func(any)
	walk = func(x any) {
		if len(out) >= maxArgStrings {
			return
		}
		switch t := x.(type) {
		case string:
			out = append(out, t)
		case []any:
			for _, e := range t {
				walk(e)
			}
		case map[string]any:
			for _, e := range t {
				walk(e)
			}
		}
	}
	walk(v)
	return out
}

// namesPath reports whether an argument value names rel (a path relative
// to the workspace or the home): equal to it or to a directory above it,
// as a relative path or as the end of an absolute one, or a glob matching
// it. The workspace itself named names none of its files.
func namesPath(v, rel string) bool {
	v = strings.TrimPrefix(strings.TrimSpace(v), "file://")
	if v == "" || len(v) > 4096 {
		return false
	}
	under := func(cand string) bool {
		if ok, _ := path.Match(cand, rel); ok && strings.ContainsAny(cand, "*?[") {
			return true
		}
		return cand == rel || strings.HasPrefix(rel, cand+"/")
	}
	if !strings.HasPrefix(v, "/") {
		c := path.Clean(v)
		return c != "." && c != ".." && !strings.HasPrefix(c, "../") && under(c)
	}
	// An absolute path: the part below some root (the workspace, the
	// home) is one of its proper suffixes.
	segs := strings.Split(strings.TrimPrefix(path.Clean(v), "/"), "/")
	for i := 1; i < len(segs); i++ {
		if under(strings.Join(segs[i:], "/")) {
			return true
		}
	}
	return false
}
