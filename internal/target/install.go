package target

import (
	"archive/tar"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/mcp-audit/mcp-audit/internal/textsafe"
)

// ErrUnfetchable marks a dependency mcp-audit will not fetch: one from git,
// a URL or a local path. npm builds git dependencies by running their
// `prepare` script even under --ignore-scripts; mcp-audit installs only
// what the configured registries serve.
var ErrUnfetchable = errors.New("dependency not on a registry")

// Installer runs a package manager in a throwaway container with no token,
// no Docker socket and no host mounts, whose network reaches only the gate
// that Gate serves. No package manager ever runs on the host.
type Installer interface {
	// Install copies job.Dir into the container, runs job.Argv there and
	// replaces job.Dir with the result. It returns the package manager's
	// output (bounded) for error messages.
	Install(ctx context.Context, job InstallJob) ([]byte, error)
}

// InstallJob is one install in a container.
type InstallJob struct {
	Dir string
	// Argv builds the command once the gate's address as seen from the
	// container (http://IP:PORT) is known.
	Argv func(gate string) []string
	// Gate serves the container's registry requests at that address.
	Gate    func(gate string) http.Handler
	Timeout time.Duration
}

// npmInstall installs dir's dependencies (lifecycle scripts ignored) in
// the install container, through the registry gate.
func (f *Fetcher) npmInstall(ctx context.Context, dir string) error {
	if f.Installer == nil {
		return errors.New("installing dependencies needs the container engine: no package manager runs on the host")
	}
	m, err := ReadPackageJSON(dir)
	if err != nil {
		return err
	}
	if err := checkFetchable(m.Name, m.Dependencies); err != nil {
		return err
	}
	cfg, hc := f.registryConfig()
	gate := newRegistryGate(cfg, hc)
	out, err := f.Installer.Install(ctx, InstallJob{
		Dir:     dir,
		Timeout: 10 * time.Minute,
		Gate:    gate.handler,
		Argv: func(base string) []string {
			return append([]string{"npm", "install", "--ignore-scripts", "--no-audit", "--no-fund", "--omit=dev",
				"--no-update-notifier", "--loglevel=error"}, gate.npmArgs(base, cfg)...)
		},
	})
	if err == nil {
		return nil
	}
	return installError(err, gate.unrewrite(out), gate.Refused())
}

func (f *Fetcher) registryConfig() (NPMConfig, *http.Client) {
	if f.Registry != nil {
		return f.Registry.Config, f.Registry.HTTP
	}
	return NPMConfig{Registry: DefaultRegistry, Scoped: map[string]string{}}, http.DefaultClient
}

// reGitOutput matches npm's failures to fetch a git dependency (the image
// has no git, and the network reaches only the gate); npm's ordinary 404
// text mentions "git url" too, so the match is on the failure itself.
var reGitOutput = regexp.MustCompile(`ENOGIT|spawn git|[Gg]it dep preparation|unknown git error|git ls-remote|git clone|git-(clone|fetch)`)

// npmNoise is what npm prints on every failure and differs between runs
// (its debug log's timestamped path).
var npmNoise = regexp.MustCompile(`(?m)^npm (error|ERR!) A complete log of this run can be found in:.*$\n?`)

// installError explains a failed install in the user's terms; npm's own
// output is untrusted and only its tail is quoted.
func installError(err error, out []byte, refused []string) error {
	msg := textsafe.Tail(textsafe.Clean(strings.TrimSpace(npmNoise.ReplaceAllString(string(out), ""))), 2000)
	if reGitOutput.MatchString(msg) {
		return fmt.Errorf("%w: a dependency comes from git, which mcp-audit does not fetch (npm would build it by running its prepare script): %w\n%s", ErrUnfetchable, err, msg)
	}
	if len(refused) > 0 {
		return fmt.Errorf("%w: the install asked for %s, which is not on the configured registries: %w\n%s", ErrUnfetchable, strings.Join(refused, ", "), err, msg)
	}
	return fmt.Errorf("npm install: %w\n%s", err, msg)
}

// checkFetchable refuses, before anything runs, dependencies that npm
// would fetch from git, a URL or a local path.
func checkFetchable(pkg string, deps map[string]string) error {
	names := make([]string, 0, len(deps))
	for n := range deps {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if kind := unfetchableKind(deps[n]); kind != "" {
			return fmt.Errorf("%w: %q depends on %q from %s (%q); mcp-audit installs only what the configured registries serve, and npm would build it by running its prepare script; publish it to a registry or vendor it in node_modules", ErrUnfetchable, textsafe.Clip(pkg, 200), textsafe.Clip(n, 200), kind, textsafe.Clip(deps[n], 200))
		}
	}
	return nil
}

var reShorthand = regexp.MustCompile(`^[A-Za-z0-9][\w.-]*/[\w.-]+(#.*)?$`)

// unfetchableKind names the source of a dependency spec that is not a
// registry version, range, tag or alias.
func unfetchableKind(spec string) string {
	s := strings.TrimSpace(spec)
	switch {
	case strings.HasPrefix(s, "git+"), strings.HasPrefix(s, "git:"), strings.HasPrefix(s, "github:"),
		strings.HasPrefix(s, "gitlab:"), strings.HasPrefix(s, "bitbucket:"), strings.HasPrefix(s, "gist:"),
		strings.HasSuffix(strings.SplitN(s, "#", 2)[0], ".git"), reShorthand.MatchString(s):
		return "git"
	case strings.HasPrefix(s, "http:"), strings.HasPrefix(s, "https:"):
		return "a URL"
	case strings.HasPrefix(s, "file:"), strings.HasPrefix(s, "link:"), strings.HasPrefix(s, "/"),
		strings.HasPrefix(s, "./"), strings.HasPrefix(s, "../"), strings.HasPrefix(s, "~/"):
		return "a local path"
	}
	return ""
}

// ExtractTree unpacks an install container's tar stream (entries under
// top/) into dst, which must not exist. It is hostile input: no absolute
// paths, no "..", nothing written through a symlink, symlinks only to
// relative targets inside the tree, no hard links or devices, bounded in
// size and count.
func ExtractTree(r io.Reader, dst, top string) error {
	if err := os.MkdirAll(dst, 0o755); err != nil {
		return err
	}
	tr := tar.NewReader(r)
	var total int64
	links := map[string]bool{}
	for files := 0; ; files++ {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if files > maxTarballFiles {
			return errors.New("too many files")
		}
		rel, ok := treePath(hdr.Name, top)
		if !ok {
			continue
		}
		for p := path.Dir(rel); p != "."; p = path.Dir(p) {
			if links[p] {
				return fmt.Errorf("entry %q goes through a symlink", hdr.Name)
			}
		}
		target := filepath.Join(dst, filepath.FromSlash(rel))
		switch hdr.Typeflag {
		case tar.TypeDir:
			if err := os.MkdirAll(target, 0o755); err != nil {
				return err
			}
		case tar.TypeReg:
			if total += hdr.Size; total > maxTarballBytes {
				return errors.New("installed tree beyond 1 GiB")
			}
			if err := writeFile(target, tr, hdr, os.O_EXCL); err != nil {
				return err
			}
		case tar.TypeSymlink:
			if !insideTree(rel, hdr.Linkname) {
				continue // npm makes only relative links inside node_modules
			}
			if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
				return err
			}
			if err := os.Symlink(hdr.Linkname, target); err != nil {
				return err
			}
			links[rel] = true
		}
	}
}

// treePath maps a tar entry name to a clean path below top, or !ok.
func treePath(name, top string) (string, bool) {
	clean := path.Clean("/" + name)[1:]
	rel, ok := strings.CutPrefix(clean, top+"/")
	if !ok || rel == "" || strings.HasPrefix(rel, "../") || rel == ".." {
		return "", false
	}
	return rel, true
}

// insideTree reports whether a symlink at rel pointing to link stays inside
// the tree.
func insideTree(rel, link string) bool {
	if link == "" || path.IsAbs(link) {
		return false
	}
	// ".." only as a leading run ("../pkg/bin.js", as npm makes): one after
	// a name could climb out through another link ("l1/.." where l1 -> ..).
	parts := strings.Split(link, "/")
	for i, p := range parts {
		if p == ".." && i > 0 && parts[i-1] != ".." {
			return false
		}
	}
	res := path.Clean(path.Join(path.Dir(rel), link))
	return res != ".." && !strings.HasPrefix(res, "../")
}

// writeFile writes one regular file of a tar stream, creating its
// directory; flag is os.O_EXCL (never replace) or os.O_TRUNC.
func writeFile(target string, r io.Reader, hdr *tar.Header, flag int) error {
	if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
		return err
	}
	mode := os.FileMode(0o644)
	if hdr.Mode&0o111 != 0 {
		mode = 0o755
	}
	out, err := os.OpenFile(target, os.O_CREATE|os.O_WRONLY|flag, mode)
	if err != nil {
		return err
	}
	_, err = io.CopyN(out, r, hdr.Size)
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	return err
}
