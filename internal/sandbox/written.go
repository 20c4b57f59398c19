package sandbox

import (
	"archive/tar"
	"io"
	"path"
	"time"
)

// WrittenFile is a file the server changed in the scanned directory, read
// back after the run. Its name and content come from the sandbox: they
// are searched, never used as host paths.
type WrittenFile struct {
	Path    string // absolute path inside the sandbox
	ModTime time.Time
	Data    []byte
}

// readWritten reads the entrypoint's archive of changed files: regular
// files only, at most WrittenMaxFiles of at most WrittenMaxBytes each,
// whatever the archive claims.
func readWritten(r io.Reader) []WrittenFile {
	tr := tar.NewReader(io.LimitReader(r, int64(WrittenMaxFiles)*(WrittenMaxBytes+4096)))
	var out []WrittenFile
	for len(out) < WrittenMaxFiles {
		hdr, err := tr.Next()
		if err != nil {
			break
		}
		if hdr.Typeflag != tar.TypeReg || len(hdr.Name) > 4096 {
			continue
		}
		data, err := io.ReadAll(io.LimitReader(tr, WrittenMaxBytes))
		if err != nil {
			break
		}
		out = append(out, WrittenFile{Path: path.Clean("/" + hdr.Name), ModTime: hdr.ModTime, Data: data})
	}
	return out
}
