package clientconfig

import (
	"fmt"

	"github.com/mcp-audit/mcp-audit/internal/textsafe"
)

// entry is one server as a file writes it, whatever the file's format.
// Values of variables and headers live here only while the file is read:
// they are checked for secrets and dropped, never copied into a Server.
type entry struct {
	name    string
	line    int
	project string // Claude Code's local scope: the project it is for
	command string
	args    []string
	env     []variable
	// envNames are variables forwarded without a value (Codex env_vars,
	// bearer_token_env_var).
	envNames []string
	cwd      string
	envFile  string
	url      string
	urlLine  int
	typ      string
	headers  []variable
	disabled bool
}

// variable is an environment variable or header and its value.
type variable struct {
	name  string
	value string
	line  int
}

// Limits on what one file may hold.
const (
	// MaxFileBytes bounds a configuration file (~/.claude.json keeps
	// per-project history and grows to megabytes).
	MaxFileBytes = 8 << 20
	// MaxServersPerFile and MaxServers bound the entries read.
	MaxServersPerFile = 256
	MaxServers        = 1024
	maxArgs           = 256
	maxVars           = 256
	maxString         = 64 << 10
)

// entryError is a problem with one entry, which is skipped.
type entryError struct {
	line int
	msg  string
}

func (e *entryError) Error() string { return e.msg }

func entryErrorf(line int, format string, a ...any) error {
	return &entryError{line: line, msg: fmt.Sprintf(format, a...)}
}

// jsonEntry decodes one server object of a JSON file.
func jsonEntry(name string, v *jvalue) (entry, error) {
	e := entry{name: name, line: v.line}
	if v.kind != jObject {
		return e, entryErrorf(v.line, "the settings must be an object, not %s", v.kind)
	}
	if t := v.get("transport"); t != nil && t.kind == jObject {
		// Continue's config.json and early Claude Code files nest the
		// transport: {"transport": {"type": …, "command": …}}.
		inner, err := jsonEntry(name, t)
		inner.line = v.line
		return inner, err
	}
	var err error
	set := func(key string, dst *string) {
		if x := v.get(key); x != nil && err == nil {
			*dst, err = jsonString(key, x)
		}
	}
	set("type", &e.typ)
	if t := v.get("transport"); t != nil && t.kind == jString {
		e.typ = t.str
	}
	set("cwd", &e.cwd)
	set("envFile", &e.envFile)
	for _, k := range []string{"url", "serverUrl", "httpUrl"} {
		if x := v.get(k); x != nil && err == nil {
			e.urlLine = x.line
			set(k, &e.url)
			if k == "httpUrl" && e.typ == "" {
				e.typ = "http"
			}
		}
	}
	if c := v.get("command"); c != nil && c.kind == jObject {
		// Zed's earlier form: "command": {"path": …, "args": […], "env": {…}}.
		inner, ierr := jsonEntry(name, c)
		e.command, e.args, e.env, err = inner.command, inner.args, inner.env, ierr
		if x := c.get("path"); x != nil && err == nil {
			e.command, err = jsonString("command.path", x)
		}
	} else {
		set("command", &e.command)
	}
	if x := v.get("args"); x != nil && err == nil {
		e.args, err = jsonStrings("args", x)
	}
	if x := v.get("env"); x != nil && err == nil {
		e.env, err = jsonVars("env", x)
	}
	if x := v.get("headers"); x != nil && err == nil {
		e.headers, err = jsonVars("headers", x)
	}
	if x := v.get("requestOptions").get("headers"); x != nil && err == nil {
		var more []variable
		more, err = jsonVars("requestOptions.headers", x)
		e.headers = append(e.headers, more...)
	}
	if x := v.get("disabled"); x != nil && x.kind == jBool {
		e.disabled = x.b
	}
	if x := v.get("enabled"); x != nil && x.kind == jBool {
		e.disabled = e.disabled || !x.b
	}
	return e, err
}

func jsonString(key string, v *jvalue) (string, error) {
	if v.kind != jString {
		return "", entryErrorf(v.line, "%q must be a string, not %s", key, v.kind)
	}
	if len(v.str) > maxString {
		return "", entryErrorf(v.line, "%q is longer than %d bytes", key, maxString)
	}
	return v.str, nil
}

func jsonStrings(key string, v *jvalue) ([]string, error) {
	if v.kind != jArray {
		return nil, entryErrorf(v.line, "%q must be a list of strings, not %s", key, v.kind)
	}
	if len(v.arr) > maxArgs {
		return nil, entryErrorf(v.line, "%q has more than %d items", key, maxArgs)
	}
	out := make([]string, 0, len(v.arr))
	for _, a := range v.arr {
		switch a.kind {
		case jString:
			if len(a.str) > maxString {
				return nil, entryErrorf(a.line, "an item of %q is longer than %d bytes", key, maxString)
			}
			out = append(out, a.str)
		case jNumber:
			out = append(out, a.str)
		default:
			return nil, entryErrorf(a.line, "%q must be a list of strings, but an item is %s", key, a.kind)
		}
	}
	return out, nil
}

func jsonVars(key string, v *jvalue) ([]variable, error) {
	if v.kind != jObject {
		return nil, entryErrorf(v.line, "%q must be an object of NAME: value, not %s", key, v.kind)
	}
	ms := v.members()
	if len(ms) > maxVars {
		return nil, entryErrorf(v.line, "%q has more than %d variables", key, maxVars)
	}
	var out []variable
	for _, m := range ms {
		x := variable{name: m.key, line: m.line}
		switch m.val.kind {
		case jString:
			x.value = m.val.str
		case jNumber:
			x.value = m.val.str
		case jNull, jBool:
		default:
			return nil, entryErrorf(m.line, "the value of %s in %q must be a string, not %s", quoteName(m.key), key, m.val.kind)
		}
		out = append(out, x)
	}
	return out, nil
}

// quoteName shows a name from the file safely in a message.
func quoteName(s string) string { return textsafe.Line(s, 80) }
