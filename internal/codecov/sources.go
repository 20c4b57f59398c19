package codecov

import (
	"io/fs"
	"os"
)

// Bounds on the package's own sources read.
const (
	maxSources     = 4000
	maxSourceBytes = 1 << 20
	maxSourceTotal = 32 << 20
)

// Sources are the package's own JavaScript files under dir (an installed
// package tree on the host, which came out of the install container:
// untrusted), read inside dir only — os.Root lets no link lead out of it —
// and bounded; nested node_modules are its dependencies and left out.
func Sources(dir string) []Source {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil
	}
	defer root.Close()
	var own []Source
	total := 0
	_ = fs.WalkDir(root.FS(), ".", func(rel string, d fs.DirEntry, err error) error {
		switch {
		case err != nil || len(own) >= maxSources || total >= maxSourceTotal:
			return fs.SkipAll
		case d.IsDir() && d.Name() == "node_modules":
			return fs.SkipDir
		case !d.Type().IsRegular() || !IsSource(rel):
			return nil
		}
		b, err := root.ReadFile(rel)
		if err != nil || len(b) > maxSourceBytes {
			b = nil
		}
		total += len(b)
		own = append(own, Source{Path: rel, Text: b})
		return nil
	})
	return own
}
