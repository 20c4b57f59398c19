package clientconfig

import (
	"path"
	"strings"

	"github.com/Masterminds/semver/v3"

	"github.com/mcp-audit/mcp-audit/internal/target"
)

// npm's own options that npx and npm exec accept before the package.
var npxFlags = flagSet{
	value: set("-p", "--package", "-c", "--call", "--registry", "--cache", "--loglevel", "--userconfig",
		"-w", "--workspace", "--node-options", "--script-shell"),
	bool: set("-y", "--yes", "--no", "-q", "--quiet", "--silent", "--prefer-offline", "--prefer-online",
		"--offline", "--ignore-existing", "--workspaces", "--include-workspace-root", "--legacy-peer-deps", "--no-install"),
}

// mapNpx: npx [-y] [--package X]... [--] PKG[@VERSION] ARGS….
func mapNpx(prog string, args []string, depth int) mapped {
	opts, rest, err := npxFlags.scan(args)
	if err != nil {
		return unrecognised(prog, "%v", err)
	}
	if c := values(opts, "-c", "--call"); len(c) > 0 {
		// npx -p PKG -c 'BIN ARGS': a shell line running a bin of PKG.
		line := c[len(c)-1]
		m := unrecognised(prog, "%s --call runs a shell line with the bins of no named package", prog)
		if strings.ContainsAny(line, shellMeta) {
			m = unrecognised(prog, "the shell line uses quoting, variables, pipes or redirections, which mcp-audit does not interpret")
		} else if pkgs := values(opts, "-p", "--package"); len(pkgs) > 0 {
			m = npmRun(prog, pkgs, strings.Fields(line))
		}
		m.warn(WarnShell, "%s --call runs its command through a shell", prog)
		return m
	}
	m := npmRun(prog, values(opts, "-p", "--package"), rest)
	if r := values(opts, "--registry"); len(r) > 0 {
		m.warn(WarnNote, "the client installs from its own registry (--registry); the audit uses mcp-audit's registry configuration")
	}
	return m
}

// npmRun maps a package runner's package options and positional
// arguments: with one --package, the first positional is the executable.
func npmRun(prog string, pkgs, rest []string) mapped {
	switch {
	case len(pkgs) > 1:
		return unrecognised(prog, "several --package options: which package is the server cannot be told")
	case len(pkgs) == 1:
		m := npmPackage(prog, pkgs[0])
		if len(rest) > 0 {
			m.bin, m.args = rest[0], rest[1:]
		}
		if m.kind == KindNPM && m.bin == path.Base(m.pkg) {
			m.bin = "" // the package's own bin, run by default
		}
		return m
	case len(rest) == 0:
		return unrecognised(prog, "no package is named")
	}
	m := npmPackage(prog, rest[0])
	m.args = rest[1:]
	return m
}

// npmPackage maps an npm package spec: NAME[@VERSION|RANGE|TAG], a local
// directory or tarball; git, URL and alias specs are not audited by
// version and are unrecognised.
func npmPackage(prog, spec string) mapped {
	switch {
	case isPathLike(spec) || strings.HasSuffix(spec, ".tgz") || strings.HasPrefix(spec, "file:"):
		return mapped{kind: KindLocal, local: strings.TrimPrefix(spec, "file:")}
	case strings.Contains(spec, ":") || strings.Contains(spec, "/") && !strings.HasPrefix(spec, "@"):
		return unrecognised(prog, "%s is a git, URL or alias package, which has no registry version to audit", quoteName(spec))
	}
	s, err := target.ParseSpec(target.EcosystemNamed(KindNPM).Spec(spec))
	if err != nil {
		return unrecognised(prog, "%s is not an npm package name", quoteName(spec))
	}
	m := mapped{kind: KindNPM, pkg: s.Name, version: s.Range}
	if msg := npmUnpinned(s.Range); msg != "" {
		m.warn(WarnUnpinned, "%s: %s", s.Name, msg)
	}
	return m
}

// npmUnpinned says why an npm version is not pinned ("" when it is).
func npmUnpinned(v string) string {
	switch {
	case v == "":
		return "no version: the client runs whatever release is newest when it starts (write NAME@VERSION)"
	case v == "latest":
		return "@latest: the client runs whatever release is newest when it starts (write NAME@VERSION)"
	}
	if _, err := semver.StrictNewVersion(v); err == nil {
		return ""
	}
	return "@" + quoteName(v) + " is a range or dist-tag: a new release runs without review (write an exact version)"
}

// mapNpm: npm exec (or npm x) as npx.
func mapNpm(prog string, args []string, depth int) mapped {
	if len(args) > 0 && (args[0] == "exec" || args[0] == "x") {
		return mapNpx("npm "+args[0], args[1:], depth)
	}
	return unrecognised(prog, "only npm exec is mapped (npm run and npm start run a local package's scripts)")
}

var pnpmDlxFlags = flagSet{
	value: set("--package", "--allow-build", "--reporter"),
	bool:  set("-c", "--shell-mode", "--silent", "-s"),
}

// mapPnpm: pnpm dlx [--package X] PKG ARGS….
func mapPnpm(prog string, args []string, depth int) mapped {
	if len(args) > 0 && args[0] == "dlx" {
		return mapPnpmDlx("pnpm dlx", args[1:], depth)
	}
	return unrecognised(prog, "only pnpm dlx is mapped")
}

func mapPnpmDlx(prog string, args []string, depth int) mapped {
	opts, rest, err := pnpmDlxFlags.scan(args)
	if err != nil {
		return unrecognised(prog, "%v", err)
	}
	if has(opts, "-c", "--shell-mode") {
		m := mapScript(prog, strings.Join(rest, " "), depth)
		m.warn(WarnShell, "%s --shell-mode runs its command through a shell", prog)
		return m
	}
	return npmRun(prog, values(opts, "--package"), rest)
}

var bunxFlags = flagSet{
	value: set("-p", "--package"),
	bool:  set("--bun", "--silent", "--verbose", "--no-install"),
}

// mapBunx: bunx [--bun] [-p X] PKG[@VERSION] ARGS….
func mapBunx(prog string, args []string, _ int) mapped {
	opts, rest, err := bunxFlags.scan(args)
	if err != nil {
		return unrecognised(prog, "%v", err)
	}
	return npmRun(prog, values(opts, "-p", "--package"), rest)
}

// mapBun: bun x as bunx; bun [run] FILE as a local server.
func mapBun(prog string, args []string, depth int) mapped {
	switch {
	case len(args) > 0 && args[0] == "x":
		return mapBunx("bun x", args[1:], depth)
	case len(args) > 1 && args[0] == "run" && isScript(args[1]):
		return mapped{kind: KindLocal, local: args[1], args: args[2:]}
	case len(args) > 0 && isScript(args[0]):
		return mapped{kind: KindLocal, local: args[0], args: args[1:]}
	}
	return unrecognised(prog, "only bun x and bun FILE are mapped")
}

var yarnDlxFlags = flagSet{value: set("-p", "--package"), bool: set("-q", "--quiet")}

// mapYarn: yarn dlx [-p X] PKG ARGS….
func mapYarn(prog string, args []string, _ int) mapped {
	if len(args) == 0 || args[0] != "dlx" {
		return unrecognised(prog, "only yarn dlx is mapped")
	}
	opts, rest, err := yarnDlxFlags.scan(args[1:])
	if err != nil {
		return unrecognised("yarn dlx", "%v", err)
	}
	return npmRun("yarn dlx", values(opts, "-p", "--package"), rest)
}

// node's options that take a value, and those that run inline code.
var nodeFlags = flagSet{
	value: set("-r", "--require", "--import", "--loader", "--experimental-loader", "-C", "--conditions", "--env-file", "--title"),
	bool: set("--no-warnings", "--enable-source-maps", "--experimental-modules", "--no-deprecation", "--trace-warnings",
		"--inspect", "--experimental-strip-types", "--experimental-specifier-resolution", "--preserve-symlinks"),
}

// mapNode: node [OPTIONS] SCRIPT ARGS…: a local server, except npm's own
// npx-cli.js and npm-cli.js (how Windows configurations often run npx).
func mapNode(prog string, args []string, depth int) mapped {
	var kept []string
	for _, a := range args {
		// --max-old-space-size=4096 and the like: any --name=value.
		if strings.HasPrefix(a, "--") && strings.Contains(a, "=") {
			continue
		}
		kept = append(kept, a)
	}
	opts, rest, err := nodeFlags.scan(kept)
	if err != nil {
		return unrecognised(prog, "%v", err)
	}
	if len(rest) == 0 {
		return unrecognised(prog, "no script is named (node -e and node -p run inline code, which is not audited)")
	}
	switch path.Base(strings.ReplaceAll(rest[0], `\`, "/")) {
	case "npx-cli.js":
		return mapNpx("npx", rest[1:], depth)
	case "npm-cli.js":
		return mapNpm("npm", rest[1:], depth)
	}
	m := mapped{kind: KindLocal, local: rest[0], args: rest[1:]}
	if len(values(opts, "--env-file")) > 0 {
		m.warn(WarnNote, "the variables of node --env-file are not read; name them in canary_env if the server needs them")
	}
	return m
}

// isScript: a path, or a file name with a script extension.
func isScript(s string) bool {
	if isPathLike(s) {
		return true
	}
	for _, ext := range []string{".js", ".mjs", ".cjs", ".ts", ".mts", ".py"} {
		if strings.HasSuffix(s, ext) {
			return true
		}
	}
	return false
}
