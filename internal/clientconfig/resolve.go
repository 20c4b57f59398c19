package clientconfig

import (
	"fmt"
	"net/url"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// resolved is one entry made a Server, with what the user should know.
type resolved struct {
	server   *Server
	warnings []Warning
	problem  *Problem
}

// reEnvName is a variable name a sandbox can set.
var reEnvName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]{0,127}$`)

// resolve maps one entry of file l to a Server.
func resolve(l Location, en entry, e Env) resolved {
	src := Source{Client: l.Client, Path: l.Path, Line: en.line, Name: en.name, Scope: l.Scope, Project: en.project}
	r := resolved{server: &Server{Sources: []Source{src}, Disabled: en.disabled}}
	warn := func(kind string, line int, format string, a ...any) {
		if line == 0 {
			line = en.line
		}
		r.warnings = append(r.warnings, Warning{Kind: kind, Path: l.Path, Line: line, Server: quoteName(en.name),
			Entry: en.line, Message: sprintf(format, a...)})
	}
	for _, v := range en.env {
		if what := secretIn(v.name, v.value); what != "" {
			warn(WarnSecret, v.line, "%s is written in clear in the file (%s); keep it out of the file (the audit gives the server a canary instead)", quoteName(v.name), what)
		}
	}
	for _, h := range en.headers {
		if what := secretIn(h.name, h.value); what != "" || (literal(h.value) && strings.EqualFold(h.name, "authorization")) {
			warn(WarnSecret, h.line, "the header %s is written in clear in the file; keep it out of the file", quoteName(h.name))
		}
	}
	if remote(en) {
		r.remote(en, warn)
		return r
	}
	if en.command == "" {
		r.problem = &Problem{Path: l.Path, Line: en.line, Server: quoteName(en.name), Message: "the server has neither a command nor a url; it is not audited"}
		return r
	}
	switch {
	case en.project != "":
		// Claude Code's local scope: the project is the entry's workspace.
		e.Dir = en.project
	case l.Dir != "":
		e.Dir = l.Dir
	}
	cwd := en.cwd
	if cwd == "" && (l.Scope == ScopeProject || en.project != "") {
		cwd = e.Dir
	}
	p := newPather(e, cwd)
	m := mapCommand(en.command, en.args, 0)
	r.apply(m, p, warn)
	r.env(en, m, warn)
	if en.envFile != "" {
		warn(WarnNote, 0, "the variables of envFile are not read; name them in canary_env if the server needs them")
	}
	return r
}

func sprintf(format string, a ...any) string { return fmt.Sprintf(format, a...) }

// remote: a url, or a type naming an HTTP transport.
func remote(en entry) bool {
	switch strings.ToLower(en.typ) {
	case "http", "sse", "streamable-http", "streamablehttp", "streamable_http", "ws", "websocket":
		return true
	}
	return en.url != "" && en.command == ""
}

func (r *resolved) remote(en entry, warn func(string, int, string, ...any)) {
	s := r.server
	s.Kind, s.Transport = KindRemote, "http"
	if strings.EqualFold(en.typ, "sse") || en.typ == "" && r.server.Sources[0].Client == "gemini" {
		// Gemini CLI: url is SSE, httpUrl (typ http) Streamable HTTP.
		s.Transport = "sse"
	}
	u, err := url.Parse(en.url)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		s.Kind, s.Reason = KindUnrecognised, "the url is not an http or https URL"
		return
	}
	s.Host = u.Host
	if what := urlSecret(en.url); what != "" {
		warn(WarnSecret, en.urlLine, "the url holds %s, written in clear in the file", what)
	}
	s.URL, s.Reason = contactURL(u)
	s.urlKey = u.Host + u.EscapedPath()
}

// apply copies a mapped command into the server, host paths replaced and
// secrets redacted.
func (r *resolved) apply(m mapped, p pather, warn func(string, int, string, ...any)) {
	s := r.server
	s.Kind, s.Package, s.Version, s.Bin = m.kind, m.pkg, m.version, m.bin
	s.Command, s.Reason = m.command, m.reason
	for _, n := range m.notes {
		warn(n.kind, 0, "%s", n.msg)
	}
	if m.kind == KindLocal {
		local, ok := p.local(m.local)
		if !ok {
			s.Kind, s.Command = KindUnrecognised, m.local
			s.Reason = "the path " + quoteName(m.local) + " is relative and the client's working directory is not known"
		}
		s.Local = local
	}
	if m.kind == KindUnrecognised {
		return
	}
	for i, a := range m.args {
		if secretFlag(a) && !strings.Contains(a, "=") && i+1 < len(m.args) {
			s.Args = append(s.Args, a)
			continue
		}
		prevFlag := i > 0 && secretFlag(m.args[i-1]) && !strings.Contains(m.args[i-1], "=")
		name, value, isFlag := strings.Cut(a, "=")
		switch {
		case prevFlag && secretIn(m.args[i-1], a) != "":
			warn(WarnSecret, 0, "the value of %s in the arguments is written in clear in the file; it is replaced by %s", quoteName(m.args[i-1]), Redacted)
			s.Args = append(s.Args, Redacted)
			continue
		case isFlag && secretFlag(name) && secretIn(name, value) != "":
			warn(WarnSecret, 0, "the value of %s in the arguments is written in clear in the file; it is replaced by %s", quoteName(name), Redacted)
			s.Args = append(s.Args, name+"="+Redacted)
			continue
		}
		if what := shapeOf(a); what != "" {
			warn(WarnSecret, 0, "argument %d looks like %s written in clear in the file; it is replaced by %s", i+1, what, Redacted)
			s.Args = append(s.Args, Redacted)
			continue
		}
		mappedArg, outside := p.arg(a)
		if outside {
			warn(WarnNote, 0, "argument %d is a host path outside your home and the project; the sandbox may not have it", i+1)
		}
		if ref := reReference.FindString(mappedArg); ref != "" {
			warn(WarnNote, 0, "argument %d refers to %s, which the audit passes as written", i+1, quoteName(ref))
		}
		s.Args = append(s.Args, mappedArg)
	}
}

// env collects the variable names the server is given and checks the
// values the command line itself sets.
func (r *resolved) env(en entry, m mapped, warn func(string, int, string, ...any)) {
	for _, v := range m.vars {
		if what := secretIn(v.name, v.value); what != "" {
			warn(WarnSecret, 0, "%s is written in clear in the command line (%s); keep it out of the file", quoteName(v.name), what)
		}
	}
	names := append([]string(nil), m.env...)
	for _, v := range en.env {
		names = append(names, v.name)
	}
	names = append(names, en.envNames...)
	seen := map[string]bool{}
	for _, n := range names {
		switch {
		case seen[n]:
		case !reEnvName.MatchString(n):
			warn(WarnNote, 0, "the variable name %s is not one a sandbox can set; it is left out", quoteName(n))
		default:
			r.server.Env = append(r.server.Env, n)
		}
		seen[n] = true
	}
	sort.Strings(r.server.Env)
}

// key identifies a server across files: what runs, with what arguments.
func (s *Server) key() string {
	if s.Kind == KindRemote {
		// Two servers on one host differ by path; the path is only a key,
		// never shown.
		return s.Kind + "\x00" + s.urlKey + "\x00" + s.Transport
	}
	if s.Kind == KindUnrecognised {
		return s.Kind + "\x00" + s.Command + "\x00" + s.Reason + "\x00" + strconv.Quote(s.Sources[0].Path) + strconv.Itoa(s.Sources[0].Line)
	}
	what := s.Local
	if s.Kind != KindLocal {
		what = s.Target()
	}
	return s.Kind + "\x00" + what + "\x00" + s.Bin + "\x00" + strings.Join(s.Args, "\x00")
}
