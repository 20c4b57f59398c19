package classify

import (
	"path"
	"regexp"
	"strings"

	m "github.com/mcp-audit/mcp-audit/internal/manifest"
)

// Layout says where things live inside the sandbox, so that paths can be
// normalized to stable names and put in categories.
type Layout struct {
	Home      string // /home/dev
	Workspace string // /home/dev/workspace
	PkgRoot   string // the server package's root directory
	AppRoot   string // the install root holding node_modules, "" if none
	Runtime   string // the node binary
	// Instruments are directories of mcp-audit's own instruments that the
	// server's runtime writes (node's V8 coverage): accesses that stay
	// inside them are not the server's behavior.
	Instruments []string
}

// instrument reports a path inside one of the instruments' directories.
func (l Layout) instrument(p string) bool {
	for _, d := range l.Instruments {
		if within(p, d) {
			return true
		}
	}
	return false
}

var (
	reContainerID = regexp.MustCompile(`[0-9a-f]{64}`)
	reProcPID     = regexp.MustCompile(`^/proc/[0-9]+(/|$)`)
	reTaskTID     = regexp.MustCompile(`/task/[0-9]+(/|$)`)
	// A run of 6+ letters and digits containing both, as produced by
	// mkdtemp, os.tmpdir()+random, uuid segments.
	reRandomRun = regexp.MustCompile(`[A-Za-z0-9]{6,}`)
	reDigits    = regexp.MustCompile(`[0-9]+`)
	// Runs of 16+ hex digits (random names, hashes) and 8+ digits (timestamps).
	reLongHex    = regexp.MustCompile(`[0-9a-f]{16,}`)
	reLongDigits = regexp.MustCompile(`[0-9]{8,}`)
	reUUID       = regexp.MustCompile(`[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}`)
)

// Normalize rewrites an absolute sandbox path into its stable form: the
// package root becomes <pkg>, other installed modules <deps>, the workspace
// <workspace>, HOME ~, process ids <pid>, container ids <container>, and
// random parts of temporary names *.
func (l Layout) Normalize(p string) string {
	if p == "" {
		return p
	}
	if !strings.HasPrefix(p, "/") {
		return p
	}
	p = path.Clean(p)
	switch {
	case l.PkgRoot != "" && within(p, l.PkgRoot):
		p = "<pkg>" + strings.TrimPrefix(p, l.PkgRoot)
	case l.AppRoot != "" && within(p, l.AppRoot+"/node_modules"):
		p = "<deps>" + strings.TrimPrefix(p, l.AppRoot+"/node_modules")
	case l.AppRoot != "" && within(p, l.AppRoot):
		p = "<app>" + strings.TrimPrefix(p, l.AppRoot)
	case l.Workspace != "" && within(p, l.Workspace):
		p = "<workspace>" + strings.TrimPrefix(p, l.Workspace)
	case l.Home != "" && within(p, l.Home):
		p = "~" + strings.TrimPrefix(p, l.Home)
	}
	if hexRun(p) >= 64 {
		p = reContainerID.ReplaceAllString(p, "<container>")
	}
	if reProcPID.MatchString(p) && !strings.HasPrefix(p, "/proc/1/") && p != "/proc/1" {
		p = reProcPID.ReplaceAllString(p, "/proc/<pid>$1")
	}
	if strings.Contains(p, "/task/") {
		p = reTaskTID.ReplaceAllString(p, "/task/<tid>$1")
	}
	if isTemp(p) {
		return normalizeTemp(p)
	}
	// Atomic writes and caches use random names anywhere
	// (<pkg>/dist/memory.jsonl.3d5f…1db6.tmp): star long hex runs, UUIDs
	// and timestamps, keep the rest.
	// The regexes run only where they can match: the program under audit
	// chooses the path, and a 4 KiB path of short words would otherwise
	// cost every pattern a full NFA pass.
	if hexRun(p) < 8 {
		return p
	}
	p = reUUID.ReplaceAllString(p, "*")
	p = reLongHex.ReplaceAllString(p, "*")
	return reLongDigits.ReplaceAllString(p, "*")
}

// hexRun is the length of the longest run of hex digits in p (every
// pattern of random names needs a run of at least 8).
func hexRun(p string) int {
	best, run := 0, 0
	for i := 0; i < len(p); i++ {
		c := p[i]
		if c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' {
			run++
			best = max(best, run)
		} else {
			run = 0
		}
	}
	return best
}

func within(p, root string) bool {
	return p == root || strings.HasPrefix(p, root+"/")
}

func isTemp(p string) bool {
	return within(p, "/tmp") || within(p, "/var/tmp") || within(p, "/dev/shm")
}

func normalizeTemp(p string) string {
	parts := strings.Split(p, "/")
	for i := 2; i < len(parts); i++ {
		if !strings.ContainsAny(parts[i], "0123456789") {
			continue // every pattern below needs a digit (a UUID too, in practice)
		}
		s := reUUID.ReplaceAllString(parts[i], "*")
		s = reRandomRun.ReplaceAllStringFunc(s, func(run string) string {
			if strings.ContainsAny(run, "0123456789") && strings.IndexFunc(run, isLetter) >= 0 {
				return "*"
			}
			return run
		})
		// Pids, timestamps and counters: any digits in a temp name.
		s = reDigits.ReplaceAllString(s, "*")
		parts[i] = s
	}
	return strings.Join(parts, "/")
}

func isLetter(r rune) bool { return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' }

// Sensitive locations in a home directory ("~/"-relative prefixes).
var sensitiveHome = []string{
	"~/.ssh", "~/.aws", "~/.gnupg", "~/.config/gh", "~/.docker/config.json", "~/.netrc", "~/.npmrc",
	"~/.pypirc", "~/.kube", "~/.config/gcloud", "~/.azure", "~/.git-credentials", "~/.config/git/credentials",
	"~/.bash_history", "~/.zsh_history", "~/.python_history", "~/.node_repl_history", "~/.psql_history",
	"~/.mysql_history", "~/.local/share/keyrings", "~/.password-store", "~/.config/google-chrome",
	"~/.config/chromium", "~/.config/BraveSoftware", "~/.mozilla", "~/.config/microsoft-edge",
	"~/.bitcoin", "~/.ethereum", "~/.config/solana", "~/.electrum", "~/.terraform.d", "~/.vault-token",
	"~/.config/hub", "~/.cargo/credentials", "~/.cargo/credentials.toml", "~/.gem/credentials",
	"~/.config/op", "~/.pgpass", "~/.my.cnf", "~/.config/heroku", "~/.config/doctl", "~/.oci",
}

var sensitiveSystem = []string{
	"/etc/shadow", "/etc/gshadow", "/etc/sudoers", "/etc/sudoers.d", "/etc/ssh", "/root",
	"/var/run/docker.sock", "/run/docker.sock", "/var/run/secrets", "/run/secrets",
	"/proc/self/environ", "/proc/<pid>/environ", "/proc/1/environ", "/proc/self/mem", "/proc/<pid>/mem",
	"/proc/kcore", "/etc/kubernetes",
}

// Reads that reveal a tracer, a container or a VM.
var antiAnalysis = []string{
	"/proc/self/status", "/proc/<pid>/status", "/proc/1/cgroup", "/proc/1/sched", "/proc/1/status",
	"/proc/1/mountinfo", "/proc/self/mountinfo", "/proc/<pid>/mountinfo", "/.dockerenv",
	"/run/.containerenv", "/sys/class/dmi/id", "/proc/sys/kernel/yama/ptrace_scope",
	"/proc/self/task/<tid>/status", "/proc/<pid>/task/<tid>/status", "/proc/vz", "/proc/xen",
	"/proc/thread-self/status",
	// Another process's name and command line: the parent is the tracer
	// (strace), pid 1 the sandbox's entrypoint.
	"/proc/<pid>/comm", "/proc/<pid>/cmdline", "/proc/<pid>/stat", "/proc/<pid>/exe",
	"/proc/<pid>/task/<tid>/comm", "/proc/<pid>/task/<tid>/stat",
	"/proc/1/comm", "/proc/1/cmdline", "/proc/1/stat", "/proc/1/exe",
}

// What node and glibc do in a hello-world run: loader, libraries, locale,
// resolver configuration, cgroup limits, CPU and memory information.
var runtimeExact = []string{
	"/etc/ld.so.cache", "/etc/ld.so.preload", "/etc/ssl/openssl.cnf", "/usr/lib/ssl/openssl.cnf",
	"/proc/self/maps", "/proc/self/cgroup", "/proc/meminfo", "/proc/sys/vm/overcommit_memory",
	"/proc/self/exe", "/dev/null", "/dev/urandom", "/dev/random", "/dev/tty", "/dev/stdin", "/dev/stdout",
	"/dev/stderr", "/proc/self/fd", "/etc/localtime", "/etc/nsswitch.conf", "/etc/host.conf",
	"/etc/resolv.conf", "/etc/hosts", "/etc/gai.conf", "/etc/netsvc.conf", "/etc/svc.conf",
	"/proc/filesystems", "/etc/selinux/config", "/proc/stat", "/proc/cpuinfo", "/proc/self/stat",
	"/proc/loadavg", "/proc/uptime", "/proc/version", "/etc/os-release", "/usr/lib/os-release",
	"/proc/sys/kernel/random/boot_id", "/var/run/nscd/socket", "/proc/self/limits",
	"/proc/sys/kernel/perf_event_paranoid", "/proc/self/oom_score_adj",
	"/usr/local/share/ca-certificates/corp-root-ca.crt",
}

var runtimePrefix = []string{
	"/lib", "/lib64", "/usr/lib", "/usr/lib64", "/usr/local/lib/node_modules/npm",
	"/usr/local/lib/node_modules/corepack", "/usr/share/zoneinfo", "/usr/share/locale", "/usr/lib/locale",
	"/sys/fs/cgroup", "/sys/devices/system/cpu", "/etc/ssl/certs", "/usr/share/ca-certificates",
	"/usr/local/include/node", "/proc/self/task", "/dev/pts",
}

func matchAny(p string, list []string) bool {
	for _, x := range list {
		if within(p, x) {
			return true
		}
	}
	return false
}

// Category puts a normalized path in a category. canary reports whether the
// path is one of the seeded decoy files; write whether the access modifies
// it (reading /etc/ld.so.preload is the loader's job, writing it is not).
func (l Layout) Category(norm string, canary, write bool) string {
	persist := ""
	if !canary {
		persist = persistCategory(norm, write)
	}
	switch {
	case canary:
		return m.CatCanary
	case !write && matchAny(norm, runtimeExact):
		return m.CatRuntime
	case matchAny(norm, antiAnalysis):
		return m.CatAntiAnalysis
	case persist != "":
		return persist // the table in persistence.go
	case matchAny(norm, sensitiveHome) || matchAny(norm, sensitiveSystem) || isSecretFileName(norm):
		return m.CatSensitive
	case strings.HasPrefix(norm, "<pkg>") || strings.HasPrefix(norm, "<deps>") || strings.HasPrefix(norm, "<app>"):
		return m.CatOwnPackage
	case norm == l.Runtime || matchAny(norm, runtimeExact) || matchAny(norm, runtimePrefix) || isModuleLookup(norm):
		return m.CatRuntime
	case strings.HasPrefix(norm, "<workspace>"):
		return m.CatWorkspace
	case strings.HasPrefix(norm, "~"):
		return m.CatHome
	case isTemp(norm):
		return m.CatTemp
	case matchAny(norm, []string{"/etc", "/proc", "/sys", "/dev", "/usr", "/var", "/opt", "/bin", "/sbin", "/run", "/boot", "/home"}):
		return m.CatSystem
	}
	return m.CatOther
}

// isModuleLookup recognizes node's module resolution walking up the tree
// (…/package.json, …/node_modules) and its legacy global folders.
func isModuleLookup(p string) bool {
	base := path.Base(p)
	if base == "package.json" || base == "node_modules" || strings.Contains(p, "/node_modules/") {
		return !strings.HasPrefix(p, "~") || strings.HasPrefix(p, "~/.node_modules") || strings.HasPrefix(p, "~/.node_libraries")
	}
	return p == "~/.node_modules" || p == "~/.node_libraries" || strings.HasPrefix(p, "~/.node_modules/") ||
		strings.HasPrefix(p, "~/.node_libraries/")
}

// isSecretFileName recognizes secret files by name anywhere outside the
// server's own package: private keys, .env files, keystores.
func isSecretFileName(p string) bool {
	if strings.HasPrefix(p, "<pkg>") || strings.HasPrefix(p, "<deps>") || strings.HasPrefix(p, "/usr/") || strings.HasPrefix(p, "/etc/ssl/") {
		return false
	}
	base := path.Base(p)
	switch {
	case base == ".env" || strings.HasPrefix(base, ".env."):
		return true
	case strings.HasSuffix(base, ".pem") || strings.HasSuffix(base, ".key") || strings.HasSuffix(base, ".p12") ||
		strings.HasSuffix(base, ".pfx") || strings.HasSuffix(base, ".kdbx") || strings.HasSuffix(base, ".keystore"):
		return true
	case base == "id_rsa" || base == "id_ed25519" || base == "id_ecdsa" || base == "id_dsa" ||
		base == "credentials" || base == "credentials.json" || base == "wallet.dat":
		return true
	}
	return false
}

// NormalizeArgv normalizes each argument of a command line.
func (l Layout) NormalizeArgv(argv []string) []string {
	out := make([]string, len(argv))
	for i, a := range argv {
		out[i] = l.Normalize(a)
	}
	return out
}
