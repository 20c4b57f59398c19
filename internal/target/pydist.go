package target

import (
	"archive/tar"
	"archive/zip"
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/BurntSushi/toml"
)

// PyDist is what mcp-audit reads, without running any code, from a Python
// distribution: its core metadata (METADATA, PKG-INFO), entry points and
// pyproject.toml.
type PyDist struct {
	Name    string
	Version string
	// Scripts are the console scripts, name -> "module:function".
	Scripts map[string]string
	// Requires are the runtime requirements (PEP 508), when declared
	// statically; BuildRequires those of [build-system].
	Requires      []string
	BuildRequires []string
	Homepage      string
	// Build is the source, relative to the package root, that the install
	// phase builds and installs (traced); "" for a wheel, installed in the
	// install container.
	Build string
}

// maxPyMeta bounds one metadata file read from a distribution.
const maxPyMeta = 1 << 20

// readCoreMetadata parses METADATA / PKG-INFO (RFC 822 style headers).
func (d *PyDist) readCoreMetadata(b []byte) {
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 64<<10), maxPyMeta)
	dynamic := map[string]bool{}
	var requires []string
	for sc.Scan() {
		line := sc.Text()
		if line == "" {
			break // the description body follows
		}
		k, v, ok := strings.Cut(line, ":")
		if !ok || strings.HasPrefix(line, " ") || strings.HasPrefix(line, "\t") {
			continue
		}
		v = strings.TrimSpace(v)
		switch strings.ToLower(k) {
		case "name":
			d.Name = v
		case "version":
			d.Version = v
		case "home-page":
			d.Homepage = v
		case "project-url":
			if _, u, ok := strings.Cut(v, ","); ok && d.Homepage == "" {
				d.Homepage = strings.TrimSpace(u)
			}
		case "requires-dist":
			requires = append(requires, v)
		case "dynamic":
			dynamic[strings.ToLower(v)] = true
		}
	}
	if !dynamic["requires-dist"] {
		d.Requires = requires
	}
}

// readEntryPoints reads [console_scripts] of entry_points.txt or of
// setup.cfg's [options.entry_points] (an INI value of "name = mod:fn" lines).
func (d *PyDist) readEntryPoints(b []byte, setupCfg bool) {
	section := ""
	inValue := false
	for _, raw := range strings.Split(string(b), "\n") {
		line := strings.TrimSpace(raw)
		if line == "" || strings.HasPrefix(line, "#") || strings.HasPrefix(line, ";") {
			continue
		}
		if strings.HasPrefix(line, "[") && strings.HasSuffix(line, "]") {
			section, inValue = strings.Trim(line, "[] "), false
			continue
		}
		k, v, _ := strings.Cut(line, "=")
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if setupCfg {
			if section != "options.entry_points" {
				continue
			}
			indented := raw != strings.TrimLeft(raw, " \t")
			if !indented {
				inValue = k == "console_scripts"
				if !inValue || v == "" {
					continue
				}
			} else if !inValue {
				continue
			}
			if inValue && !indented {
				k, v, _ = strings.Cut(v, "=")
				k, v = strings.TrimSpace(k), strings.TrimSpace(v)
			}
		} else if section != "console_scripts" {
			continue
		}
		d.addScript(k, v)
	}
}

var reScriptName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$`)

func (d *PyDist) addScript(name, target string) {
	if !reScriptName.MatchString(name) || target == "" {
		return
	}
	if d.Scripts == nil {
		d.Scripts = map[string]string{}
	}
	d.Scripts[name] = target
}

// pyproject is the part of pyproject.toml mcp-audit reads.
type pyproject struct {
	Project struct {
		Name         string            `toml:"name"`
		Version      string            `toml:"version"`
		Dependencies []string          `toml:"dependencies"`
		Scripts      map[string]string `toml:"scripts"`
		Dynamic      []string          `toml:"dynamic"`
		URLs         map[string]string `toml:"urls"`
	} `toml:"project"`
	BuildSystem struct {
		Requires []string `toml:"requires"`
	} `toml:"build-system"`
}

func (d *PyDist) readPyproject(b []byte) error {
	var p pyproject
	if _, err := toml.Decode(string(b), &p); err != nil {
		return fmt.Errorf("reading pyproject.toml: %w", err)
	}
	if d.Name == "" {
		d.Name = p.Project.Name
	}
	if d.Version == "" {
		d.Version = p.Project.Version
	}
	if d.Requires == nil {
		d.Requires = p.Project.Dependencies
	}
	for n, t := range p.Project.Scripts {
		d.addScript(n, t)
	}
	if d.Homepage == "" {
		keys := make([]string, 0, len(p.Project.URLs))
		for k := range p.Project.URLs {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if strings.EqualFold(k, "homepage") || d.Homepage == "" {
				d.Homepage = p.Project.URLs[k]
			}
		}
	}
	d.BuildRequires = p.BuildSystem.Requires
	return nil
}

// readWheel reads a wheel's .dist-info (METADATA, entry_points.txt).
func readWheel(file string) (*PyDist, error) {
	zr, err := zip.OpenReader(file)
	if err != nil {
		return nil, fmt.Errorf("reading wheel %s: %w", filepath.Base(file), err)
	}
	defer zr.Close()
	d := &PyDist{}
	for _, f := range zr.File {
		dir, base := path.Split(f.Name)
		if !strings.HasSuffix(dir, ".dist-info/") || strings.Count(dir, "/") != 1 {
			continue
		}
		if base != "METADATA" && base != "entry_points.txt" {
			continue
		}
		b, err := readZipFile(f)
		if err != nil {
			return nil, err
		}
		if base == "METADATA" {
			d.readCoreMetadata(b)
		} else {
			d.readEntryPoints(b, false)
		}
	}
	if d.Name == "" || d.Version == "" {
		return nil, fmt.Errorf("%w: %s is not a wheel (no .dist-info/METADATA)", ErrUsage, filepath.Base(file))
	}
	return d, nil
}

func readZipFile(f *zip.File) ([]byte, error) {
	rc, err := f.Open()
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	return io.ReadAll(io.LimitReader(rc, maxPyMeta))
}

// pySourceFiles are the files of a source tree's top directory read for
// metadata.
var pySourceFiles = []string{"PKG-INFO", "pyproject.toml", "setup.cfg"}

// readSdist reads PKG-INFO, pyproject.toml and setup.cfg from the top
// directory of an sdist.
func readSdist(file string) (*PyDist, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	files, _, err := sdistTop(f, pySourceFiles)
	if err != nil {
		return nil, fmt.Errorf("reading sdist %s: %w", filepath.Base(file), err)
	}
	return pySource(files, filepath.Base(file))
}

// readPyDir reads a source directory's metadata files.
func readPyDir(dir string) (*PyDist, error) {
	files := map[string][]byte{}
	for _, n := range pySourceFiles {
		if b, err := readBounded(filepath.Join(dir, n)); err == nil {
			files[n] = b
		}
	}
	return pySource(files, filepath.Base(dir))
}

func readBounded(file string) ([]byte, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, maxPyMeta))
}

func pySource(files map[string][]byte, what string) (*PyDist, error) {
	d := &PyDist{}
	if b, ok := files["PKG-INFO"]; ok {
		d.readCoreMetadata(b)
	}
	if b, ok := files["pyproject.toml"]; ok {
		if err := d.readPyproject(b); err != nil {
			return nil, fmt.Errorf("%w: %s: %v", ErrUsage, what, err)
		}
	}
	if b, ok := files["setup.cfg"]; ok {
		d.readEntryPoints(b, true)
	}
	if d.Name == "" {
		return nil, fmt.Errorf("%w: %s declares no project name (PKG-INFO or pyproject.toml [project])", ErrUsage, what)
	}
	return d, nil
}

// sdistTop reads the named files from the single top directory of a
// .tar.gz (bounded). markers reports which of them, or package.json, exist
// there, so a Python sdist and an npm tarball can be told apart.
func sdistTop(r io.Reader, names []string) (files map[string][]byte, seen map[string]bool, err error) {
	gz, err := gzip.NewReader(r)
	if err != nil {
		return nil, nil, err
	}
	tr := tar.NewReader(gz)
	files, seen = map[string][]byte{}, map[string]bool{}
	for n := 0; n < maxTarballFiles; n++ {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, nil, err
		}
		clean := path.Clean("/" + hdr.Name)[1:]
		parts := strings.Split(clean, "/")
		if len(parts) != 2 || hdr.Typeflag != tar.TypeReg {
			continue
		}
		seen[parts[1]] = true
		for _, want := range names {
			if parts[1] == want {
				b, err := io.ReadAll(io.LimitReader(tr, maxPyMeta))
				if err != nil {
					return nil, nil, err
				}
				files[want] = b
			}
		}
	}
	return files, seen, nil
}

// isSdist reports whether a .tar.gz is a Python source distribution (its
// top directory holds PKG-INFO, pyproject.toml or setup.py, and no
// package.json).
func isSdist(file string) bool {
	f, err := os.Open(file)
	if err != nil {
		return false
	}
	defer f.Close()
	_, seen, err := sdistTop(f, nil)
	return err == nil && !seen["package.json"] && (seen["PKG-INFO"] || seen["pyproject.toml"] || seen["setup.py"])
}

// isPyDir reports whether dir is a Python project (pyproject.toml or
// setup.py, and no package.json).
func isPyDir(dir string) bool {
	has := func(n string) bool { _, err := os.Stat(filepath.Join(dir, n)); return err == nil }
	return !has("package.json") && (has("pyproject.toml") || has("setup.py"))
}
