package argsynth

import (
	"slices"
	"strings"
	"unicode"
)

// words splits a parameter or tool name into lower-case words:
// "filePath" → [file path], "pull_number" → [pull number], "URL" → [url].
func words(name string) []string {
	var out []string
	var cur []rune
	rs := []rune(name)
	flush := func() {
		if len(cur) > 0 {
			out = append(out, strings.ToLower(string(cur)))
			cur = cur[:0]
		}
	}
	for i, r := range rs {
		switch {
		case !unicode.IsLetter(r) && !unicode.IsDigit(r):
			flush()
			continue
		case unicode.IsUpper(r) && len(cur) > 0 && (unicode.IsLower(cur[len(cur)-1]) || i+1 < len(rs) && unicode.IsLower(rs[i+1])):
			flush()
		}
		cur = append(cur, r)
		if len(out) > 16 {
			break
		}
	}
	flush()
	return out
}

// kindOf says what a string parameter holds, from its format, its name,
// its description and the tool's.
func kindOf(format, name, desc string, tc *toolCtx) kind {
	if k := byFormat(format); k != "" {
		return k
	}
	w := words(name)
	if len(w) == 0 {
		return byDesc(strings.ToLower(desc), tc)
	}
	d := strings.ToLower(desc)
	if k := byName(w, d, tc); k != "" {
		return k
	}
	if k := byDesc(d, tc); k != "" {
		return k
	}
	return kText
}

func byFormat(f string) kind {
	switch f {
	case "email", "idn-email":
		return kEmail
	case "uri", "url", "iri", "uri-reference", "iri-reference":
		return kURL
	case "date-time":
		return kDateTime
	case "date":
		return kDate
	case "time":
		return kTime
	case "uuid":
		return kUUID
	case "hostname", "idn-hostname":
		return kHost
	case "ipv4":
		return kIPv4
	case "ipv6":
		return kIPv6
	case "duration":
		return kDuration
	case "regex":
		return kRegex
	case "json":
		return kJSON
	}
	return ""
}

// in reports whether w is one of list.
func in(w string, list ...string) bool { return slices.Contains(list, w) }

// byName reads the parameter's words, the last one first: "targetDir" is
// a directory, "channel_id" an id.
func byName(w []string, desc string, tc *toolCtx) kind {
	last, n := w[len(w)-1], strings.Join(w, "")
	mailish := strings.Contains(desc, "mail") || strings.Contains(desc, "recipient") || tc.has("mail")
	switch {
	case in(n, "to", "from", "cc", "bcc", "recipient", "recipients", "sender", "replyto") && mailish,
		in(last, "email", "emails", "mail"):
		return kEmail
	case in(last, "url", "urls", "uri", "uris", "link", "links", "href", "website", "homepage", "endpoint", "webhook", "callback"):
		return kURL
	case in(last, "dir", "directory", "folder", "cwd", "workdir", "dirs", "directories") || in(n, "root", "workspace"):
		return tc.dirKind()
	case in(last, "filename", "filenames") || last == "name" && len(w) > 1 && w[len(w)-2] == "file":
		return kFileName
	case in(last, "path", "paths", "file", "files", "filepath", "filepaths") ||
		in(n, "source", "destination", "src", "dest") && tc.has("file", "director", "folder"):
		return tc.pathKind(n, desc)
	case in(last, "host", "hostname", "domain"):
		return kHost
	case in(last, "uuid", "guid"):
		return kUUID
	}
	return byWord(w, last, n, desc, tc)
}

// byWord continues byName for what is not a location.
func byWord(w []string, last, n, desc string, tc *toolCtx) kind {
	switch {
	case in(last, "id", "ids", "uid", "uids", "sid") || strings.HasSuffix(n, "id") && len(w) == 1 && len(n) > 4:
		return kID
	case in(last, "user", "username", "login", "owner", "author", "assignee", "handle", "reviewer", "authors"):
		return kLogin
	case in(last, "company", "org", "organization", "organisation", "team"):
		return kCompany
	case in(last, "repo", "repository"):
		return kRepo
	case in(last, "branch", "ref", "base", "head"):
		return kBranch
	case in(last, "query", "search", "q", "keyword", "keywords", "term", "terms", "topic", "question"):
		return kQuery
	case in(last, "prompt", "instruction", "instructions", "task"):
		return kPrompt
	case in(last, "title", "subject", "heading", "caption", "label", "headline"):
		return kTitle
	case in(last, "message"):
		return kMessage
	case in(last, "lang", "language", "locale"):
		return kLang
	case in(last, "country"):
		return kCountry
	case in(last, "city"):
		return kCity
	case in(last, "location", "address", "place"):
		return kLocation
	case in(last, "currency", "ccy"):
		return kCurrency
	case in(last, "phone", "tel", "mobile"):
		return kPhone
	case in(last, "color", "colour"):
		return kColor
	case in(last, "date", "day", "since", "until", "birthday"):
		return kDate
	case in(last, "timestamp", "datetime"):
		return kDateTime
	case in(last, "version"):
		return kVersion
	case in(last, "namespace"):
		return kNamespace
	case in(last, "sql"):
		return kSQL
	case in(last, "code", "script", "snippet", "expression", "expr", "formula", "function", "command", "cmd"):
		return codeKind(last, desc, tc)
	case in(last, "shell", "interpreter") && !strings.Contains(desc, "command"):
		return kShellPath // which shell runs a command (desktop-commander's start_process)
	case in(last, "selector", "element") || last == "target" && tc.has("browser", "page", "click"):
		return kSelector
	case in(last, "manifest", "yaml"):
		return kYAML
	case in(last, "json"):
		return kJSON
	case in(last, "password", "passwd", "secret", "token", "apikey") || n == "apikey":
		return kSecret
	case last == "key" && len(w) == 1:
		return kKey
	case last == "key":
		return kID
	case in(last, "table", "tables"):
		return kTable
	case in(last, "database", "db", "schema", "dataset"):
		return kDatabase
	case tc.named("git") && in(last, "object", "target", "revision", "rev", "commit", "commits", "commitish", "from", "to"):
		return kCommit
	case last == "name":
		return tc.nameKind(desc)
	}
	return ""
}

// byDesc reads the parameter's description when its name says nothing.
func byDesc(d string, tc *toolCtx) kind {
	switch {
	case d == "":
		return ""
	case strings.Contains(d, "email"):
		return kEmail
	case strings.Contains(d, "url") || strings.Contains(d, "link to"):
		return kURL
	case strings.Contains(d, "directory") || strings.Contains(d, "folder"):
		return tc.dirKind()
	case strings.Contains(d, "file path") || strings.Contains(d, "path to") || strings.Contains(d, "absolute path"):
		return tc.pathKind("", d)
	case strings.Contains(d, "iso 8601") || strings.Contains(d, "timestamp"):
		return kDateTime
	case strings.Contains(d, "yyyy-mm-dd") || strings.Contains(d, " date"):
		return kDate
	case strings.Contains(d, "javascript") || strings.Contains(d, "=>"):
		return codeKind("function", d, tc)
	case strings.Contains(d, "sql"):
		return kSQL
	case strings.Contains(d, "yaml"):
		return kYAML
	case strings.Contains(d, "json"):
		return kJSON
	case strings.Contains(d, "language code"):
		return kLang
	case strings.Contains(d, "name of") || strings.Contains(d, " name"):
		return tc.nameKind(d)
	}
	return ""
}

// codeKind picks the language of a code parameter from what the
// descriptions name.
func codeKind(last, desc string, tc *toolCtx) kind {
	all := desc + " " + tc.desc
	switch {
	case in(last, "command", "cmd"):
		if strings.Contains(all, "shell") || strings.Contains(all, "terminal") || strings.Contains(all, "bash") {
			return kShell
		}
		return kText
	case strings.Contains(all, "python"):
		return kPython
	case strings.Contains(all, "bash") || strings.Contains(all, "shell"):
		return kShell
	case last == "function" || strings.Contains(desc, "=>") || tc.has("browser", "page", "evaluate"):
		return kJSFunc
	}
	return kJS
}
