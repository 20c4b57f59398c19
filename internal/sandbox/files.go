package sandbox

import (
	"archive/tar"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/mcp-audit/mcp-audit/internal/textsafe"
	"github.com/moby/moby/client"
)

// TarFile is one file or directory to place in the sandbox.
type TarFile struct {
	Path    string
	Mode    int64
	UID     int
	Content []byte
	Dir     bool
}

// Tree is a host directory copied into the sandbox, owned by root and
// read-only for the server. Symlinks are copied as symlinks, never
// followed on the host; other special files are skipped.
type Tree struct {
	Src, Dst string
	// UID owns the tree's files (root when zero; the install container's
	// user owns its work tree).
	UID int
	// GID owns the tree's files; with GroupWrite the group may modify them
	// (the install phase runs as that group, the server does not).
	GID        int
	GroupWrite bool
}

// seedTime is the fixed modification time of seeded files, so that the
// first read moves the access time past it.
var seedTime = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// copyIn copies the entrypoint, the seeded HOME, the server's files and
// trees and the CA to trust into the created container, in one archive.
func (s *Sandbox) copyIn(ctx context.Context, id string, spec Spec) error {
	t0 := time.Now()
	home, err := homeTar(spec.HomeFiles, spec.UID)
	if err != nil {
		return err
	}
	files := []TarFile{
		{Path: outDir, Dir: true, Mode: 0o700},
		{Path: entryPath, Content: entryScript, Mode: 0o700},
		{Path: homeTarPath, Content: home, Mode: 0o600},
	}
	if spec.Resolv != "" {
		files = append(files, TarFile{Path: resolvPath, Content: []byte(spec.Resolv), Mode: 0o600})
	}
	if spec.Watch {
		files = append(files, TarFile{Path: watchPath, Content: watchScript, Mode: 0o600})
	}
	files = append(files, spec.Files...)
	files = append(files, trustFiles(spec.Net)...)
	if err := s.copyFiles(ctx, id, files, spec.Trees); err != nil {
		return err
	}
	s.log().Debug("copied files in", "ms", time.Since(t0).Milliseconds())
	return nil
}

func (s *Sandbox) copyFiles(ctx context.Context, id string, files []TarFile, trees []Tree) error {
	pr, pw := io.Pipe()
	go func() {
		pw.CloseWithError(writeTar(pw, files, trees))
	}()
	_, err := s.Engine.CopyToContainer(ctx, id, client.CopyToContainerOptions{DestinationPath: "/", Content: pr})
	pr.CloseWithError(err)
	if err != nil {
		return fmt.Errorf("copying files into sandbox: %w", err)
	}
	return nil
}

// homeTar builds the archive the entrypoint extracts into HOME as the user.
func homeTar(files []TarFile, uid int) ([]byte, error) {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	dirs := map[string]bool{}
	for _, f := range files {
		rel := strings.TrimPrefix(path.Clean("/"+f.Path), "/")
		for d := path.Dir(rel); d != "." && !dirs[d]; d = path.Dir(d) {
			dirs[d] = true
		}
	}
	var dirList []string
	for d := range dirs {
		dirList = append(dirList, d)
	}
	sort.Strings(dirList)
	for _, d := range dirList {
		mode := int64(0o755)
		if d == ".ssh" || d == ".aws" || d == ".gnupg" {
			mode = 0o700
		}
		if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: d + "/", Mode: mode, Uid: uid, Gid: uid, ModTime: seedTime}); err != nil {
			return nil, err
		}
	}
	for _, f := range files {
		rel := strings.TrimPrefix(path.Clean("/"+f.Path), "/")
		if f.Dir {
			if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: rel + "/", Mode: f.Mode, Uid: uid, Gid: uid, ModTime: seedTime}); err != nil {
				return nil, err
			}
			continue
		}
		hdr := &tar.Header{Typeflag: tar.TypeReg, Name: rel, Mode: f.Mode, Size: int64(len(f.Content)), Uid: uid, Gid: uid,
			ModTime: seedTime, AccessTime: seedTime, Format: tar.FormatPAX}
		if err := tw.WriteHeader(hdr); err != nil {
			return nil, err
		}
		if _, err := tw.Write(f.Content); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func writeTar(w io.Writer, files []TarFile, trees []Tree) error {
	tw := tar.NewWriter(w)
	for _, f := range files {
		name := strings.TrimPrefix(path.Clean(f.Path), "/")
		hdr := &tar.Header{Name: name, Mode: f.Mode, Uid: f.UID, Gid: f.UID, ModTime: seedTime}
		if f.Dir {
			hdr.Typeflag, hdr.Name = tar.TypeDir, name+"/"
		} else {
			hdr.Typeflag, hdr.Size = tar.TypeReg, int64(len(f.Content))
		}
		if err := tw.WriteHeader(hdr); err != nil {
			return err
		}
		if !f.Dir {
			if _, err := tw.Write(f.Content); err != nil {
				return err
			}
		}
	}
	for _, t := range trees {
		if err := addTree(tw, t); err != nil {
			return fmt.Errorf("packing %s: %w", t.Src, err)
		}
	}
	return tw.Close()
}

// addTree packs a host directory. Ownership is root, files are 0644 or
// 0755 when executable, directories 0755, so the server cannot modify its
// own package.
func addTree(tw *tar.Writer, t Tree) error {
	dst := strings.TrimPrefix(path.Clean(t.Dst), "/")
	// Parent directories of the destination.
	for d, parents := path.Dir(dst), []string{}; ; d = path.Dir(d) {
		if d == "." || d == "/" {
			for i := len(parents) - 1; i >= 0; i-- {
				if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: parents[i] + "/", Mode: 0o755, ModTime: seedTime}); err != nil {
					return err
				}
			}
			break
		}
		parents = append(parents, d)
	}
	return filepath.WalkDir(t.Src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(t.Src, p)
		if err != nil {
			return err
		}
		name := path.Join(dst, filepath.ToSlash(rel))
		info, err := d.Info()
		if err != nil {
			return err
		}
		hdr := &tar.Header{Name: name, ModTime: seedTime, Format: tar.FormatPAX, Uid: t.UID, Gid: t.GID}
		gw := int64(0)
		if t.GroupWrite {
			gw = 0o020
		}
		switch mode := info.Mode(); {
		case mode.IsDir():
			hdr.Typeflag, hdr.Name, hdr.Mode = tar.TypeDir, name+"/", 0o755|gw
		case mode&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			hdr.Typeflag, hdr.Linkname, hdr.Mode = tar.TypeSymlink, target, 0o777
		case mode.IsRegular():
			hdr.Typeflag, hdr.Size, hdr.Mode = tar.TypeReg, info.Size(), 0o644|gw
			if mode&0o111 != 0 {
				hdr.Mode = 0o755 | gw
			}
		default:
			return nil // devices, fifos, sockets
		}
		if err := tw.WriteHeader(hdr); err != nil {
			return err
		}
		if hdr.Typeflag == tar.TypeReg {
			f, err := os.Open(p)
			if err != nil {
				return err
			}
			_, err = io.CopyN(tw, f, info.Size())
			f.Close()
			if err != nil {
				return err
			}
		}
		return nil
	})
}

// Artifacts are what a run leaves in the sandbox's private directory.
type Artifacts struct {
	// TraceFile is a host temp file holding the (bounded) trace; the
	// caller removes it.
	TraceFile string
	TraceSize int64
	TraceCut  bool
	// Status is the entrypoint's account of the run (notes.go).
	Status Status
	// InstallTraceFile holds the install phase's trace, when it ran.
	InstallTraceFile string
	InstallLog       string // the tail of the install scripts' output
	// Witness are the decoys' access times after the run.
	Witness []AccessTimes
	// Watch is what the outside observer saw (Spec.Watch).
	Watch Watch
	// HomeChanged are the files and links in the home (outside
	// Spec.ScanDir) changed after seeding, at most 64.
	HomeChanged []HomeChange
	// Written are the files under Spec.ScanDir changed after seeding.
	Written []WrittenFile
	// Outlived are the server user's processes still alive after the
	// server exited (a detached daemon), at most 32.
	Outlived []Process
	// Coverage are the regular files left in Spec.CoverageDir (bounded:
	// at most 16, 16 MiB each, 64 MiB together; written by the server, so
	// untrusted).
	Coverage [][]byte
	// SinkLog is the sink's JSON-lines event log (bounded), nil without a
	// sink.
	SinkLog []byte
	SinkErr error
}

// Collect copies the trace, status and witness files out of the exited
// container, and the sink's log out of the sink at the same time. The
// trace is bounded by maxTrace bytes; the other files by 64 KiB. Nothing
// from the sandbox is used as a host path.
func (r *Run) Collect(ctx context.Context, maxTrace int64) (*Artifacts, error) {
	var sinkLog []byte
	var sinkErr error
	done := make(chan struct{})
	go func() {
		defer close(done)
		if r.sink != nil {
			sinkLog, sinkErr = r.sb.collectSink(ctx, r.sink, 64<<20)
		}
	}()
	a, err := r.collectOut(ctx, maxTrace)
	<-done
	if a != nil {
		a.SinkLog, a.SinkErr = sinkLog, sinkErr
		if r.coverageDir != "" && err == nil {
			a.Coverage = r.collectCoverage(ctx)
		}
	}
	return a, err
}

// collectOut reads the server container's output directory.
func (r *Run) collectOut(ctx context.Context, maxTrace int64) (*Artifacts, error) {
	res, err := r.sb.Engine.CopyFromContainer(ctx, r.ID, client.CopyFromContainerOptions{SourcePath: outDir})
	if err != nil {
		return nil, fmt.Errorf("copying results out of sandbox: %w", err)
	}
	defer res.Content.Close()
	a := &Artifacts{}
	tr := tar.NewReader(res.Content)
	for {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return a, fmt.Errorf("reading sandbox results: %w", err)
		}
		if hdr.Typeflag != tar.TypeReg {
			continue
		}
		switch path.Base(hdr.Name) {
		case "trace":
			f, err := os.CreateTemp("", "mcp-audit-trace-*")
			if err != nil {
				return a, err
			}
			n, err := io.Copy(f, io.LimitReader(tr, maxTrace))
			f.Close()
			a.TraceFile, a.TraceSize, a.TraceCut = f.Name(), n, hdr.Size > maxTrace
			if err != nil {
				return a, fmt.Errorf("reading trace: %w", err)
			}
		case "trace.install":
			f, err := os.CreateTemp("", "mcp-audit-trace-install-*")
			if err != nil {
				return a, err
			}
			_, err = io.Copy(f, io.LimitReader(tr, maxTrace))
			f.Close()
			a.InstallTraceFile = f.Name()
			if err != nil {
				return a, fmt.Errorf("reading install trace: %w", err)
			}
		case "install.log":
			b, _ := io.ReadAll(io.LimitReader(tr, 1<<20))
			if len(b) > 8192 {
				b = b[len(b)-8192:]
			}
			a.InstallLog = textsafe.Clean(string(b))
		case "status":
			a.Status = ParseStatus(readLines(tr, 64<<10))
		case "witness":
			a.Witness = ParseAccessTimes(readLines(tr, 64<<10))
		case "watch":
			a.Watch = ParseWatch(readLines(tr, 4<<20)) // up to 4096 programs
		case "outlived":
			a.Outlived = ParseOutlived(readLines(tr, 16<<10))
		case "home-changed":
			a.HomeChanged = ParseHomeChanges(readLines(tr, 64<<10))
		case "written.tar":
			a.Written = readWritten(tr)
		}
	}
	return a, nil
}

// readTarFile returns the first regular file of a tar stream, bounded.
func readTarFile(r io.Reader, max int64) ([]byte, error) {
	tr := tar.NewReader(r)
	for {
		hdr, err := tr.Next()
		if err != nil {
			return nil, err
		}
		if hdr.Typeflag == tar.TypeReg {
			return io.ReadAll(io.LimitReader(tr, max))
		}
	}
}

func readLines(r io.Reader, max int64) []string {
	b, _ := io.ReadAll(io.LimitReader(r, max))
	var out []string
	for _, l := range strings.Split(string(b), "\n") {
		if l = strings.TrimSpace(l); l != "" && len(l) < 4096 {
			out = append(out, l)
		}
	}
	return out
}

// Bounds on the coverage files read back.
const (
	maxCoverageFiles = 16
	maxCoverageFile  = 16 << 20
	maxCoverageTotal = 64 << 20
)

// collectCoverage reads the regular files of the coverage directory out
// of the stopped container, bounded; links and anything else are skipped.
// It is best effort: no directory, or a failed copy, is "not measured".
func (r *Run) collectCoverage(ctx context.Context) [][]byte {
	res, err := r.sb.Engine.CopyFromContainer(ctx, r.ID, client.CopyFromContainerOptions{SourcePath: r.coverageDir})
	if err != nil {
		return nil
	}
	defer res.Content.Close()
	var out [][]byte
	total := 0
	tr := tar.NewReader(res.Content)
	for len(out) < maxCoverageFiles && total < maxCoverageTotal {
		hdr, err := tr.Next()
		if err != nil {
			break
		}
		if hdr.Typeflag != tar.TypeReg || hdr.Size > maxCoverageFile || !strings.HasSuffix(hdr.Name, ".json") {
			continue
		}
		b, err := io.ReadAll(io.LimitReader(tr, maxCoverageFile))
		if err != nil {
			break
		}
		total += len(b)
		out = append(out, b)
	}
	return out
}
