package deptree

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/csv"
	"encoding/hex"
	"io"
	"path"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"
)

// parseMetadata reads Name and Version from core metadata (METADATA,
// PKG-INFO): RFC 822 style headers up to the first blank line, after
// which the description body follows.
func parseMetadata(b []byte) (name, version string) {
	sc := bufio.NewScanner(bytes.NewReader(bytes.TrimPrefix(b, bom)))
	sc.Buffer(make([]byte, 0, 4096), MaxManifest)
	for sc.Scan() {
		line := strings.TrimSuffix(sc.Text(), "\r")
		if line == "" {
			break
		}
		if strings.HasPrefix(line, " ") || strings.HasPrefix(line, "\t") {
			continue // a continuation of the previous header
		}
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		switch strings.ToLower(strings.TrimSpace(k)) {
		case "name":
			if name == "" {
				name = clean(strings.TrimSpace(v), maxName)
			}
		case "version":
			if version == "" {
				version = clean(strings.TrimSpace(v), maxVersion)
			}
		}
	}
	return name, version
}

var rePySep = regexp.MustCompile(`[-_.]+`)

// NormalizePyName is a Python project name's normalized form (PEP 503):
// lower case, runs of "-", "_" and "." as one "-". Two names with the
// same form are the same project on an index.
func NormalizePyName(n string) string { return strings.ToLower(rePySep.ReplaceAllString(n, "-")) }

// recordEntry is one line of a RECORD: a path relative to the site
// directory and "algorithm=urlsafe-base64" of its content.
type recordEntry struct{ path, hash string }

// parseRecord reads a RECORD (CSV: path, hash, size). Lines of the wrong
// shape are skipped.
func parseRecord(b []byte) []recordEntry {
	r := csv.NewReader(bytes.NewReader(bytes.TrimPrefix(b, bom)))
	r.FieldsPerRecord = -1
	r.LazyQuotes = true
	r.ReuseRecord = true
	var out []recordEntry
	for {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			if _, ok := err.(*csv.ParseError); ok {
				continue
			}
			break
		}
		if len(rec) == 0 || rec[0] == "" {
			continue
		}
		e := recordEntry{path: rec[0]}
		if len(rec) > 1 {
			e.hash = rec[1]
		}
		out = append(out, e)
	}
	return out
}

// pipWritten are the files pip writes into a .dist-info at install time;
// they differ per install, not per wheel.
var pipWritten = []string{"INSTALLER", "REQUESTED", "direct_url.json", "RECORD", "RECORD.jws", "RECORD.p7s"}

// recordDigest is "sha256:…" over the sorted path,hash pairs of the
// entries that come from the wheel itself: not the files pip writes per
// install, not compiled files (they depend on the interpreter), not
// scripts outside the site directory (pip rewrites their shebang).
func recordDigest(entries []recordEntry) string {
	var lines []string
	for _, e := range entries {
		p := strings.ReplaceAll(e.path, `\`, "/")
		if e.hash == "" || outside(p) || strings.HasSuffix(p, ".pyc") ||
			strings.Contains(path.Dir(p), ".dist-info") && slices.Contains(pipWritten, path.Base(p)) {
			continue
		}
		lines = append(lines, p+","+e.hash+"\n")
	}
	if len(lines) == 0 {
		return ""
	}
	slices.Sort(lines)
	h := sha256.New()
	for _, l := range lines {
		io.WriteString(h, l)
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
}

// outside reports whether a RECORD path leaves the site directory.
func outside(p string) bool {
	return path.IsAbs(p) || p == ".." || strings.HasPrefix(path.Clean(p), "../")
}

// recordBins are the file names RECORD installs into a scripts directory
// outside the site directory (prefix/bin, or Scripts on Windows).
func recordBins(entries []recordEntry) []string {
	var out []string
	for _, e := range entries {
		p := path.Clean(strings.ReplaceAll(e.path, `\`, "/"))
		if d := path.Base(path.Dir(p)); outside(p) && (d == "bin" || d == "Scripts") {
			out = append(out, clean(path.Base(p), maxName))
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// parseEntryPoints reads the console_scripts and gui_scripts sections of
// an entry_points.txt (INI: "name = module:function" lines).
func parseEntryPoints(b []byte) []EntryPoint {
	var out []EntryPoint
	section := ""
	for _, raw := range strings.Split(string(bytes.TrimPrefix(b, bom)), "\n") {
		line := strings.TrimSpace(raw)
		if line == "" || line[0] == '#' || line[0] == ';' {
			continue
		}
		if line[0] == '[' && strings.HasSuffix(line, "]") {
			section = strings.TrimSpace(line[1 : len(line)-1])
			continue
		}
		if section != "console_scripts" && section != "gui_scripts" || raw[0] == ' ' || raw[0] == '\t' {
			continue // another group, or a continuation line
		}
		k, v, ok := strings.Cut(line, "=")
		k, v = strings.TrimSpace(clean(k, maxName)), strings.TrimSpace(clean(v, 512))
		if !ok || k == "" || v == "" {
			continue
		}
		out = append(out, EntryPoint{Name: k, Group: section, Target: v})
	}
	slices.SortFunc(out, func(a, b EntryPoint) int { return strings.Compare(a.Group+"\x00"+a.Name, b.Group+"\x00"+b.Name) })
	return slices.CompactFunc(out, func(a, b EntryPoint) bool { return a.Group == b.Group && a.Name == b.Name })
}

// pthLines returns the lines of a .pth file that site.py executes, and how
// many there are. site.py skips lines starting with "#" and blank ones,
// and exec()s a line that starts with "import " or "import\t" (exactly:
// leading white space makes it a path); every other line is a directory
// added to sys.path. Where a line ends differs by version: up to 3.12 at
// \n and \r, from 3.13 (decoding with utf-8-sig, then the locale's
// encoding) at every str.splitlines boundary, so a form feed inside a
// comment starts a line there. Lines are split at every boundary any
// version uses, which finds each line some version executes.
func pthLines(b []byte) (lines []string, n int) {
	for _, line := range splitPthLines(string(bytes.TrimPrefix(b, bom))) {
		if strings.HasPrefix(line, "#") || strings.TrimSpace(line) == "" {
			continue
		}
		if strings.HasPrefix(line, "import ") || strings.HasPrefix(line, "import\t") {
			n++
			if len(lines) < MaxHookLines {
				lines = append(lines, clean(line, MaxHookLineText))
			}
		}
	}
	return lines, n
}

// splitPthLines splits at \n, \r, \r\n, \v, \f, \x1c-\x1e, U+0085,
// U+2028, U+2029 (str.splitlines), and, in a file that is not UTF-8, at
// a bare 0x85 byte, which a latin-1 locale decodes as U+0085.
func splitPthLines(s string) []string {
	var out []string
	start := 0
	latin := !utf8.ValidString(s)
	for i := 0; i < len(s); {
		n := 0
		switch c := s[i]; {
		case c == '\r' && i+1 < len(s) && s[i+1] == '\n':
			n = 2
		case c == '\n' || c == '\r' || c == '\v' || c == '\f' || c >= 0x1c && c <= 0x1e || latin && c == 0x85:
			n = 1
		case c == 0xc2 && i+1 < len(s) && s[i+1] == 0x85:
			n = 2
		case c == 0xe2 && i+2 < len(s) && s[i+1] == 0x80 && (s[i+2] == 0xa8 || s[i+2] == 0xa9):
			n = 3
		}
		if n == 0 {
			i++
			continue
		}
		out = append(out, s[start:i])
		i += n
		start = i
	}
	return append(out, s[start:])
}
