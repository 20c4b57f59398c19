package argsynth

import (
	"encoding/json"
	"slices"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
)

// Tool is what synthesis reads of one tool, with the field names of an
// MCP tools/list entry so the scheduler can decode one directly.
type Tool struct {
	Name        string          `json:"name"`
	Title       string          `json:"title,omitempty"`
	Description string          `json:"description,omitempty"`
	InputSchema json.RawMessage `json:"inputSchema,omitempty"`
	Annotations json.RawMessage `json:"annotations,omitempty"`
}

// toolCtx is what the tool as a whole says about its parameters.
type toolCtx struct {
	name   string // lower case, words joined by spaces
	desc   string // lower case, bounded
	role   Role
	groups []group
	// examples caches each parameter description's first example.
	examples map[string]string
}

// example is the first example a parameter's description gives.
func (tc *toolCtx) example(desc string) string {
	if tc.examples == nil {
		tc.examples = map[string]string{}
	}
	ex, ok := tc.examples[desc]
	if !ok {
		ex = example(desc)
		tc.examples[desc] = ex
	}
	return ex
}

// compiled is a tool's schema parsed and resolved once, for every set.
type compiled struct {
	tool Tool
	root *jsonschema.Schema
	rs   *jsonschema.Resolved // nil when the schema does not resolve
	tc   *toolCtx
	err  error
}

func compile(t Tool) *compiled {
	c := &compiled{tool: t, root: &jsonschema.Schema{Type: "object"}}
	raw := t.InputSchema
	switch {
	case len(raw) > maxSchemaBytes:
		c.err = errTooLarge
	case len(raw) == 0 || string(raw) == "null":
		c.rs, _ = c.root.Resolve(nil)
	default:
		var s jsonschema.Schema
		if err := json.Unmarshal(raw, &s); err != nil {
			c.err = err
			break
		}
		c.root = &s
		c.rs = resolve(&s)
	}
	desc := t.Description
	if len(desc) > 8192 {
		desc = desc[:8192]
	}
	c.tc = &toolCtx{name: strings.Join(words(t.Name), " "), desc: strings.ToLower(desc), role: Classify(t)}
	props := map[string]string{}
	for k, p := range c.root.Properties {
		if p != nil && len(props) < maxProps*4 {
			props[k] = p.Description
		}
	}
	c.tc.groups = groupsOf(desc, props)
	return c
}

// resolve prepares a schema for the validator, or returns nil when it
// does not resolve or guard finds it unsafe to validate.
func resolve(s *jsonschema.Schema) *jsonschema.Resolved {
	if guard(s) != nil {
		return nil
	}
	rs, err := s.Resolve(&jsonschema.ResolveOptions{ValidateDefaults: false})
	if err != nil {
		return nil
	}
	return rs
}

// has reports whether the tool's name or description contains any of
// subs.
func (tc *toolCtx) has(subs ...string) bool {
	return slices.ContainsFunc(subs, func(s string) bool { return strings.Contains(tc.name, s) || strings.Contains(tc.desc, s) })
}

// named reports whether the tool's name contains any of subs.
func (tc *toolCtx) named(subs ...string) bool {
	return slices.ContainsFunc(subs, func(s string) bool { return strings.Contains(tc.name, s) })
}

// dirKind is a directory parameter: a new one for a tool that creates
// directories, the workspace otherwise.
func (tc *toolCtx) dirKind() kind {
	if tc.role == Creator && tc.named("dir", "folder", "mkdir", "clone") {
		return kNewDir
	}
	return kDir
}

// pathKind is a path parameter: a directory for a tool about
// directories, a new file for one that writes or for a destination, the
// workspace's README otherwise.
func (tc *toolCtx) pathKind(n, desc string) kind {
	switch {
	case tc.has("github", "gitlab", "bitbucket"):
		return kRepoPath // a path inside a hosted repository
	case tc.named("clone") || strings.Contains(desc, "destination") && strings.Contains(desc, "clone"):
		return kNewDir
	case tc.named("directory", "dir", "folder", "tree", "working") && !tc.named("file"),
		strings.Contains(desc, "directory") && !strings.Contains(desc, "file"):
		return tc.dirKind()
	case in(n, "destination", "dest", "target", "output", "outputpath", "savepath"),
		tc.named("write", "save", "create", "export", "screenshot", "snapshot", "pdf", "heapsnapshot", "download", "record"):
		return kNewFile
	}
	return kFile
}

// nameKind is a "name" parameter: a slug for the things software names
// (a repository, an index, a table), a person's name otherwise.
func (tc *toolCtx) nameKind(desc string) kind {
	things := []string{"repo", "index", "project", "bucket", "table", "database", "branch", "package", "collection",
		"skill", "glossary", "channel", "workflow", "app", "service", "cluster", "model", "tag", "label", "queue",
		"namespace", "deployment", "pod", "container", "resource", "screenshot", "file", "page", "insight", "config"}
	switch {
	case strings.Contains(desc, "file name"):
		return kFileName
	case slices.ContainsFunc(things, func(s string) bool { return strings.Contains(desc, s) || tc.named(s) }):
		return kSlug
	}
	return kPerson
}

// excluded reports whether adding k would put a second member of one of
// its groups into a set that has keys.
func (tc *toolCtx) excluded(k string, keys []string) bool {
	for _, gr := range tc.groups {
		if gr.has(k) && slices.ContainsFunc(keys, func(o string) bool { return o != k && gr.has(o) }) {
			return true
		}
	}
	return false
}

// urls are the URLs a URL parameter gets: a service's own when the
// parameter's description, the tool's name or its description names one.
func (tc *toolCtx) urls(paramDesc, name string) []string {
	pd := strings.ToLower(paramDesc + " " + strings.Join(words(name), " "))
	for _, text := range []string{pd, tc.name, tc.desc} {
		for _, s := range services {
			if slices.ContainsFunc(s.words, func(w string) bool { return strings.Contains(text, w) }) {
				return s.urls
			}
		}
	}
	return values[kURL]
}
