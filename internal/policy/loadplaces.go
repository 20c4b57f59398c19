package policy

import (
	"path"
	"regexp"
	"strings"
)

// Beyond the persistence table (classify.Persistence: the places every
// shell, git, package manager and AI client reads, critical), a write is
// persistence when the place is one that some program loads or runs code
// from later, recognized by the shape of the path rather than by a list
// of products: a directory of plugins, extensions, hooks or executables,
// an autostart or drop-in directory, an rc, init or configuration file of
// another program. The server's own data directory is exempt (owndata.go).

// loadDirs are directory names whose contents a program loads or runs.
var loadDirs = map[string]string{
	"plugins": "a plugin directory", "plugin": "a plugin directory", "ftplugin": "an editor's plugin directory",
	"ftdetect": "an editor's plugin directory", "extensions": "an extension directory", "extension": "an extension directory",
	"addons": "an add-on directory", "add-ons": "an add-on directory", "hooks": "a hooks directory",
	"autostart": "an autostart directory", "autoload": "an autoload directory", "startup": "a startup directory",
	"handlers": "a handler directory", "bin": "a directory of executables", "sbin": "a directory of executables",
	"shims": "a directory of executables", "node_modules": "a directory node loads modules from",
	"site-packages": "a directory Python imports from", "dist-packages": "a directory Python imports from",
}

var (
	// A drop-in directory: conf.d, profile.d, environment.d, bashrc.d.
	reDropIn = regexp.MustCompile(`^[a-z0-9_-]+\.d$`)
	// An rc file: .eslintrc, .eslintrc.json, .foorc, app.rc.
	reRC = regexp.MustCompile(`^\.[a-z0-9._-]*rc(\.[a-z0-9]+)?$|^[a-z0-9._-]+\.rc$`)
	// An rc file in a program's configuration directory, without the dot:
	// ~/.config/zathura/zathurarc, ~/.config/htop/htoprc.
	reBareRC = regexp.MustCompile(`^[a-z0-9._-]{2,}rc$`)
	// A configuration that is a program: vite.config.js, jest.config.ts.
	reCodeConfig = regexp.MustCompile(`\.config\.(js|cjs|mjs|ts|cts|mts)$`)
	// Another program's configuration file in the home.
	reHomeConfig = regexp.MustCompile(`^(config|settings|preferences)(\.[a-z0-9]+)?$|\.(conf|cfg|ini)$`)
	// Executable code cached for a program to run: shared libraries, node
	// add-ons, scripts, archives of programs.
	reExecutable = regexp.MustCompile(`\.(so(\.[0-9.]+)?|node|dylib|dll|exe|sh|appimage|jar)$`)
)

// loadPlace says why a normalized home or workspace path is a place
// another program loads or runs code from, "" when it is not. install
// marks the install phase: what install scripts put in ~/.cache is their
// own download (a browser, a prebuilt binary) and is not judged here.
func loadPlace(norm string, install bool) string {
	home := strings.HasPrefix(norm, "~/")
	if !home && !strings.HasPrefix(norm, "<workspace>/") {
		return ""
	}
	cache := strings.HasPrefix(norm, "~/.cache/")
	if cache && install {
		return ""
	}
	segs := strings.Split(norm, "/")
	dotted := home                            // in the workspace, only a tool's dot-directory: bin/, hooks/, node_modules/ of a project are its own build and install
	for _, s := range segs[1 : len(segs)-1] { // the directories above the file
		s = strings.ToLower(s)
		dotted = dotted || strings.HasPrefix(s, ".")
		if why := loadDirs[s]; why != "" && dotted {
			return why
		}
		if reDropIn.MatchString(s) && dotted {
			return "a drop-in directory another program reads"
		}
	}
	base := strings.ToLower(path.Base(norm))
	switch {
	case strings.HasSuffix(base, ".desktop") && home:
		return "a desktop entry (an autostart program or a handler)"
	case base == "mimeapps.list":
		return "the desktop's default handlers"
	case base == "init" || strings.HasPrefix(base, "init.") && home:
		return "an init file another program runs at start"
	case reRC.MatchString(base) || home && len(segs) > 2 && reBareRC.MatchString(base):
		return "an rc file another program reads at start"
	case reCodeConfig.MatchString(base):
		return "a configuration that runs as code"
	case home && len(segs) > 2 && reHomeConfig.MatchString(base) && namesProgram(norm):
		return "another program's configuration"
	case cache && reExecutable.MatchString(base):
		return "a cache of executables another program runs"
	}
	return ""
}

// namesProgram reports whether the directory that owns a path is named
// for some program: it has a word that is not generic. A configuration in
// ~/.mcp or ~/.config/tools belongs to nobody in particular.
func namesProgram(norm string) bool {
	dir, _, ok := appDir(norm)
	if !ok {
		return false
	}
	for _, t := range tokens(dir) {
		if len(t) >= 3 && !genericTokens[t] {
			return true
		}
	}
	return false
}
