package clientconfig

import (
	"path"
	"strings"

	"github.com/mcp-audit/mcp-audit/internal/target"
)

// uv's options shared by uvx (uv tool run) and uv run.
var (
	uvValue = []string{"--python", "-p", "--index", "--default-index", "--index-url", "-i", "--extra-index-url",
		"--find-links", "-f", "--directory", "--project", "--config-file", "--cache-dir", "--color",
		"--refresh-package", "--reinstall-package", "--upgrade-package", "-P", "--exclude-newer", "--prerelease",
		"--resolution", "--index-strategy", "--keyring-provider", "--link-mode", "--env-file", "--constraints", "-c",
		"--overrides", "--build-constraints", "-b", "--python-preference", "--allow-insecure-host",
		"--with", "-w", "--with-editable", "--with-requirements"}
	uvBool = []string{"--isolated", "-q", "--quiet", "-v", "--verbose", "--offline", "--no-cache", "-n", "--refresh",
		"-U", "--upgrade", "--reinstall", "--native-tls", "--no-progress", "--no-config", "--no-python-downloads",
		"--compile-bytecode", "--no-build", "--no-binary", "--no-sources", "--no-build-isolation", "--no-env-file",
		"--managed-python", "--no-managed-python", "--preview"}
	uvxFlags   = flagSet{value: set(append([]string{"--from"}, uvValue...)...), bool: set(uvBool...)}
	uvRunFlags = flagSet{
		value: set(append([]string{"--package", "--extra", "--group", "--only-group", "--no-group"}, uvValue...)...),
		bool: set(append([]string{"--no-project", "--frozen", "--locked", "--no-sync", "--active", "--script", "-s",
			"--no-dev", "--all-extras", "--module", "-m", "--exact", "--gui-script"}, uvBool...)...),
	}
	uvGlobalFlags = flagSet{value: set("--directory", "--project", "--cache-dir", "--config-file", "--color", "--python-preference"),
		bool: set(uvBool...)}
)

// mapUvx: uvx [--from SPEC] PKG[==VERSION|@VERSION] ARGS….
func mapUvx(prog string, args []string, _ int) mapped {
	opts, rest, err := uvxFlags.scan(args)
	if err != nil {
		return unrecognised(prog, "%v", err)
	}
	if len(rest) == 0 {
		return unrecognised(prog, "no package is named")
	}
	spec, bin, srvArgs := rest[0], "", rest[1:]
	if from := values(opts, "--from"); len(from) > 0 {
		spec, bin = from[len(from)-1], rest[0]
	}
	m := pyPackage(prog, spec)
	m.bin, m.args = pyBin(m, bin), srvArgs
	if w := values(opts, "--with", "-w", "--with-editable", "--with-requirements"); len(w) > 0 {
		m.warn(WarnNote, "the packages added with --with are installed by the client but not by the audit")
	}
	uvIndexNote(&m, opts)
	return m
}

func uvIndexNote(m *mapped, opts []option) {
	if has(opts, "--index", "--default-index", "--index-url", "-i", "--extra-index-url", "--find-links", "-f") {
		m.warn(WarnNote, "the client installs from its own index; the audit uses mcp-audit's index configuration (--index-url, PIP_INDEX_URL)")
	}
}

// pyBin drops an executable named like the package (the default).
func pyBin(m mapped, bin string) string {
	if m.kind == KindPyPI && target.NormalizePyName(bin) == target.NormalizePyName(m.pkg) {
		return ""
	}
	return bin
}

// pyPackage maps a PyPI requirement: NAME, NAME==1.0, NAME>=1, NAME@1.0
// (uv's spelling), NAME[extra]; paths are local, URLs and markers
// unrecognised.
func pyPackage(prog, spec string) mapped {
	switch {
	case isPathLike(spec):
		return mapped{kind: KindLocal, local: spec}
	case strings.Contains(spec, "://") || strings.HasPrefix(spec, "git+") || strings.Contains(spec, " @ "):
		return unrecognised(prog, "%s is a URL or version-control requirement, which has no index version to audit", quoteName(spec))
	case strings.Contains(spec, ";"):
		return unrecognised(prog, "%s has an environment marker, which a target cannot carry", quoteName(spec))
	}
	var m mapped
	name, ver := spec, ""
	if i := strings.IndexAny(spec, "=<>!~@"); i > 0 {
		name, ver = strings.TrimSpace(spec[:i]), strings.ReplaceAll(spec[i:], " ", "")
	}
	if i := strings.Index(name, "["); i > 0 && strings.HasSuffix(name, "]") {
		m.warn(WarnNote, "the extras %s are installed by the client but not by the audit", quoteName(name[i:]))
		name = name[:i]
	}
	if v, ok := strings.CutPrefix(ver, "@"); ok {
		ver = "==" + v
		if v == "latest" {
			ver = ""
		}
	}
	s, err := target.ParseSpec(target.EcosystemNamed(KindPyPI).SpecAt(name, ver))
	if err != nil {
		return unrecognised(prog, "%s is not a PyPI requirement mcp-audit can audit", quoteName(spec))
	}
	m.kind, m.pkg, m.version = KindPyPI, s.Name, s.Range
	switch {
	case ver == "":
		m.warn(WarnUnpinned, "%s: no version: the client runs whatever release is newest when it starts (write NAME==VERSION)", s.Name)
	case !strings.HasPrefix(ver, "==") || strings.ContainsAny(ver, "*,") || strings.HasPrefix(ver, "==="):
		m.warn(WarnUnpinned, "%s: %s is a range: a new release runs without review (write NAME==VERSION)", s.Name, quoteName(ver))
	}
	return m
}

// mapUv: uv [GLOBAL OPTIONS] (tool run … | run …).
func mapUv(prog string, args []string, depth int) mapped {
	gopts, rest, err := uvGlobalFlags.scan(args)
	if err != nil {
		return unrecognised(prog, "%v", err)
	}
	switch {
	case len(rest) >= 2 && rest[0] == "tool" && rest[1] == "run":
		return mapUvx("uv tool run", rest[2:], depth)
	case len(rest) >= 1 && rest[0] == "run":
		return mapUvRun(values(gopts, "--directory", "--project"), rest[1:], depth)
	}
	return unrecognised(prog, "only uv run and uv tool run are mapped")
}

// mapUvRun: uv run --with PKG CMD (a PyPI package), uv run [--directory
// DIR] SCRIPT.py or CMD (a local project).
func mapUvRun(dirs, args []string, depth int) mapped {
	const prog = "uv run"
	opts, rest, err := uvRunFlags.scan(args)
	if err != nil {
		return unrecognised(prog, "%v", err)
	}
	dirs = append(dirs, values(opts, "--directory", "--project")...)
	with := values(opts, "--with", "-w")
	if len(rest) == 0 {
		return unrecognised(prog, "no command is named")
	}
	switch {
	case len(with) == 1 && !isScript(rest[0]) && len(dirs) == 0:
		m := pyPackage(prog, with[0])
		if isPython(progName(rest[0])) && len(rest) > 2 && rest[1] == "-m" {
			rest = rest[2:]
		}
		m.bin, m.args = pyBin(m, rest[0]), rest[1:]
		return m
	case len(with) > 1:
		return unrecognised(prog, "several --with packages: which one is the server cannot be told")
	case isScript(rest[0]) && len(dirs) > 0 && !isPathLike(rest[0]):
		return mapped{kind: KindLocal, local: path.Join(dirs[len(dirs)-1], rest[0]), args: rest[1:]}
	case isScript(rest[0]):
		return mapped{kind: KindLocal, local: rest[0], args: rest[1:]}
	case len(dirs) > 0:
		return mapped{kind: KindLocal, local: dirs[len(dirs)-1], bin: rest[0], args: rest[1:]}
	}
	return unrecognised(prog, "uv run runs %s from the project of the client's working directory, which is not known; name the directory with --directory", quoteName(rest[0]))
}

var pipxRunFlags = flagSet{
	value: set("--spec", "--python", "--pip-args", "--index-url", "--backend"),
	bool:  set("--no-cache", "--system-site-packages", "--verbose", "-v", "--quiet", "-q", "--path", "--pypackages", "-e", "--editable"),
}

// mapPipx: pipx run [--spec SPEC] PKG ARGS….
func mapPipx(prog string, args []string, _ int) mapped {
	if len(args) == 0 || args[0] != "run" {
		return unrecognised(prog, "only pipx run is mapped")
	}
	opts, rest, err := pipxRunFlags.scan(args[1:])
	if err != nil {
		return unrecognised("pipx run", "%v", err)
	}
	if len(rest) == 0 {
		return unrecognised("pipx run", "no package is named")
	}
	spec, bin, srvArgs := rest[0], "", rest[1:]
	if s := values(opts, "--spec"); len(s) > 0 {
		spec, bin = s[len(s)-1], rest[0]
	}
	m := pyPackage("pipx run", spec)
	m.bin, m.args = pyBin(m, bin), srvArgs
	if has(opts, "--index-url") {
		m.warn(WarnNote, "the client installs from its own index; the audit uses mcp-audit's index configuration (--index-url, PIP_INDEX_URL)")
	}
	return m
}

var pythonBool = set("-u", "-B", "-O", "-OO", "-E", "-s", "-S", "-I", "-P", "-q", "-b", "-bb", "-v", "-R")

// mapPython: python -m MODULE (the module taken as the PyPI project, with
// a note) or python SCRIPT (local).
func mapPython(prog string, args []string) mapped {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-m" && i+1 < len(args):
			return pyModule(prog, args[i+1], args[i+2:])
		case a == "-c":
			return unrecognised(prog, "python -c runs inline code, which is not audited")
		case a == "-X" || a == "-W" || a == "--check-hash-based-pycs":
			i++
		case pythonBool[a] || strings.HasPrefix(a, "-X") || strings.HasPrefix(a, "-W"):
		case strings.HasPrefix(a, "-"):
			return unrecognised(prog, "option %s is not one mcp-audit knows", quoteName(a))
		default:
			return mapped{kind: KindLocal, local: a, args: args[i+1:]}
		}
	}
	return unrecognised(prog, "no script or module is named")
}

func pyModule(prog, module string, args []string) mapped {
	if strings.Contains(module, ".") || module == "pip" || module == "uv" || module == "pipx" {
		return unrecognised(prog, "-m %s: the PyPI project of this module cannot be told from its name", quoteName(module))
	}
	m := pyPackage(prog, module)
	if m.kind != KindPyPI {
		return m
	}
	m.args = args
	m.warn(WarnNote, "python -m %s: the module is taken as the PyPI project %s, installed from the index; change the target if it comes from another project", quoteName(module), m.pkg)
	return m
}
