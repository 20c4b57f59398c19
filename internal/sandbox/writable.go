package sandbox

import (
	"crypto/sha512"
	"encoding/hex"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
)

// Writable is the server's package where npx would have put it: a per-run
// copy, in the home, of the tree the package image holds read-only. Under
// npx the package directory is the user's own and writable, and servers
// keep data beside their code (server-memory's memory.jsonl next to its
// dist/); in a read-only tree every such write fails and the code behind it
// is never reached.
//
// The copy is made by the entrypoint, as the server's user, before the
// seeding marker, so nothing of it counts as changed by the server. It
// lives in the home's tmpfs, which grows by Bytes; like every tmpfs page it
// counts against the container's memory limit. Writes to it are still
// traced and judged by where they land: the package's normalized paths
// (<pkg>, <deps>, <app>) are under it, another npx package's directory is
// not.
type Writable struct {
	Src   string // the tree in the image (root-owned, read-only)
	Dst   string // where the server runs it from, under the home
	Bytes int64  // what the copy takes in the home's tmpfs
}

// NpxDir is the directory npx installs a package into when a client runs
// "npx NAME": the first 16 hex digits of the SHA-512 of the package spec,
// under ~/.npm/_npx (npm's libnpmexec).
func NpxDir(home, spec string) string {
	sum := sha512.Sum512([]byte(spec))
	return path.Join(home, ".npm", "_npx", hex.EncodeToString(sum[:])[:16])
}

// NpxWritable describes the copy of the tree at hostRoot (the installed
// package on the host, measured there) that the image holds at src, to be
// run from NpxDir(home, name).
func NpxWritable(home, name, src, hostRoot string) (*Writable, error) {
	n, err := tmpfsBytes(hostRoot)
	if err != nil {
		return nil, fmt.Errorf("measuring the package tree: %w", err)
	}
	return &Writable{Src: src, Dst: NpxDir(home, name), Bytes: n}, nil
}

// tmpfsBytes is what a tree takes on tmpfs: every file in whole pages,
// every directory and link a page.
func tmpfsBytes(root string) (int64, error) {
	const page = 4096
	var n int64
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		n += page
		if d.Type().IsRegular() {
			info, err := d.Info()
			if err != nil {
				return err
			}
			n += (info.Size() + page - 1) / page * page
		}
		return nil
	})
	return n, err
}
