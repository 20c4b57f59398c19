package clientconfig

import (
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
)

// Scan reads the files at locs (from Discover, or ForFile for files the
// user named), maps every server and deduplicates them: a server
// configured in several files is audited once and lists every Source. A
// file that cannot be read is a Problem; the others are still read.
func Scan(e Env, locs []Location) *Result {
	r := &Result{}
	byKey := map[string]*Server{}
	total := 0
	for _, l := range locs {
		fr, p := readFile(l)
		r.Files = append(r.Files, File{Location: l, Servers: len(fr.entries), Err: p})
		if p != nil {
			r.Problems = append(r.Problems, *p)
		}
		r.Problems = append(r.Problems, fr.problems...)
		r.Warnings = append(r.Warnings, fr.warnings...)
		for _, en := range fr.entries {
			if total++; total > MaxServers {
				r.Problems = append(r.Problems, Problem{Path: l.Path, Line: en.line,
					Message: fmt.Sprintf("more than %d servers in all; the rest are not read", MaxServers)})
				break
			}
			res := resolve(l, en, e)
			r.Warnings = append(r.Warnings, res.warnings...)
			if res.problem != nil {
				r.Problems = append(r.Problems, *res.problem)
				continue
			}
			s := res.server
			if prev := byKey[s.key()]; prev != nil {
				prev.merge(s)
				continue
			}
			byKey[s.key()] = s
			r.Servers = append(r.Servers, s)
		}
	}
	nameServers(r.Servers)
	return r
}

// merge adds another configuration of the same server.
func (s *Server) merge(o *Server) {
	s.Sources = append(s.Sources, o.Sources...)
	s.Disabled = s.Disabled && o.Disabled
	for _, n := range o.Env {
		if !slices.Contains(s.Env, n) {
			s.Env = append(s.Env, n)
		}
	}
	slices.Sort(s.Env)
}

// readFile reads the server entries of one file.
func readFile(l Location) (fileRead, *Problem) {
	data, p := readBounded(l.Path)
	if p != nil {
		return fileRead{}, p
	}
	switch l.Format {
	case formatCodex:
		return readCodex(l, data)
	case formatContinueYAML:
		return readContinueYAML(l, data)
	}
	return readJSON(l, data)
}

// readBounded reads a file of at most MaxFileBytes.
func readBounded(path string) ([]byte, *Problem) {
	f, err := os.Open(path)
	if err != nil {
		return nil, &Problem{Path: path, Message: "cannot be read: " + osReason(err)}
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && !st.Mode().IsRegular() {
		return nil, &Problem{Path: path, Message: "is not a regular file"}
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxFileBytes+1))
	if err != nil {
		return nil, &Problem{Path: path, Message: "cannot be read: " + osReason(err)}
	}
	if len(data) > MaxFileBytes {
		return nil, &Problem{Path: path, Message: fmt.Sprintf("is larger than %d MiB; it is not read", MaxFileBytes>>20)}
	}
	return data, nil
}

// osReason says why a file could not be read, without Go's wording.
func osReason(err error) string {
	switch {
	case os.IsNotExist(err):
		return "no such file"
	case os.IsPermission(err):
		return "permission denied"
	}
	msg := err.Error()
	if i := strings.LastIndex(msg, ": "); i >= 0 {
		msg = msg[i+2:]
	}
	return msg
}

// nameServers gives every server a name unique in the result and safe as
// a key of mcp-audit.yml: the name it has in its first file, then with
// the client, then numbered.
func nameServers(servers []*Server) {
	taken := map[string]bool{}
	for _, s := range servers {
		src := s.Sources[0]
		base := safeName(src.Name)
		name := base
		if taken[name] && src.Client != "" {
			name = base + "-" + src.Client
		}
		for i := 2; taken[name]; i++ {
			name = base + "-" + strconv.Itoa(i)
		}
		taken[name] = true
		s.Name = name
	}
}

// safeName keeps letters, digits, '.', '_' and '-' of a name.
func safeName(n string) string {
	var b strings.Builder
	for _, r := range n {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '_', r == '-':
			b.WriteRune(r)
		default:
			b.WriteByte('-')
		}
		if b.Len() >= 64 {
			break
		}
	}
	out := strings.Trim(b.String(), "-.")
	if out == "" {
		return "server"
	}
	return out
}
