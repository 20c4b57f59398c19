package deptree

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// errTooLarge marks a file over its size bound; it is counted, not read.
var errTooLarge = errors.New("over the size bound")

// errNotRegular marks a path that is a link, a directory or a device.
var errNotRegular = errors.New("not a regular file")

// reader reads an installed tree through an os.Root, so no name can leave
// the root, and looks at every entry without following it: a symbolic
// link is never read through, a FIFO never opened.
type reader struct {
	root    *os.Root
	tree    *Tree
	entries int
}

func openReader(dir string, t *Tree) (*reader, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("opening installed tree: %w", err)
	}
	return &reader{root: root, tree: t}, nil
}

func (r *reader) close() { r.root.Close() }

// readDir lists rel's entries sorted by name, within the tree's entry
// bound; what is past the bound is counted. A missing or unreadable
// directory lists nothing, and so does a link to one: the walk never
// enters a directory through a link (callers reach rel through
// directories they listed, so only its last element needs the check).
func (r *reader) readDir(rel string) []fs.DirEntry {
	if m, ok := r.mode(rel); rel != "." && (!ok || !m.IsDir()) {
		return nil
	}
	f, err := r.root.Open(rel)
	if err != nil {
		return nil
	}
	defer f.Close()
	var out []fs.DirEntry
	for {
		batch, err := f.ReadDir(256)
		for _, e := range batch {
			if r.entries >= limits.entries {
				r.tree.omit(OmitEntries, 1)
				continue
			}
			r.entries++
			out = append(out, e)
		}
		if err != nil || len(batch) == 0 {
			break
		}
	}
	slices.SortFunc(out, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return out
}

// mode is rel's type without following a link; 0 and false when absent.
func (r *reader) mode(rel string) (fs.FileMode, bool) {
	fi, err := r.root.Lstat(rel)
	if err != nil {
		return 0, false
	}
	return fi.Mode().Type(), true
}

// readFile reads a regular file of at most max bytes. A larger one is
// counted as too large and not returned.
func (r *reader) readFile(rel string, max int64) ([]byte, error) {
	b, err := r.read(rel, max+1)
	if err == nil && int64(len(b)) > max {
		r.tree.omit(OmitTooLarge, 1)
		return nil, errTooLarge
	}
	return b, err
}

// readHead reads at most the first max bytes of a regular file: enough
// for headers that precede a body of any length.
func (r *reader) readHead(rel string, max int64) ([]byte, error) { return r.read(rel, max) }

func (r *reader) read(rel string, max int64) ([]byte, error) {
	if m, ok := r.mode(rel); !ok {
		return nil, fs.ErrNotExist
	} else if !m.IsRegular() {
		return nil, errNotRegular
	}
	f, err := r.root.Open(rel)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return nil, errNotRegular
	}
	return io.ReadAll(io.LimitReader(f, max))
}

// clean bounds a string the package controls for storage: valid UTF-8,
// no control or format characters (they are dropped), at most max bytes.
// Reports print it through textsafe all the same.
func clean(s string, max int) string {
	ok := true
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f {
			ok = false
			break
		}
	}
	if !ok {
		var b strings.Builder
		for _, r := range strings.ToValidUTF8(s, "\uFFFD") {
			if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) || r == '\u2028' || r == '\u2029' {
				continue
			}
			b.WriteRune(r)
		}
		s = b.String()
	}
	if len(s) > max {
		cut := max
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut]
	}
	return s
}
