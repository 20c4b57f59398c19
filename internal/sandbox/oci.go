package sandbox

import (
	"archive/tar"
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/moby/moby/api/types/container"
	"github.com/moby/moby/client"
)

// OCI images are audited as shipped: their own entrypoint, their own root
// file system, and no package install. They need not contain strace, a
// shell or anything else the entrypoint uses, so mcp-audit brings its own:
// the sandbox image's strace, dash, setpriv, tar, mawk, find and coreutils,
// with every library they link and the sandbox image's dynamic loader, in
// ToolsDir. Each tool is reached through a wrapper script in ToolsPath
// whose interpreter is a static mcp-audit ("mcp-audit tool"), which runs
// the tool with the bundled loader and libraries; nothing of the image's
// own C library is used, and nothing of the bundle leaks into the server:
// the server keeps the image's PATH, and the tools only run as mcp-audit's
// plumbing (entry.sh), like in the npm sandbox. The bundle is added as a
// cached layer on top of the image (an mcp-audit-pkg image, removed by
// cleanup --images); the image itself is not changed.
//
// The bundle's directory names nothing of the audit: a server that looks
// for an auditor's files would find them in the witness run too.
const (
	ToolsDir  = "/usr/local/libexec/toolbox"
	ToolsPath = ToolsDir + "/path"
	// ToolsLoader and ToolsLib are the bundled loader and libraries.
	ToolsLoader = ToolsDir + "/ld.so"
	ToolsLib    = ToolsDir + "/lib"
	// ToolsBin holds the real binaries the wrappers run.
	ToolsBin = ToolsDir + "/bin"
	toolsExe = ToolsDir + "/toolbox"
)

// Tools are the programs entry.sh runs, by the name it runs them under.
var Tools = []string{"awk", "cat", "date", "find", "head", "mkdir", "mkfifo", "rm", "setpriv", "sh", "sleep", "stat", "strace", "tar"}

// toolsScript collects the tools and their libraries from the sandbox image
// into /out/tools (run in a throwaway container of that image).
const toolsScript = `set -eu
T=/out/tools
mkdir -p "$T/bin" "$T/lib"
for spec in awk:mawk cat:cat date:date find:find head:head mkdir:mkdir mkfifo:mkfifo rm:rm setpriv:setpriv sh:dash sleep:sleep stat:stat strace:strace tar:tar; do
	name=${spec%%:*} prog=$(command -v "${spec#*:}")
	cp -L "$prog" "$T/bin/$name"
	ldd "$prog" | awk '$2 == "=>" && $3 ~ /^\// { print $3 }' | while read -r lib; do cp -L "$lib" "$T/lib/"; done
done
cp -L /lib64/ld-linux-x86-64.so.2 "$T/ld.so"
`

// maxToolsBytes bounds the bundle read back from the helper container.
const maxToolsBytes = 64 << 20

// toolsBundle runs toolsScript in a container of the sandbox image and
// returns the bundle as files under ToolsDir.
func (s *Sandbox) toolsBundle(ctx context.Context, sandboxImage string) ([]TarFile, error) {
	created, err := s.Engine.ContainerCreate(ctx, client.ContainerCreateOptions{
		Config:     &container.Config{Image: sandboxImage, User: "0:0", Cmd: []string{"/bin/sh", "-c", toolsScript}, Labels: ownerLabels(5 * time.Minute)},
		HostConfig: &container.HostConfig{NetworkMode: "none", CapDrop: []string{"ALL"}, SecurityOpt: []string{"no-new-privileges"}},
	})
	if err != nil {
		return nil, fmt.Errorf("creating tools container: %w", err)
	}
	defer s.removeID(created.ID)
	wait := s.Engine.ContainerWait(ctx, created.ID, client.ContainerWaitOptions{Condition: container.WaitConditionNextExit})
	if _, err := s.Engine.ContainerStart(ctx, created.ID, client.ContainerStartOptions{}); err != nil {
		return nil, fmt.Errorf("starting tools container: %w", err)
	}
	select {
	case res := <-wait.Result:
		if res.StatusCode != 0 {
			return nil, fmt.Errorf("collecting tools from the sandbox image: exit status %d", res.StatusCode)
		}
	case err := <-wait.Error:
		return nil, fmt.Errorf("waiting for tools container: %w", err)
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	res, err := s.Engine.CopyFromContainer(ctx, created.ID, client.CopyFromContainerOptions{SourcePath: "/out/tools"})
	if err != nil {
		return nil, fmt.Errorf("copying tools out: %w", err)
	}
	defer res.Content.Close()
	return readToolsTar(res.Content)
}

// readToolsTar reads the bundle (entries "tools/…"): regular files only,
// plain names, bounded in total.
func readToolsTar(r io.Reader) ([]TarFile, error) {
	tr := tar.NewReader(io.LimitReader(r, maxToolsBytes))
	var out []TarFile
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("reading tools: %w", err)
		}
		rel, ok := strings.CutPrefix(path.Clean(h.Name), "tools/")
		if h.Typeflag != tar.TypeReg || !ok || strings.Contains(rel, "..") {
			continue
		}
		b, err := io.ReadAll(tr)
		if err != nil {
			return nil, fmt.Errorf("reading tools: %w", err)
		}
		out = append(out, TarFile{Path: path.Join(ToolsDir, rel), Content: b, Mode: 0o755})
	}
}

// toolWrappers are the scripts in ToolsPath, one per tool.
func toolWrappers() []TarFile {
	var out []TarFile
	for _, t := range Tools {
		out = append(out, TarFile{Path: path.Join(ToolsPath, t), Content: []byte("#!" + toolsExe + " tool\n"), Mode: 0o755})
	}
	return out
}

// ToolArgv is what the wrapper of a tool execs: the bundled loader with
// the bundled libraries, running the tool under its own name. wrapper is
// the wrapper's path (the interpreter's first argument).
func ToolArgv(wrapper string, args []string) ([]string, error) {
	name := path.Base(wrapper)
	if path.Dir(wrapper) != ToolsPath || !isTool(name) {
		return nil, fmt.Errorf("%s is not one of mcp-audit's tools", wrapper)
	}
	return append([]string{ToolsLoader, "--library-path", ToolsLib, "--argv0", name, path.Join(ToolsBin, name)}, args...), nil
}

func isTool(name string) bool {
	for _, t := range Tools {
		if t == name {
			return true
		}
	}
	return false
}

// OCIImage returns the image ref (id imageID) with the tools bundle added
// as a cached layer, building it if needed from the sandbox image.
func (s *Sandbox) OCIImage(ctx context.Context, ref, imageID, sandboxImage, sandboxID string) (string, error) {
	bin, err := SinkBinary()
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(bin)
	key := "oci-tools\x00" + sandboxID + "\x00" + hex.EncodeToString(sum[:])
	if ref, ok := s.cachedLayer(ctx, imageID, key); ok {
		return ref, nil
	}
	files, err := s.toolsBundle(ctx, sandboxImage)
	if err != nil {
		return "", err
	}
	files = append(files, TarFile{Path: toolsExe, Content: bin, Mode: 0o755})
	files = append(files, toolWrappers()...)
	return s.LayerImage(ctx, imageID, imageID, key, append([]TarFile{{Path: "/usr/local", Dir: true, Mode: 0o755}, {Path: "/usr/local/libexec", Dir: true, Mode: 0o755},
		{Path: ToolsDir, Dir: true, Mode: 0o755}, {Path: ToolsPath, Dir: true, Mode: 0o755}}, files...), nil)
}

// cachedLayer reports whether LayerImage already built key on baseID.
func (s *Sandbox) cachedLayer(ctx context.Context, baseID, key string) (string, bool) {
	sum := sha256.Sum256([]byte(baseID + "\x00" + key))
	ref := packageImageRepo + ":" + hex.EncodeToString(sum[:12])
	_, err := s.Engine.ImageInspect(ctx, ref)
	return ref, err == nil
}

// ImageUser picks the unprivileged user an image's server runs as, from
// its /etc/passwd: the image's own USER when that is not root, else the
// first ordinary user (uid 1000-59999), else nobody.
func (s *Sandbox) ImageUser(ctx context.Context, image, configured string) (string, int, error) {
	created, err := s.Engine.ContainerCreate(ctx, client.ContainerCreateOptions{
		Config:     &container.Config{Image: image, Cmd: []string{"true"}, Labels: ownerLabels(time.Minute)},
		HostConfig: &container.HostConfig{NetworkMode: "none"},
	})
	if err != nil {
		return "", 0, fmt.Errorf("reading the image's users: %w", err)
	}
	defer s.removeID(created.ID)
	res, err := s.Engine.CopyFromContainer(ctx, created.ID, client.CopyFromContainerOptions{SourcePath: "/etc/passwd"})
	if err != nil {
		return "", 0, fmt.Errorf("the image has no /etc/passwd (an unprivileged user is needed): %w", err)
	}
	defer res.Content.Close()
	passwd, err := readTarFile(res.Content, 1<<20)
	if err != nil {
		return "", 0, err
	}
	return pickUser(passwd, configured)
}

// pickUser implements ImageUser's choice on the text of /etc/passwd.
func pickUser(passwd []byte, configured string) (string, int, error) {
	type user struct {
		name string
		uid  int
	}
	var users []user
	sc := bufio.NewScanner(bytes.NewReader(passwd))
	for sc.Scan() {
		f := strings.Split(sc.Text(), ":")
		if len(f) < 4 || f[2] != f[3] { // setpriv runs the server with gid = uid
			continue
		}
		uid, err := strconv.Atoi(f[2])
		if err != nil || uid <= 0 || f[0] == "" || strings.ContainsAny(f[0], " \t") {
			continue
		}
		users = append(users, user{f[0], uid})
	}
	want, _, _ := strings.Cut(configured, ":")
	for _, u := range users {
		if want != "" && (u.name == want || strconv.Itoa(u.uid) == want) {
			return u.name, u.uid, nil
		}
	}
	for _, u := range users {
		if u.uid >= 1000 && u.uid < 60000 {
			return u.name, u.uid, nil
		}
	}
	for _, u := range users {
		if u.name == "nobody" {
			return u.name, u.uid, nil
		}
	}
	return "", 0, errors.New("the image's /etc/passwd has no unprivileged user with a group of the same id to run the server as")
}
