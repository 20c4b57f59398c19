package argsynth

import (
	"encoding/json"
	"slices"
	"strings"
)

// Role is what a tool does to the state it works on, for ordering calls:
// a tool that sets the context the others work in (a working directory,
// a project) runs first, creators before readers, readers before
// updaters, deleters last, so a reader finds what a creator made and
// nothing is deleted before it is read. A tool that ends what the others
// use (closes the page, stops the session, kills a process) is an ender:
// the scheduler makes its calls after every other tool's.
type Role string

// The roles, in the order Order puts them.
const (
	Setup   Role = "setup"
	Creator Role = "creator"
	Reader  Role = "reader"
	Other   Role = "other"
	Updater Role = "updater"
	Deleter Role = "deleter"
	Ender   Role = "ender"
)

var roleRank = map[Role]int{Setup: -1, Creator: 0, Reader: 1, Other: 2, Updater: 3, Deleter: 4, Ender: 5}

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
		"uninstall", "unset", "revoke", "cancel", "archive", "disconnect", "logout", "terminate", "wipe", "rm", "del",
		"back", "undo"}
	// endVerbs are the deleting verbs that end a thing other calls use
	// rather than remove data, or leave it (browser_navigate_back, run
	// right after browser_navigate, left every later call of
	// @playwright/mcp on a blank page).
	endVerbs = []string{"close", "stop", "kill", "terminate", "disconnect", "logout", "quit", "exit", "shutdown", "end",
		"back", "undo"}
	// setVerbs followed by a contextNoun name a setup tool
	// (git_set_working_dir, use_database, switch_project).
	setVerbs     = []string{"set", "use", "switch", "select", "choose", "change"}
	contextNouns = []string{"working", "workdir", "cwd", "dir", "directory", "workspace", "project", "root", "repo", "repository",
		"context", "session", "profile", "database", "db", "schema", "namespace", "cluster", "account", "org", "organization",
		"tenant", "team", "environment", "env", "region"}
)

// Classify gives a tool's role from the verbs of its name, then its
// annotations (readOnlyHint, destructiveHint), then the first verb of its
// description. A tool that sets the context is setup whatever its
// annotations; otherwise a tool whose annotations say read-only is a
// reader whatever its name. A deleting tool is an ender when its verb
// ends a thing (close, stop, kill) or its name is the context it clears
// (git_clear_working_dir).
func Classify(t Tool) Role {
	var ann struct {
		ReadOnly    *bool `json:"readOnlyHint"`
		Destructive *bool `json:"destructiveHint"`
	}
	_ = json.Unmarshal(t.Annotations, &ann)
	ws := words(t.Name)
	if isSetup(ws) {
		return Setup
	}
	if ann.ReadOnly != nil && *ann.ReadOnly {
		return Reader
	}
	if r := verbRole(ws); r != "" {
		if r == Deleter && slices.ContainsFunc(ws, func(w string) bool { return isVerb(endVerbs, w) || slices.Contains(contextNouns, w) }) {
			return Ender
		}
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

// SetsContext reports whether a tool's name says it sets the context the
// server's other tools work in (git_set_working_dir, use_database).
func SetsContext(name string) bool { return isSetup(words(name)) }

// isSetup: a setting verb followed by what sets the context
// (set_working_dir, useProject), the verb among the first words.
func isSetup(ws []string) bool {
	for i, w := range ws {
		if i > 2 {
			return false
		}
		if slices.Contains(setVerbs, w) {
			return slices.ContainsFunc(ws[i+1:], func(n string) bool { return slices.Contains(contextNouns, n) })
		}
	}
	return false
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

// Order returns the tools setup first, then creators, readers, others,
// updaters, deleters and enders; within a role, in the order the server
// listed them.
//
// Among the enders, those that stop an activity (stop_trace, end_session)
// come before those that close the thing it runs in (close_page).
func Order(tools []Tool) []Tool {
	out := slices.Clone(tools)
	rank := func(t Tool) int {
		r := 2 * roleRank[Classify(t)]
		if r == 2*roleRank[Ender] && !slices.ContainsFunc(words(t.Name), func(w string) bool { return isVerb([]string{"stop", "end", "finish"}, w) }) {
			r++
		}
		return r
	}
	slices.SortStableFunc(out, func(a, b Tool) int { return rank(a) - rank(b) })
	return out
}
