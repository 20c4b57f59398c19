package sandbox

import (
	"archive/tar"
	"bufio"
	"bytes"
	"cmp"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/moby/moby/client"

	"github.com/mcp-audit/mcp-audit/internal/fsutil"
	"github.com/mcp-audit/mcp-audit/internal/textsafe"
)

// ImageVersion changes whenever the image layout the entrypoint relies on
// or the image's content changes; images with another version are rebuilt
// (and, since package images are keyed by the base image's id, so is every
// cached package image). 4: the workstation (git, curl, Chromium).
const ImageVersion = "4"

// DefaultImage is the tag of the sandbox image.
const DefaultImage = "mcp-audit-sandbox:" + ImageVersion

const labelImageVersion = "mcp-audit.image-version"

//go:embed Dockerfile
var dockerfile []byte

// Flavors of image build.
const (
	FlavorAuto       = "auto"
	FlavorDockerfile = "dockerfile" // FROM node:22-bookworm-slim; needs a registry
	FlavorOffline    = "offline"    // debootstrap + the host's node; needs root and Debian's packages
)

// ImageOptions configure an image build.
type ImageOptions struct {
	Ref    string // tag to create (DefaultImage)
	Flavor string
	// Mirror is the Debian mirror for offline builds; empty means the one
	// in /etc/apt, or deb.debian.org.
	Mirror string
	// Node is the node binary to copy into offline images; empty means the
	// one on PATH.
	Node string
	Log  io.Writer
}

// ImageStatus reports whether the sandbox image is present and current.
func ImageStatus(ctx context.Context, e Engine, ref string) (id string, ok bool, err error) {
	res, err := e.ImageInspect(ctx, ref)
	if err != nil {
		if isNotFound(err) {
			return "", false, nil
		}
		return "", false, fmt.Errorf("inspecting image %s: %w", ref, err)
	}
	var labels map[string]string
	if res.Config != nil {
		labels = res.Config.Labels
	}
	return res.ID, labels[labelImageVersion] == ImageVersion, nil
}

// EnsureImage returns the image id, building the image first if it is
// missing or outdated.
func EnsureImage(ctx context.Context, e Engine, opt ImageOptions) (string, error) {
	ref := cmp.Or(opt.Ref, DefaultImage)
	if id, ok, err := ImageStatus(ctx, e, ref); err != nil || ok {
		return id, err
	}
	if err := BuildImage(ctx, e, opt); err != nil {
		return "", err
	}
	id, ok, err := ImageStatus(ctx, e, ref)
	if err == nil && !ok {
		err = fmt.Errorf("image %s was built but is not usable", ref)
	}
	return id, err
}

// BuildImage builds the sandbox image in the requested flavor. Auto picks
// offline when debootstrap is installed and we are root (nothing needs a
// container registry), the Dockerfile otherwise.
func BuildImage(ctx context.Context, e Engine, opt ImageOptions) error {
	opt.Ref = cmp.Or(opt.Ref, DefaultImage)
	if opt.Log == nil {
		opt.Log = io.Discard
	}
	flavor := cmp.Or(opt.Flavor, FlavorAuto)
	if flavor == FlavorAuto {
		flavor = FlavorDockerfile
		if _, err := exec.LookPath("debootstrap"); err == nil && os.Geteuid() == 0 {
			flavor = FlavorOffline
		}
	}
	switch flavor {
	case FlavorDockerfile:
		return buildDockerfile(ctx, e, opt)
	case FlavorOffline:
		return buildOffline(ctx, e, opt)
	}
	return fmt.Errorf("unknown image flavor %q (want auto, dockerfile or offline)", flavor)
}

func buildDockerfile(ctx context.Context, e Engine, opt ImageOptions) error {
	var buf bytes.Buffer
	if err := writeTar(&buf, dockerfileContext(), nil); err != nil {
		return fmt.Errorf("packing the Dockerfile's context: %w", err)
	}
	res, err := e.ImageBuild(ctx, &buf, client.ImageBuildOptions{Tags: []string{opt.Ref}, Remove: true, ForceRemove: true})
	if err != nil {
		return fmt.Errorf("building sandbox image from Dockerfile: %w", err)
	}
	defer res.Body.Close()
	return readJSONMessages(res.Body, opt.Log, "building sandbox image from Dockerfile")
}

// readJSONMessages follows the engine's progress stream and returns the
// first error it reports.
func readJSONMessages(r io.Reader, log io.Writer, what string) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		var msg struct {
			Stream string `json:"stream"`
			Status string `json:"status"`
			Error  string `json:"error"`
		}
		if json.Unmarshal(sc.Bytes(), &msg) != nil {
			continue
		}
		if msg.Error != "" {
			return fmt.Errorf("%s: %s", what, strings.TrimSpace(msg.Error))
		}
		if s := msg.Stream + msg.Status; s != "" {
			fmt.Fprint(log, textsafe.Clean(strings.TrimRight(s, "\n"))+"\n")
		}
	}
	return sc.Err()
}

func buildOffline(ctx context.Context, e Engine, opt ImageOptions) error {
	if os.Geteuid() != 0 {
		return errors.New("the offline image build runs debootstrap and must run as root (or use --flavor dockerfile)")
	}
	if _, err := exec.LookPath("debootstrap"); err != nil {
		return errors.New("the offline image build needs debootstrap (apt-get install -y debootstrap)")
	}
	node := opt.Node
	if node == "" {
		p, err := exec.LookPath("node")
		if err != nil {
			return errors.New("the offline image build copies the host's node binary, but node is not on PATH")
		}
		node = p
	}
	node, err := filepath.EvalSymlinks(node)
	if err != nil {
		return fmt.Errorf("resolving node binary: %w", err)
	}
	npmDir, err := findNpm(node)
	if err != nil {
		return err
	}
	dir, err := os.MkdirTemp("", "mcp-audit-rootfs-*")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	mirror := opt.Mirror
	if mirror == "" {
		mirror = debianMirror()
	}
	fmt.Fprintf(opt.Log, "debootstrap bookworm from %s\n", mirror)
	args := []string{"--variant=minbase", "--include=" + offlinePackages}
	if c := debootstrapCache(); c != "" {
		args = append(args, "--cache-dir="+c)
	}
	cmd := exec.CommandContext(ctx, "debootstrap", append(args, "bookworm", dir, mirror)...)
	cmd.Stdout, cmd.Stderr = opt.Log, opt.Log
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("running debootstrap: %w", err)
	}
	steps := []func() error{
		func() error { return fsutil.CopyFile(node, filepath.Join(dir, "usr/local/bin/node"), 0o755) },
		func() error {
			return fsutil.CopyTree(npmDir, filepath.Join(dir, "usr/local/lib/node_modules/npm"), nil)
		},
		func() error {
			os.Symlink("../lib/node_modules/npm/bin/npm-cli.js", filepath.Join(dir, "usr/local/bin/npm"))
			return os.Symlink("../lib/node_modules/npm/bin/npx-cli.js", filepath.Join(dir, "usr/local/bin/npx"))
		},
		func() error { return addUser(dir, "dev", 1000) },
		func() error { return installWorkstation(dir) },
		func() error {
			for _, g := range []string{"var/cache/apt/archives/*.deb", "var/lib/apt/lists/*", "var/log/*.log"} {
				m, _ := filepath.Glob(filepath.Join(dir, g))
				for _, f := range m {
					os.RemoveAll(f)
				}
			}
			return nil
		},
	}
	for _, s := range steps {
		if err := s(); err != nil {
			return fmt.Errorf("preparing offline rootfs: %w", err)
		}
	}
	pr, pw := io.Pipe()
	go func() { pw.CloseWithError(tarRootfs(pw, dir)) }()
	res, err := e.ImageImport(ctx, client.ImageImportSource{Source: pr, SourceName: "-"}, opt.Ref, client.ImageImportOptions{
		Changes: []string{
			"ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
			`LABEL ` + labelImageVersion + `="` + ImageVersion + `" mcp-audit.flavor="offline"`,
			`CMD ["/bin/bash"]`,
		},
	})
	pr.CloseWithError(err)
	if err != nil {
		return fmt.Errorf("importing offline sandbox image: %w", err)
	}
	defer res.Close()
	return readJSONMessages(res, opt.Log, "importing offline sandbox image")
}

// offlinePackages are the Debian packages of the offline image: the
// tracer, the CA store, the clock shim, and a Python runtime with pip for Python targets
// (python3-pip brings setuptools and wheel, which build sdists offline), then
// the workstation's programs.
const offlinePackages = "strace,ca-certificates,libfaketime,python3,python3-pip,python3-venv," + workstationPackages

// findNpm locates npm's package directory next to a node installation.
func findNpm(node string) (string, error) {
	for _, c := range []string{
		filepath.Join(filepath.Dir(node), "../lib/node_modules/npm"),
		"/usr/lib/node_modules/npm", "/usr/local/lib/node_modules/npm", "/usr/share/nodejs/npm",
	} {
		if _, err := os.Stat(filepath.Join(c, "bin/npm-cli.js")); err == nil {
			return filepath.Clean(c), nil
		}
	}
	return "", errors.New("npm not found next to the host's node")
}

// debianMirror reads the first Debian mirror configured for apt.
func debianMirror() string {
	for _, f := range []string{"/etc/apt/sources.list.d/debian.sources", "/etc/apt/sources.list"} {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(b), "\n") {
			line = strings.TrimSpace(line)
			if u, ok := strings.CutPrefix(line, "URIs:"); ok && !strings.Contains(u, "security") {
				return strings.Fields(u)[0]
			}
			if f := strings.Fields(line); len(f) >= 3 && f[0] == "deb" && !strings.Contains(f[1], "security") {
				return f[1]
			}
		}
	}
	return "http://deb.debian.org/debian"
}

func addUser(root, name string, uid int) error {
	app := func(file, line string) error {
		f, err := os.OpenFile(filepath.Join(root, file), os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			return err
		}
		defer f.Close()
		_, err = f.WriteString(line + "\n")
		return err
	}
	id := fmt.Sprint(uid)
	home := "/home/" + name
	if err := app("etc/passwd", name+":x:"+id+":"+id+"::"+home+":/bin/bash"); err != nil {
		return err
	}
	if err := app("etc/group", name+":x:"+id+":"); err != nil {
		return err
	}
	if err := app("etc/shadow", name+":!:19000:0:99999:7:::"); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Join(root, home), 0o755); err != nil {
		return err
	}
	return os.Chown(filepath.Join(root, home), uid, uid)
}

// tarRootfs streams a root filesystem, keeping ownership, modes, symlinks
// and hard links. /dev, /proc and /sys contents are left to the engine.
func tarRootfs(w io.Writer, root string) error {
	tw := tar.NewWriter(w)
	inodes := map[[2]uint64]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if rel == "." {
			return nil
		}
		rel = filepath.ToSlash(rel)
		if d.IsDir() && (rel == "dev" || rel == "proc" || rel == "sys") {
			tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: rel + "/", Mode: 0o755})
			return fs.SkipDir
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		link := ""
		if info.Mode()&fs.ModeSymlink != 0 {
			if link, err = os.Readlink(p); err != nil {
				return err
			}
		}
		if !info.Mode().IsRegular() && !info.IsDir() && link == "" {
			return nil
		}
		hdr, err := tar.FileInfoHeader(info, link)
		if err != nil {
			return err
		}
		hdr.Name = rel
		// PAX keeps the nanoseconds of modification times, which
		// fontconfig compares to decide whether its cache is current.
		hdr.Format = tar.FormatPAX
		if info.IsDir() {
			hdr.Name += "/"
		}
		if st, ok := info.Sys().(*syscall.Stat_t); ok {
			hdr.Uid, hdr.Gid = int(st.Uid), int(st.Gid)
			hdr.Uname, hdr.Gname = "", ""
			if info.Mode().IsRegular() && st.Nlink > 1 {
				key := [2]uint64{uint64(st.Dev), uint64(st.Ino)}
				if first, ok := inodes[key]; ok {
					hdr.Typeflag, hdr.Linkname, hdr.Size = tar.TypeLink, first, 0
				} else {
					inodes[key] = rel
				}
			}
		}
		if err := tw.WriteHeader(hdr); err != nil {
			return err
		}
		if hdr.Typeflag == tar.TypeReg {
			f, err := os.Open(p)
			if err != nil {
				return err
			}
			_, err = io.Copy(tw, f)
			f.Close()
			return err
		}
		return nil
	})
	if err != nil {
		return err
	}
	return tw.Close()
}
