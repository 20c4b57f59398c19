package argsynth

import (
	"bytes"
	"encoding/json"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Limits on what a pool keeps from results (hostile input).
const (
	maxResultBytes = 256 << 10 // of one result; the rest is not read
	maxPerCall     = 64        // entries kept from one result
	maxPool        = 512       // entries kept in all; the oldest go first
	maxValue       = 256       // bytes of one value
	maxListItems   = 16        // items of one list walked
)

// Pool holds the ids and names earlier calls returned, so later calls can
// use them: a reader gets the id a creator made. Add is called with each
// call's result as it arrives; Plan and PlanSet read it. A Pool is not
// safe for concurrent use (the scheduler makes one call at a time).
type Pool struct {
	entries []entry
	deny    func(string) bool
}

// entry is one value found in a result.
type entry struct {
	call, tool string // the call (its phase) and the tool it called
	field      string // where in the result: "content[0].text[0].name"
	key        string // the field's own name: "name"
	nouns      []string
	value      any // string or json.Number
	seq        int
}

// NewPool returns an empty pool. deny, if not nil, rejects values that
// must never be sent back (the scheduler passes its canary finder: a
// result that carried a credential must not make a later call carry it).
func NewPool(deny func(value string) bool) *Pool { return &Pool{deny: deny} }

// Add records the ids and names in one call's result: fields named id,
// *_id, *Id, name, key, uri, path, slug (and the like), the items of
// lists, in JSON structured content and in text items that are JSON or
// "Key: value" lines. call is how the scheduler names the call (its
// phase, "call:create_entities"), tool the tool it called.
func (p *Pool) Add(call, tool string, result json.RawMessage) {
	if p == nil || len(result) == 0 {
		return
	}
	if len(result) > maxResultBytes {
		result = result[:maxResultBytes]
	}
	var v any
	d := json.NewDecoder(bytes.NewReader(result))
	d.UseNumber()
	if d.Decode(&v) != nil {
		return
	}
	w := walker{p: p, call: call, tool: tool, nouns: nounsOf(words(tool))}
	w.walk(v, "", "", nil, 0)
	if over := len(p.entries) - maxPool; over > 0 {
		p.entries = slices.Delete(p.entries, 0, over)
	}
}

type walker struct {
	p          *Pool
	call, tool string
	nouns      []string
	n          int
}

func (w *walker) walk(v any, field, key string, nouns []string, depth int) {
	if depth > maxDepth || w.n >= maxPerCall {
		return
	}
	switch x := v.(type) {
	case map[string]any:
		inner := nouns
		if key != "" {
			inner = append(slices.Clone(nouns), nounsOf(words(key))...)
		}
		for _, k := range sortedKeys(x) {
			w.walk(x[k], join(field, k), k, inner, depth+1)
		}
	case []any:
		for i, item := range x[:min(len(x), maxListItems)] {
			w.walk(item, field+"["+strconv.Itoa(i)+"]", key, nouns, depth+1)
		}
	case string:
		if t := strings.TrimSpace(x); depth < maxDepth-2 && (strings.HasPrefix(t, "{") || strings.HasPrefix(t, "[")) {
			var inner any
			d := json.NewDecoder(strings.NewReader(t))
			d.UseNumber()
			if d.Decode(&inner) == nil {
				w.walk(inner, field, key, nouns, depth+1)
				return
			}
		}
		if key == "text" {
			w.lines(x, field, nouns)
		}
		w.add(field, key, nouns, x)
	case json.Number:
		w.add(field, key, nouns, x)
	}
}

// reLine is a "Key: value" line of a text result ("ID: 4182", "Page id =
// 7").
var reLine = regexp.MustCompile(`(?m)^[\t -]*([A-Za-z][A-Za-z _]{0,30}?)\s*[:=]\s*"?([A-Za-z0-9._:/@#-]{1,128})"?\s*$`)

// rePID is a process id in prose ("Process started with PID 4182").
var rePID = regexp.MustCompile(`(?i)\b(?:pid|process id)\b\s*[:#=]?\s*([0-9]{1,10})\b`)

func (w *walker) lines(text, field string, nouns []string) {
	if len(text) > 64<<10 {
		text = text[:64<<10]
	}
	for _, m := range reLine.FindAllStringSubmatch(text, maxPerCall) {
		w.add(field+":"+m[1], m[1], nouns, m[2])
	}
	if m := rePID.FindStringSubmatch(text); m != nil {
		w.add(field+":pid", "pid", nouns, json.Number(m[1]))
	}
}

func (w *walker) add(field, key string, nouns []string, v any) {
	if !idKey(key) || w.n >= maxPerCall {
		return
	}
	if s, ok := v.(string); ok && !w.p.safe(s) {
		return
	}
	w.n++
	all := slices.Concat(nouns, w.nouns)
	w.p.entries = append(w.p.entries, entry{call: w.call, tool: w.tool, field: field, key: key, nouns: all, value: v, seq: len(w.p.entries)})
}

func join(field, k string) string {
	if field == "" {
		return k
	}
	return field + "." + k
}

// idWords are the last words of a field or parameter that names a thing.
var idWords = []string{"id", "uid", "uuid", "guid", "name", "key", "uri", "url", "path", "slug", "ref", "sha",
	"number", "handle", "title", "table", "file", "branch", "tag", "index", "pid"}

// idKey reports whether a field's name says it names a thing ("id",
// "page_id", "entityName"), or is a list of such ("names", "tables").
func idKey(key string) bool {
	w := words(key)
	if len(w) == 0 {
		return false
	}
	last := singular(w[len(w)-1])
	return slices.Contains(idWords, last)
}

// nounsOf are the singular words of a tool name other than its verbs.
func nounsOf(ws []string) []string {
	var out []string
	for _, w := range ws {
		if verbRole([]string{w}) == "" {
			out = append(out, singular(w))
		}
	}
	return out
}

// safe reports whether a value from a result may be sent in a later
// call. A server's result is hostile: a path to a decoy credential, a
// path outside the workspace or a value the scheduler denies (a canary)
// would make a later call carry it and the audit blame the server for
// what the auditor asked.
func (p *Pool) safe(s string) bool {
	if s == "" || len(s) > maxValue || !utf8.ValidString(s) || strings.ContainsFunc(s, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
		return false
	}
	if p.deny != nil && p.deny(s) {
		return false
	}
	return !sensitive(s)
}

// sensitivePaths are the names of decoy credentials and system files;
// systemDirs the directories no call of the audit's should name.
var (
	sensitivePaths = []string{".env", ".ssh", ".aws", ".npmrc", ".netrc", ".docker", ".config", ".cursor", ".claude",
		".gnupg", ".kube", "id_rsa", "id_ed25519", "credentials", ".git-credentials", "_history", "file:"}
	systemDirs = []string{"/etc", "/proc", "/root", "/sys", "/dev", "/var", "/usr", "/bin", "/boot", "/run", "/tmp", "~", "$home"}
)

// sensitive reports whether s names a decoy credential, a system file, a
// parent directory, or an absolute path outside the workspace.
func sensitive(s string) bool {
	if decoy(s) {
		return true
	}
	if strings.HasPrefix(s, "/") || strings.HasPrefix(s, "~") || strings.HasPrefix(s, "\\") {
		return s != Workspace && !strings.HasPrefix(s, Workspace+"/")
	}
	return false
}

// decoy reports whether s names a decoy credential, a system file or a
// parent directory.
func decoy(s string) bool {
	l := strings.ToLower(s)
	return slices.ContainsFunc(sensitivePaths, func(x string) bool { return strings.Contains(l, x) }) || strings.Contains(s, "..") ||
		slices.ContainsFunc(systemDirs, func(d string) bool { return l == d || strings.HasPrefix(l, d+"/") })
}
