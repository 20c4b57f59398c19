package argsynth

import (
	"encoding/json"
	"slices"
	"strings"
)

// Role is what a tool does to the state it works on, for ordering calls:
// creators run before readers, readers before updaters, deleters last, so
// a reader finds what a creator made and nothing is deleted before it is
// read.
type Role string

// The roles, in the order Order puts them.
const (
	Creator Role = "creator"
	Reader  Role = "reader"
	Other   Role = "other"
	Updater Role = "updater"
	Deleter Role = "deleter"
)

var roleRank = map[Role]int{Creator: 0, Reader: 1, Other: 2, Updater: 3, Deleter: 4}

// The verbs that name a role, matched against the words of a tool's name
// (create_entities, browser_navigate, kubectl-delete).
var (
	createVerbs = []string{"create", "add", "new", "insert", "post", "upload", "register", "init", "clone",
		"launch", "start", "navigate", "goto", "generate", "make", "write", "save", "put", "store", "remember",
		"import", "fork", "publish", "send", "upsert", "connect", "login"}
	readVerbs = []string{"get", "list", "open", "read", "search", "find", "fetch", "query", "describe", "show", "view",
		"status", "log", "logs", "diff", "count", "lookup", "browse", "explain", "inspect", "check", "scrape",
		"map", "crawl", "extract", "download", "export", "snapshot", "screenshot", "info", "stats", "history", "blame"}
	updateVerbs = []string{"update", "edit", "set", "modify", "patch", "rename", "move", "replace", "append",
		"merge", "push", "commit", "apply", "change", "amend", "assign", "tag", "rebase", "reset", "checkout",
		"fill", "type", "click", "press", "select", "drag", "hover", "resize", "scale", "rollout", "cordon"}
	deleteVerbs = []string{"delete", "remove", "drop", "destroy", "purge", "clear", "kill", "close", "stop",
		"uninstall", "unset", "revoke", "cancel", "archive", "disconnect", "logout", "terminate", "wipe", "rm", "del"}
)

// Classify gives a tool's role from the verbs of its name, then its
// annotations (readOnlyHint, destructiveHint), then the first verb of its
// description. A tool whose annotations say read-only is a reader whatever
// its name.
func Classify(t Tool) Role {
	var ann struct {
		ReadOnly    *bool `json:"readOnlyHint"`
		Destructive *bool `json:"destructiveHint"`
	}
	_ = json.Unmarshal(t.Annotations, &ann)
	if ann.ReadOnly != nil && *ann.ReadOnly {
		return Reader
	}
	if r := verbRole(words(t.Name)); r != "" {
		return r
	}
	if ann.Destructive != nil && *ann.Destructive {
		return Deleter
	}
	d := t.Description
	if len(d) > 512 {
		d = d[:512]
	}
	if w := words(d); len(w) > 0 {
		if r := verbRole(w[:min(len(w), 3)]); r != "" {
			return r
		}
	}
	return Other
}

// verbRole is the role of the first word that is a known verb. Deleting
// verbs win anywhere in the name ("remove_from_cart" deletes), then the
// first verb met.
func verbRole(ws []string) Role {
	for _, w := range ws {
		if isVerb(deleteVerbs, w) {
			return Deleter
		}
	}
	for _, w := range ws {
		switch {
		case isVerb(createVerbs, w):
			return Creator
		case isVerb(readVerbs, w):
			return Reader
		case isVerb(updateVerbs, w):
			return Updater
		}
	}
	return ""
}

// isVerb matches a word or its third-person form ("lists", "creates").
func isVerb(verbs []string, w string) bool {
	return slices.Contains(verbs, w) || slices.Contains(verbs, strings.TrimSuffix(w, "s"))
}

// Order returns the tools creators first, then readers, others, updaters
// and deleters; within a role, in the order the server listed them.
func Order(tools []Tool) []Tool {
	out := slices.Clone(tools)
	slices.SortStableFunc(out, func(a, b Tool) int { return roleRank[Classify(a)] - roleRank[Classify(b)] })
	return out
}
