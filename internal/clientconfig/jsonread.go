package clientconfig

import (
	"errors"
	"fmt"
	"strconv"
)

// section is one object (or list) of servers in a file.
type section struct {
	key     string // as the user would name it: "mcpServers", "projects./p.mcpServers"
	project string
	v       *jvalue
}

// fileRead is what reading one file gave.
type fileRead struct {
	entries  []entry
	problems []Problem
	warnings []Warning
}

// readJSON reads the server entries of a JSON file in l's format. A
// malformed file is one problem and no entries; a malformed entry is a
// problem and the other entries are still read.
func readJSON(l Location, data []byte) (fileRead, *Problem) {
	var r fileRead
	root, x, err := parseJSONC(data)
	if err != nil {
		var se *syntaxError
		if errors.As(err, &se) {
			return r, &Problem{Path: l.Path, Line: se.line, Message: "not valid JSON: " + se.msg}
		}
		return r, &Problem{Path: l.Path, Message: err.Error()}
	}
	if root.kind != jObject {
		return r, &Problem{Path: l.Path, Line: root.line, Message: "the file must hold an object { … }, not " + root.kind.String()}
	}
	r.warnings = syntaxNotes(l, x)
	for _, s := range jsonSections(l.Format, root) {
		r.readSection(l, s)
	}
	return r, nil
}

// syntaxNotes tells the user when a strict client may refuse the file.
func syntaxNotes(l Location, x ext) []Warning {
	c := ClientByID(l.Client)
	if c == nil || c.JSONC {
		return nil
	}
	var out []Warning
	if x.comment > 0 {
		out = append(out, Warning{Kind: WarnSyntax, Path: l.Path, Line: x.comment,
			Message: "a comment, which " + c.Name + " may not accept in this file (strict JSON); it was read anyway"})
	}
	if x.trailingComma > 0 {
		out = append(out, Warning{Kind: WarnSyntax, Path: l.Path, Line: x.trailingComma,
			Message: "a trailing comma, which " + c.Name + " may not accept in this file (strict JSON); it was read anyway"})
	}
	return out
}

// jsonSections are the objects that hold servers in a file of format f.
func jsonSections(f string, root *jvalue) []section {
	var out []section
	add := func(key, project string, v *jvalue) {
		if v != nil {
			out = append(out, section{key: key, project: project, v: v})
		}
	}
	if f == formatMCPServers || f == formatClaudeJSON || f == formatContinueJSON || f == formatAny {
		add("mcpServers", "", root.get("mcpServers"))
	}
	if f == formatClaudeJSON || f == formatAny {
		for _, p := range root.get("projects").members() {
			add("projects."+p.key+".mcpServers", p.key, p.val.get("mcpServers"))
		}
	}
	if f == formatVSCode || f == formatAny {
		add("servers", "", root.get("servers"))
	}
	if f == formatVSCodeSettings || f == formatAny {
		add("mcp.servers", "", root.get("mcp").get("servers"))
	}
	if f == formatZed || f == formatAny {
		add("context_servers", "", root.get("context_servers"))
	}
	if f == formatContinueJSON || f == formatAny {
		add("experimental.modelContextProtocolServers", "", root.get("experimental").get("modelContextProtocolServers"))
	}
	return out
}

func (r *fileRead) readSection(l Location, s section) {
	problem := func(line int, name, msg string) {
		r.problems = append(r.problems, Problem{Path: l.Path, Line: line, Server: quoteName(name), Message: msg})
	}
	type item struct {
		name string
		v    *jvalue
	}
	var items []item
	switch s.v.kind {
	case jObject:
		for _, m := range s.v.members() {
			items = append(items, item{m.key, m.val})
		}
	case jArray:
		// Lists (Continue): each server's "name", else its position.
		for i, v := range s.v.arr {
			name := "server-" + strconv.Itoa(i+1)
			if n := v.get("name"); n != nil && n.kind == jString && n.str != "" {
				name = n.str
			}
			items = append(items, item{name, v})
		}
	case jNull:
		return
	default:
		problem(s.v.line, "", fmt.Sprintf("%q must be an object of NAME: settings, not %s", s.key, s.v.kind))
		return
	}
	for _, it := range items {
		if len(r.entries) >= MaxServersPerFile {
			problem(it.v.line, "", fmt.Sprintf("more than %d servers in one file; the rest are not read", MaxServersPerFile))
			return
		}
		e, err := jsonEntry(it.name, it.v)
		if err != nil {
			line := it.v.line
			var ee *entryError
			if errors.As(err, &ee) {
				line = ee.line
			}
			problem(line, it.name, err.Error()+"; this server is not audited")
			continue
		}
		e.project = s.project
		r.entries = append(r.entries, e)
	}
}
