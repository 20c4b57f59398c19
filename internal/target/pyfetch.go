package target

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/mcp-audit/mcp-audit/internal/textsafe"
)

// Kinds of Python targets.
const (
	KindPyPI  = "pypi"  // pypi:NAME[@VERSION|SPECIFIER]
	KindWheel = "wheel" // a local .whl
	KindSdist = "sdist" // a local sdist .tar.gz
	KindPyDir = "pydir" // a directory with pyproject.toml or setup.py
)

// Python layout of an installed package tree (Package.Root).
const (
	PySite   = "site"   // pip --target: the packages, bin/ the console scripts
	PyWheels = "wheels" // dependency wheels for the install phase's build
	PySource = "src"    // the sdist or source directory to build
	// PyBuildReqs lists the build requirements the install phase installs
	// from PyWheels before building.
	PyBuildReqs = "build-requirements.txt"
)

// parsePySpec parses "pypi:NAME[@SPECIFIER]" ("pypi:x@1.2", "pypi:x@>=1,<2").
func parsePySpec(s, rest string) (Spec, error) {
	name, rng, _ := strings.Cut(rest, "@")
	if !rePyName.MatchString(name) || len(name) > 200 {
		return Spec{}, fmt.Errorf("%w: %q is not a PyPI project name", ErrUsage, name)
	}
	if _, err := ParsePySpecifier(rng); err != nil {
		return Spec{}, err
	}
	return Spec{Kind: KindPyPI, Name: name, Range: rng, Raw: s}, nil
}

// localPyKind tells a local Python target apart: a wheel, an sdist, or a
// Python project directory; "" for anything else.
func localPyKind(s string, dir bool) string {
	switch {
	case dir && isPyDir(s):
		return KindPyDir
	case !dir && strings.HasSuffix(s, ".whl"):
		return KindWheel
	case !dir && strings.HasSuffix(s, ".tar.gz") && isSdist(s):
		return KindSdist
	}
	return ""
}

// fetchPython installs a Python target into a cached tree: wheels (and
// their dependencies, wheels only) in the install container; an sdist or
// source directory is copied with its dependency wheels and built later,
// traced, in the sandbox's install phase.
func (f *Fetcher) fetchPython(ctx context.Context, s Spec) (*Package, error) {
	file, kind := s.Path, s.Kind
	var uploaded time.Time
	if s.Kind == KindPyPI {
		var err error
		if file, uploaded, err = f.downloadPyPI(ctx, s); err != nil {
			return nil, err
		}
		kind = KindSdist
		if strings.HasSuffix(file, ".whl") {
			kind = KindWheel
		}
	}
	d, sum, err := readPyTarget(kind, file)
	if err != nil {
		return nil, err
	}
	final := filepath.Join(f.CacheDir, "installs", "py-"+hashString(sum))
	pkg := &Package{Name: NormalizePyName(d.Name), Version: d.Version, Integrity: sum, Root: final, Dir: PySite, Python: d,
		Published: uploaded}
	if kind != KindWheel {
		d.Build = PySource + "/" + sourceName(kind)
	}
	pkg.Manifest = d.packageJSON()
	if pkg.Cached, err = f.installOnce(final, "py", func(stage string) error {
		return f.stagePython(ctx, stage, kind, file, d)
	}); err != nil {
		return nil, err
	}
	return pkg, f.readInstalledScripts(pkg)
}

func sourceName(kind string) string {
	if kind == KindSdist {
		return "sdist.tar.gz"
	}
	return "project"
}

// readPyTarget reads a local target's metadata and digest.
func readPyTarget(kind, file string) (*PyDist, string, error) {
	var d *PyDist
	var err error
	switch kind {
	case KindWheel:
		d, err = readWheel(file)
	case KindSdist:
		d, err = readSdist(file)
	case KindPyDir:
		d, err = readPyDir(file)
		if err == nil {
			sum, herr := hashDir(file)
			return d, sum, herr
		}
	}
	if err != nil {
		return nil, "", err
	}
	sum, err := fileSHA256(file)
	return d, "sha256-" + base64.StdEncoding.EncodeToString(sum), err
}

func fileSHA256(file string) ([]byte, error) {
	fh, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	h := sha256.New()
	if _, err := io.Copy(h, io.LimitReader(fh, maxTarballBytes)); err != nil {
		return nil, err
	}
	return h.Sum(nil), nil
}

// packageJSON presents the distribution the way the rest of mcp-audit
// reads packages: its console scripts as bins under site/bin.
func (d *PyDist) packageJSON() PackageJSON {
	bins := map[string]string{}
	for n := range d.Scripts {
		bins[n] = "bin/" + n
	}
	if len(bins) == 0 {
		// Entry points declared only in setup.py cannot be read without
		// running it: assume the script is named like the project.
		bins[NormalizePyName(d.Name)] = "bin/" + NormalizePyName(d.Name)
	}
	b, _ := json.Marshal(bins)
	return PackageJSON{Name: NormalizePyName(d.Name), Version: d.Version, Bin: b, Homepage: d.Homepage}
}

// readInstalledScripts refreshes the bins from the installed wheel's
// entry points (an installed tree is what runs).
func (f *Fetcher) readInstalledScripts(pkg *Package) error {
	if pkg.Python.Build != "" {
		return nil
	}
	m, _ := filepath.Glob(filepath.Join(pkg.Root, PySite, "*.dist-info", "entry_points.txt"))
	for _, ep := range m {
		if b, err := readBounded(ep); err == nil && strings.EqualFold(NormalizePyName(strings.SplitN(filepath.Base(filepath.Dir(ep)), "-", 2)[0]), pkg.Name) {
			pkg.Python.readEntryPoints(b, false)
		}
	}
	pkg.Manifest = pkg.Python.packageJSON()
	return nil
}

// stagePython lays out stage and runs the install container.
func (f *Fetcher) stagePython(ctx context.Context, stage, kind, file string, d *PyDist) error {
	for _, dir := range []string{PySite, PyWheels, PySource, "dist"} {
		if err := os.MkdirAll(filepath.Join(stage, dir), 0o755); err != nil {
			return err
		}
	}
	switch kind {
	case KindWheel:
		// The wheel keeps its name: pip reads its tags from it.
		name := filepath.Base(file)
		if !reWheelFile.MatchString(name) {
			return fmt.Errorf("%w: %q is not a wheel file name", ErrUsage, name)
		}
		if err := copyFile(file, filepath.Join(stage, "dist", name)); err != nil {
			return err
		}
		return f.pipInstall(ctx, stage, []string{"install", "--no-compile", "--target", "/work/" + PySite, "/work/dist/" + name}, true)
	case KindSdist:
		if err := copyFile(file, filepath.Join(stage, PySource, sourceName(kind))); err != nil {
			return err
		}
	case KindPyDir:
		if err := copyTree(file, filepath.Join(stage, PySource, sourceName(kind)), false); err != nil {
			return err
		}
	}
	return f.stageBuild(ctx, stage, d)
}

var reWheelFile = regexp.MustCompile(`^[A-Za-z0-9_.]+-[A-Za-z0-9_.!+]+(-[0-9][A-Za-z0-9_.]*)?-[A-Za-z0-9_.]+-[A-Za-z0-9_.]+-[A-Za-z0-9_.]+\.whl$`)

// stageBuild downloads, as wheels, what building the source needs: its
// build requirements (setuptools and wheel come with the image) and its
// statically declared dependencies.
func (f *Fetcher) stageBuild(ctx context.Context, stage string, d *PyDist) error {
	var build, all []string
	for _, r := range d.BuildRequires {
		if err := checkPyRequirement(d.Name, r); err != nil {
			return err
		}
		if n := NormalizePyName(reqName(r)); n != "setuptools" && n != "wheel" {
			build = append(build, r)
		}
	}
	for _, r := range d.Requires {
		if err := checkPyRequirement(d.Name, r); err != nil {
			return err
		}
	}
	all = append(append(all, build...), d.Requires...)
	if err := os.WriteFile(filepath.Join(stage, PyBuildReqs), []byte(strings.Join(build, "\n")+"\n"), 0o644); err != nil {
		return err
	}
	if len(all) == 0 {
		return nil
	}
	return f.pipInstall(ctx, stage, append([]string{"download", "--dest", "/work/" + PyWheels}, all...), false)
}

var reReqName = regexp.MustCompile(`^\s*([A-Za-z0-9][A-Za-z0-9._-]*)`)

func reqName(r string) string {
	if m := reReqName.FindStringSubmatch(r); m != nil {
		return m[1]
	}
	return ""
}

// checkPyRequirement refuses requirements pip would fetch from a URL, a
// path or version control (PEP 508 direct references, options).
func checkPyRequirement(pkg, r string) error {
	name := reqName(r)
	spec := strings.SplitN(r, ";", 2)[0]
	if name == "" || strings.Contains(spec, "@") || strings.Contains(spec, "://") || strings.ContainsAny(r, "\n\r") {
		return fmt.Errorf("%w: %q requires %q, which is not a registry requirement; mcp-audit installs only what the configured index serves", ErrUnfetchable, pkg, r)
	}
	return nil
}

// pipInstall runs pip (install or download, wheels only) in the install
// container, through the PyPI gate; compile byte-compiles the installed
// tree with hashes, so the read-only tree in the sandbox is never
// recompiled.
func (f *Fetcher) pipInstall(ctx context.Context, dir string, args []string, compile bool) error {
	if f.Installer == nil {
		return errors.New("installing Python packages needs the container engine: no package manager runs on the host")
	}
	gate := newPyPIGate(f.PyPI, f.pyHTTP())
	script := `python3 -m pip "$@"`
	if compile {
		script += ` && python3 -m compileall -q --invalidation-mode unchecked-hash /work/` + PySite
	}
	f.log().Info("installing", "pip", args[0], "binaries", "only", "where", "install container")
	out, err := f.Installer.Install(ctx, InstallJob{
		Dir: dir, Timeout: 10 * time.Minute, Gate: gate.handler,
		Argv: func(base string) []string {
			return append([]string{"sh", "-c", script, "pip", args[0], "--isolated", "--no-cache-dir",
				"--disable-pip-version-check", "--no-input", "--only-binary=:all:", "--index-url", gate.indexURL(base),
				"--trusted-host", gateHost(base)}, args[1:]...)
		},
	})
	if err == nil {
		return nil
	}
	out = gate.unrewrite(out)
	if refused := gate.Refused(); len(refused) > 0 {
		return installError(err, out, refused)
	}
	return fmt.Errorf("pip %s: %w\n%s", args[0], err, textsafe.Tail(textsafe.Clean(strings.TrimSpace(string(out))), 2000))
}

// gateHost is the gate's host[:port] for pip's --trusted-host: the gate
// speaks plain HTTP on the install container's own bridge (its upstream
// requests use the index's scheme), and pip ignores an http index unless
// its host is trusted, so without it no dependency would ever resolve.
func gateHost(base string) string {
	if u, err := url.Parse(base); err == nil && u.Host != "" {
		return u.Host
	}
	return base
}

func (f *Fetcher) pyHTTP() *http.Client {
	if f.PyPIHTTP != nil {
		return f.PyPIHTTP
	}
	return http.DefaultClient
}

// downloadPyPI resolves a pypi: spec against the simple index and
// downloads the chosen file (verified by its sha256) into the cache. It
// returns the file and when the index says the version was first
// uploaded (zero when it does not say).
func (f *Fetcher) downloadPyPI(ctx context.Context, s Spec) (string, time.Time, error) {
	files, err := PyPIFiles(ctx, f.pyHTTP(), f.PyPI, s.Name)
	if err != nil {
		return "", time.Time{}, err
	}
	pick, err := PickPyFile(files, s.Range, f.Prerelease)
	if err != nil {
		return "", time.Time{}, fmt.Errorf("%s: %w", s.Raw, err)
	}
	file, err := f.downloadPick(ctx, s, pick)
	return file, PyUploaded(files, pick.Version.String()), err
}

func (f *Fetcher) downloadPick(ctx context.Context, s Spec, pick PyFile) (string, error) {
	if _, err := hex.DecodeString(pick.SHA256); err != nil || len(pick.SHA256) != 64 {
		return "", fmt.Errorf("%s: %s: %w", s.Name, pick.Filename, errNoHash)
	}
	name := filepath.Base(pick.Filename)
	if strings.HasSuffix(name, ".tar.gz") {
		name = "sdist.tar.gz"
	} else if !reWheelFile.MatchString(name) {
		return "", fmt.Errorf("%s: %q is not a wheel file name", s.Name, pick.Filename)
	}
	dst := filepath.Join(f.CacheDir, "downloads", "pypi", strings.ToLower(pick.SHA256), name)
	if got, err := fileSHA256(dst); err == nil && hex.EncodeToString(got) == strings.ToLower(pick.SHA256) {
		return dst, nil
	}
	f.log().Info("downloading", "file", pick.Filename, "version", pick.Version.String())
	return dst, f.download(ctx, pick, dst)
}

func (f *Fetcher) download(ctx context.Context, pick PyFile, dst string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, pick.URL, nil)
	if err != nil {
		return err
	}
	if f.PyPI.user != "" && strings.HasPrefix(pick.URL, f.PyPI.Index) {
		req.SetBasicAuth(f.PyPI.user, f.PyPI.password)
	}
	res, err := f.pyHTTP().Do(req)
	if err != nil {
		return fmt.Errorf("downloading %s: %w", pick.Filename, err)
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return fmt.Errorf("downloading %s: %s", pick.Filename, res.Status)
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(dst), ".part-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	h := sha256.New()
	_, err = io.Copy(io.MultiWriter(tmp, h), io.LimitReader(res.Body, maxTarballBytes))
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("downloading %s: %w", pick.Filename, err)
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != strings.ToLower(pick.SHA256) {
		return fmt.Errorf("integrity mismatch for %s: index sha256 %s, downloaded %s", pick.Filename, pick.SHA256, got)
	}
	return os.Rename(tmp.Name(), dst)
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	_, err = io.Copy(out, io.LimitReader(in, maxTarballBytes))
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	return err
}
