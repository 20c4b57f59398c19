package clientconfig

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/BurntSushi/toml"
)

// readCodex reads Codex's config.toml: [mcp_servers.NAME] tables with
// command, args, env, env_vars, cwd, url, bearer_token_env_var,
// http_headers, env_http_headers and enabled.
func readCodex(l Location, data []byte) (fileRead, *Problem) {
	var r fileRead
	var root map[string]any
	if _, err := toml.Decode(string(data), &root); err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			return r, &Problem{Path: l.Path, Line: pe.Position.Line, Message: "not valid TOML: " + pe.Message}
		}
		return r, &Problem{Path: l.Path, Message: "not valid TOML"}
	}
	lines := tomlLines(string(data))
	servers, ok := root["mcp_servers"].(map[string]any)
	if !ok {
		if _, there := root["mcp_servers"]; there {
			r.problems = append(r.problems, Problem{Path: l.Path, Line: lines.at("mcp_servers"), Message: "mcp_servers must be a table of [mcp_servers.NAME]"})
		}
		return r, nil
	}
	names := make([]string, 0, len(servers))
	for n := range servers {
		names = append(names, n)
	}
	// TOML tables have no order once decoded: file order, by line.
	sort.Slice(names, func(i, j int) bool {
		a, b := lines.at("mcp_servers", names[i]), lines.at("mcp_servers", names[j])
		return a < b || a == b && names[i] < names[j]
	})
	for _, name := range names {
		line := lines.at("mcp_servers", name)
		if len(r.entries) >= MaxServersPerFile {
			r.problems = append(r.problems, Problem{Path: l.Path, Line: line, Message: fmt.Sprintf("more than %d servers in one file; the rest are not read", MaxServersPerFile)})
			break
		}
		e, err := codexEntry(name, servers[name], lines)
		if err != nil {
			var ee *entryError
			if errors.As(err, &ee) && ee.line > 0 {
				line = ee.line
			}
			r.problems = append(r.problems, Problem{Path: l.Path, Line: line, Server: quoteName(name), Message: err.Error() + "; this server is not audited"})
			continue
		}
		r.entries = append(r.entries, e)
	}
	return r, nil
}

func codexEntry(name string, v any, lines tomlIndex) (entry, error) {
	e := entry{name: name, line: lines.at("mcp_servers", name)}
	t, ok := v.(map[string]any)
	if !ok {
		return e, errors.New("the settings must be a table")
	}
	key := func(k ...string) int { return lines.at(append([]string{"mcp_servers", name}, k...)...) }
	var err error
	str := func(k string, dst *string) {
		if x, there := t[k]; there && err == nil {
			s, ok := x.(string)
			if !ok {
				err = entryErrorf(key(k), "%s must be a string", k)
			}
			*dst = s
		}
	}
	str("command", &e.command)
	str("cwd", &e.cwd)
	str("url", &e.url)
	str("type", &e.typ)
	e.urlLine = key("url")
	var bearer string
	str("bearer_token_env_var", &bearer)
	if bearer != "" {
		e.envNames = append(e.envNames, bearer)
	}
	if x, there := t["args"]; there && err == nil {
		e.args, err = atLine(key("args"))(tomlStrings("args", x))
	}
	if x, there := t["env_vars"]; there && err == nil {
		var names []string
		names, err = atLine(key("env_vars"))(tomlStrings("env_vars", x))
		e.envNames = append(e.envNames, names...)
	}
	if x, there := t["env"]; there && err == nil {
		e.env, err = tomlVars("env", x, func(n string) int { return key("env", n) })
	}
	if x, there := t["http_headers"]; there && err == nil {
		e.headers, err = tomlVars("http_headers", x, func(n string) int { return key("http_headers", n) })
	}
	if x, there := t["env_http_headers"]; there && err == nil {
		var vars []variable
		vars, err = tomlVars("env_http_headers", x, func(string) int { return 0 })
		for _, h := range vars {
			e.envNames = append(e.envNames, h.value)
		}
	}
	if b, ok := t["enabled"].(bool); ok && !b {
		e.disabled = true
	}
	if err != nil {
		if _, ok := err.(*entryError); !ok {
			err = entryErrorf(e.line, "%s", err.Error())
		}
	}
	return e, err
}

// atLine gives an error of a value the line of its key.
func atLine(line int) func([]string, error) ([]string, error) {
	return func(v []string, err error) ([]string, error) {
		if err != nil {
			return v, entryErrorf(line, "%s", err.Error())
		}
		return v, nil
	}
}

func tomlStrings(k string, x any) ([]string, error) {
	list, ok := x.([]any)
	if !ok {
		return nil, fmt.Errorf("%s must be a list of strings", k)
	}
	if len(list) > maxArgs {
		return nil, fmt.Errorf("%s has more than %d items", k, maxArgs)
	}
	out := make([]string, 0, len(list))
	for _, a := range list {
		s, ok := a.(string)
		if !ok || len(s) > maxString {
			return nil, fmt.Errorf("%s must be a list of strings", k)
		}
		out = append(out, s)
	}
	return out, nil
}

func tomlVars(k string, x any, line func(string) int) ([]variable, error) {
	t, ok := x.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%s must be a table of NAME = \"value\"", k)
	}
	if len(t) > maxVars {
		return nil, fmt.Errorf("%s has more than %d variables", k, maxVars)
	}
	var out []variable
	for n, v := range t {
		s, ok := v.(string)
		if !ok {
			return nil, fmt.Errorf("the value of %s in %s must be a string", quoteName(n), k)
		}
		out = append(out, variable{name: n, value: s, line: line(n)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out, nil
}

// tomlIndex maps dotted key paths to the line that defines them. The
// decoder keeps no positions, so the lines are found by reading table
// headers and "key =" lines; a line inside a multi-line value may be
// missed, which only costs a message its line.
type tomlIndex map[string]int

func tomlLines(s string) tomlIndex {
	idx := tomlIndex{}
	var table []string
	for i, raw := range strings.Split(s, "\n") {
		line := strings.TrimSpace(raw)
		switch {
		case strings.HasPrefix(line, "[["):
			table = nil
		case strings.HasPrefix(line, "["):
			if end := strings.Index(line, "]"); end > 0 {
				if parts, ok := tomlKey(line[1:end]); ok {
					table = parts
					idx.set(table, i+1)
				}
			}
		default:
			if eq := strings.Index(line, "="); eq > 0 {
				if parts, ok := tomlKey(line[:eq]); ok {
					idx.set(append(append([]string(nil), table...), parts...), i+1)
				}
			}
		}
	}
	return idx
}

func (idx tomlIndex) set(path []string, line int) {
	k := strings.Join(path, "\x00")
	if _, ok := idx[k]; !ok {
		idx[k] = line
	}
}

// at is the line of path, else of its longest defined prefix, else 0.
func (idx tomlIndex) at(path ...string) int {
	for n := len(path); n > 0; n-- {
		if l, ok := idx[strings.Join(path[:n], "\x00")]; ok {
			return l
		}
	}
	return 0
}

// tomlKey splits a dotted key (bare, "basic" or 'literal' parts).
func tomlKey(s string) ([]string, bool) {
	var parts []string
	s = strings.TrimSpace(s)
	for s != "" {
		var part string
		switch s[0] {
		case '"', '\'':
			end := strings.IndexByte(s[1:], s[0])
			if end < 0 {
				return nil, false
			}
			part, s = s[1:1+end], s[2+end:]
		default:
			end := strings.IndexAny(s, ". \t")
			if end < 0 {
				end = len(s)
			}
			part, s = s[:end], s[end:]
			for _, r := range part {
				if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-') {
					return nil, false
				}
			}
		}
		parts = append(parts, part)
		s = strings.TrimSpace(s)
		if s == "" {
			break
		}
		if s[0] != '.' {
			return nil, false
		}
		s = strings.TrimSpace(s[1:])
	}
	return parts, len(parts) > 0
}
