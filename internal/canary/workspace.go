package canary

import (
	"bytes"
	"compress/zlib"
	"crypto/sha1"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
)

// The decoy workspace is a real project, as the directory a user points
// an MCP client at is: a git repository with history, source files,
// documents and data. Its contents are drawn fresh for every set, in the
// same shapes (names, sizes, structure): two runs with other sets differ
// in what a thief of the user's files would take, so output that follows
// the files shows (internal/differential). Each file carries a
// distinctive token of its own, registered as a content canary
// ("content:<workspace>/PATH"): the file's content found in a payload,
// raw or in any encoding the finder reads, is the user's file sent.

// ContentPrefix starts the name of a content canary.
const ContentPrefix = "content:"

var customers = []string{"Nordhavn Freight", "Alder & Finch", "Paloma Foods", "Brightline Clinics", "Ostrava Steel", "Keel Marine", "Sable Logistics"}

// workspaceFile is one file of the decoy project.
type workspaceFile struct {
	path, content string
	commit        int // the commit that adds it (0 or 1)
}

// addWorkspace seeds the decoy project and its git repository.
func (s *Set) addWorkspace() {
	// Only fixed-length parts are drawn, so every set's files have the
	// same names and sizes (a server that reports them sees no change).
	code := "rp-" + randFrom(hexDigits, 6)
	token := func() string { return "BWL" + randFrom(upperNum, 13) }
	n := 0
	pick := func() string { n++; return customers[n%len(customers)] }
	files := []workspaceFile{
		{"README.md", fmt.Sprintf("# %s\n\nRoute planning service for Brightwater Logistics.\n\nInternal dashboard: https://ops.%s.corp.internal/\nContract %s, account manager M. Lindqvist.\n\n## Development\n\n    npm install\n    npm start\n", code, code, token()), 0},
		{"package.json", fmt.Sprintf("{\n  \"name\": \"%s\",\n  \"version\": \"1.4.2\",\n  \"private\": true,\n  \"description\": \"route planning %s\",\n  \"main\": \"src/index.js\",\n  \"scripts\": { \"start\": \"node src/index.js\" }\n}\n", code, token()), 0},
		{"src/index.js", fmt.Sprintf("'use strict';\n// %s: entry point (%s)\nconst billing = require('./billing');\n\nconst API = 'https://api.%s.corp.internal/v2';\n\nfunction main() {\n  console.log('routes for', billing.accounts().length, 'accounts via', API);\n}\n\nmain();\n", code, token(), code), 0},
		{".gitignore", "node_modules/\n.env\n*.log\n", 0},
		{"src/billing.js", fmt.Sprintf("'use strict';\n// Billing accounts (%s)\nconst ACCOUNTS = [\n  { id: '%s', name: '%s', rate: 0.0%d },\n  { id: '%s', name: '%s', rate: 0.0%d },\n];\n\nexports.accounts = () => ACCOUNTS;\n", token(), token(), pick(), 3+len(code)%5, token(), pick(), 2+len(code)%7), 1},
		{"docs/roadmap.md", fmt.Sprintf("# Roadmap %s\n\n- Q1: move %s onto the new depot model (%s)\n- Q2: invoice reconciliation with %s\n", code, pick(), token(), pick()), 1},
		{"notes/2026-11-standup.md", fmt.Sprintf("Standup 2026-11-24\n\n* %s asked for the rate change by Friday (%s)\n* staging key rotation pending\n", pick(), token()), 1},
		{"data/customers.csv", fmt.Sprintf("id,name,contact\n%s,%s,ops@nordhavn.corp.internal\n%s,%s,billing@alder.corp.internal\n", token(), pick(), token(), pick()), 1},
	}
	for _, f := range files {
		s.Files = append(s.Files, File{Path: "<workspace>/" + f.path, Content: []byte(f.content), Mode: 0o644})
		var vals []string
		for _, t := range strings.Fields(f.content) {
			t = strings.Trim(t, "(),.'\"`")
			if strings.HasPrefix(t, "BWL") && len(t) == 16 {
				vals = append(vals, t)
			}
		}
		if len(vals) > 0 {
			s.all = append(s.all, Canary{Name: ContentPrefix + "<workspace>/" + f.path, Values: vals})
		}
	}
	for _, g := range gitRepo(files) {
		s.Files = append(s.Files, File{Path: "<workspace>/.git/" + g.path, Content: []byte(g.content), Mode: 0o644})
	}
}

// gitRepo is a repository whose two commits add the files: loose
// objects, the branch, HEAD, a config and an index that matches the
// working tree, as git writes them.
func gitRepo(files []workspaceFile) []workspaceFile {
	var out []workspaceFile
	obj := func(kind string, body []byte) [20]byte {
		data := append([]byte(fmt.Sprintf("%s %d\x00", kind, len(body))), body...)
		sum := sha1.Sum(data)
		var z bytes.Buffer
		w := zlib.NewWriter(&z)
		w.Write(data)
		w.Close()
		h := hex.EncodeToString(sum[:])
		out = append(out, workspaceFile{path: "objects/" + h[:2] + "/" + h[2:], content: z.String()})
		return sum
	}
	var parent string
	var entries []indexEntry
	for c := range 2 {
		for _, f := range files {
			if f.commit == c {
				entries = append(entries, indexEntry{f.path, obj("blob", []byte(f.content)), len(f.content)})
			}
		}
		tree := writeTree(obj, entries, "")
		msg := []string{"Initial route planner", "Billing accounts, roadmap and notes"}[c]
		body := "tree " + hex.EncodeToString(tree[:]) + "\n"
		if parent != "" {
			body += "parent " + parent + "\n"
		}
		when := 1764000000 + c*86400
		body += fmt.Sprintf("author Maria Lindqvist <maria.lindqvist@brightwater-logistics.com> %d +0100\ncommitter Maria Lindqvist <maria.lindqvist@brightwater-logistics.com> %d +0100\n\n%s\n", when, when, msg)
		sum := obj("commit", []byte(body))
		parent = hex.EncodeToString(sum[:])
	}
	out = append(out,
		workspaceFile{path: "HEAD", content: "ref: refs/heads/main\n"},
		workspaceFile{path: "refs/heads/main", content: parent + "\n"},
		workspaceFile{path: "config", content: "[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = false\n\tlogallrefupdates = true\n[remote \"origin\"]\n\turl = git@git.corp.internal:logistics/route-planner.git\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n"},
		workspaceFile{path: "description", content: "Unnamed repository; edit this file 'description' to name the repository.\n"},
		workspaceFile{path: "index", content: string(gitIndex(entries))})
	return out
}

type indexEntry struct {
	path string
	sha  [20]byte
	size int
}

// writeTree writes the tree of the entries under dir (recursively) and
// returns its id. Git sorts a tree's entries by name, a directory's name
// as if it ended in "/".
func writeTree(obj func(string, []byte) [20]byte, entries []indexEntry, dir string) [20]byte {
	type item struct {
		name, sortKey, mode string
		sha                 [20]byte
	}
	var items []item
	subdirs := map[string]bool{}
	for _, e := range entries {
		rel, ok := strings.CutPrefix(e.path, dir)
		if !ok {
			continue
		}
		if first, _, isDir := strings.Cut(rel, "/"); isDir {
			if !subdirs[first] {
				subdirs[first] = true
				items = append(items, item{first, first + "/", "40000", writeTree(obj, entries, dir+first+"/")})
			}
			continue
		}
		items = append(items, item{rel, rel, "100644", e.sha})
	}
	slices.SortFunc(items, func(a, b item) int { return strings.Compare(a.sortKey, b.sortKey) })
	var b bytes.Buffer
	for _, it := range items {
		b.WriteString(it.mode + " " + it.name + "\x00")
		b.Write(it.sha[:])
	}
	return obj("tree", b.Bytes())
}

// gitIndex is a version 2 index of the entries (sorted by path), with
// zero stat data: git refreshes it and sees the tree clean.
func gitIndex(entries []indexEntry) []byte {
	es := slices.Clone(entries)
	slices.SortFunc(es, func(a, b indexEntry) int { return strings.Compare(a.path, b.path) })
	var b bytes.Buffer
	b.WriteString("DIRC")
	binary.Write(&b, binary.BigEndian, uint32(2))
	binary.Write(&b, binary.BigEndian, uint32(len(es)))
	for _, e := range es {
		start := b.Len()
		var stat [10]uint32 // ctime, mtime (s, ns), dev, ino, mode, uid, gid, size
		stat[6] = 0o100644
		stat[9] = uint32(e.size)
		binary.Write(&b, binary.BigEndian, stat)
		b.Write(e.sha[:])
		binary.Write(&b, binary.BigEndian, uint16(min(len(e.path), 0xfff)))
		b.WriteString(e.path)
		for pad := 8 - (b.Len()-start)%8; pad > 0; pad-- {
			b.WriteByte(0) // 1 to 8 NULs end the entry
		}
	}
	sum := sha1.Sum(b.Bytes())
	b.Write(sum[:])
	return b.Bytes()
}
