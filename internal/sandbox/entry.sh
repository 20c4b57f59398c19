#!/bin/sh
# mcp-audit sandbox entrypoint. PID 1 in the audit container, running as root
# with only the capabilities the tracer needs (SYS_PTRACE, SETUID, SETGID,
# DAC_READ_SEARCH). It seeds the decoy home as the unprivileged user, starts
# the server under strace as that user, and on SIGTERM kills every process of
# that user. After the server is gone it records the exit status and the
# access times of the canary files (an independent witness of reads that the
# tracer might miss) in a directory the server cannot read.
#
# Arguments: the server command. Settings come from MCP_AUDIT_* variables,
# which are removed from the server's environment.
set -u
umask 077
D=/var/lib/private
U="$MCP_AUDIT_USER"
UID_="$MCP_AUDIT_UID"
TRACE_SET="$MCP_AUDIT_TRACE_SET"
STRSIZE="$MCP_AUDIT_STRSIZE"
WORKDIR="$MCP_AUDIT_WORKDIR"
WATCHDOG="$MCP_AUDIT_WATCHDOG"
CANARIES="$MCP_AUDIT_CANARY_FILES"
NOTRACE="${MCP_AUDIT_NOTRACE:-0}"
SCAN_DIR="${MCP_AUDIT_SCAN_DIR:-}"
COVERAGE_DIR="${MCP_AUDIT_COVERAGE_DIR:-}"
MACHINE_ID="${MCP_AUDIT_MACHINE_ID:-}"
PRELAUNCHES="${MCP_AUDIT_PRELAUNCHES:-0}"
SCAN_LIMITS="${MCP_AUDIT_SCAN_LIMITS:-64 256}"
INSTALL_DIR="${MCP_AUDIT_INSTALL_DIR:-}"
INSTALL_SCRIPT="${MCP_AUDIT_INSTALL_SCRIPT:-}"
INSTALL_GID="${MCP_AUDIT_INSTALL_GID:-}"
INSTALL_TIMEOUT="${MCP_AUDIT_INSTALL_TIMEOUT:-300}"
CLOCK_RATE="${MCP_AUDIT_CLOCK_RATE:-1}"
CLOCK_AHEAD="${MCP_AUDIT_CLOCK_AHEAD:-}"
CLOCK_SHIFT="${MCP_AUDIT_CLOCK_SHIFT:-0}"
case "$CLOCK_SHIFT" in '' | *[!0-9]*) CLOCK_SHIFT=0 ;; esac
WRITABLE_SRC="${MCP_AUDIT_WRITABLE_SRC:-}"
WRITABLE_DST="${MCP_AUDIT_WRITABLE_DST:-}"
PLAYWRIGHT="${MCP_AUDIT_PLAYWRIGHT:-}"
unset MCP_AUDIT_USER MCP_AUDIT_UID MCP_AUDIT_TRACE_SET MCP_AUDIT_STRSIZE MCP_AUDIT_WORKDIR MCP_AUDIT_WATCHDOG MCP_AUDIT_CANARY_FILES MCP_AUDIT_NOTRACE
unset MCP_AUDIT_SCAN_DIR MCP_AUDIT_SCAN_LIMITS MCP_AUDIT_COVERAGE_DIR MCP_AUDIT_MACHINE_ID MCP_AUDIT_PRELAUNCHES
unset MCP_AUDIT_INSTALL_DIR MCP_AUDIT_INSTALL_SCRIPT MCP_AUDIT_INSTALL_GID MCP_AUDIT_INSTALL_TIMEOUT
unset MCP_AUDIT_CLOCK_RATE MCP_AUDIT_CLOCK_AHEAD MCP_AUDIT_CLOCK_SHIFT MCP_AUDIT_WRITABLE_SRC MCP_AUDIT_WRITABLE_DST MCP_AUDIT_PLAYWRIGHT
# An OCI image brings none of the programs used here: mcp-audit's own come
# from MCP_AUDIT_TOOLS (see sandbox/oci.go). The server keeps its PATH.
SERVER_PATH="$PATH" STRACE=strace AWK=awk TOOLS="${MCP_AUDIT_TOOLS:-}"
if [ -n "$TOOLS" ]; then
	PATH="$MCP_AUDIT_TOOLS:$PATH" STRACE="$MCP_AUDIT_TOOLS/strace" AWK="$MCP_AUDIT_TOOLS/awk"
fi
unset MCP_AUDIT_TOOLS
# The untraced run starts the server through setpriv by its full path, so
# the server gets its own PATH (not the OCI toolbox's) in both runs.
SETPRIV=$(command -v setpriv) || SETPRIV=setpriv

mkdir -p "$D"
note() { echo "$*" >>"$D/status"; }

as_user() { setpriv --reuid="$UID_" --regid="$UID_" --clear-groups "$@"; }

# The run's user (the witness run's is another's than the image's): the
# account of UID_ takes its name and home, and the account's old home
# goes when empty, so no path of the canonical identity is left to key on.
rename_user() {
	old=
	while IFS=: read -r n _ id _ _ h _; do
		[ "$id" = "$UID_" ] && { old=$n oldhome=$h; break; }
	done </etc/passwd
	[ -n "$old" ] && [ -n "$U" ] && [ "$old" != "$U" ] || return 0
	for f in /etc/passwd /etc/group /etc/shadow; do
		[ -f "$f" ] || continue
		out=
		while IFS= read -r line; do
			case "$line" in
			"$old":*)
				if [ "$f" = /etc/passwd ]; then
					IFS=: read -r _ pw id gid gecos _ sh <<LINE
$line
LINE
					line="$U:$pw:$id:$gid:$gecos:$HOME:$sh"
				else
					line="$U:${line#"$old":}"
				fi
				;;
			esac
			out="$out$line
"
		done <"$f"
		printf '%s' "$out" >"$f" || note "user-not-renamed"
	done
	[ "$oldhome" != "$HOME" ] && rmdir "$oldhome" 2>/dev/null
	return 0
}
rename_user

if [ -f "$D/resolv.conf" ]; then
	cat "$D/resolv.conf" >/etc/resolv.conf || note "resolv.conf not replaced"
	rm -f "$D/resolv.conf"
fi
CA=/usr/local/share/ca-certificates/corp-root-ca.crt
if [ -f "$CA" ]; then
	# Trust the run's interception CA (or, in open mode, the host's extra
	# CAs) system-wide; node gets it through NODE_EXTRA_CA_CERTS.
	cat "$CA" >>/etc/ssl/certs/ca-certificates.crt || note "ca not added"
	# Chromium trusts its own root store, not the system bundle: the same
	# CA as a managed policy (CACertificates, base64 DER), as an
	# organization hands its root to the browser.
	POL=/etc/chromium/policies/managed
	if [ -d "$POL" ]; then
		ders=$("$AWK" '/-----BEGIN CERTIFICATE-----/ { c = ""; in_ = 1; next }
			/-----END CERTIFICATE-----/ { if (n++) printf ","; printf "\"%s\"", c; in_ = 0; next }
			in_ { gsub(/[^A-Za-z0-9+\/=]/, ""); c = c $0 }' "$CA")
		{ echo "{\"CACertificates\": [$ders]}" >"$POL/corp-root-ca.json" && chmod 0644 "$POL/corp-root-ca.json"; } ||
			note "ca not added"
	fi
fi
if ! as_user tar -x -C "$HOME" <"$D/home.tar"; then
	note "seed-failed"
fi
rm -f "$D/home.tar"
if [ -n "$WRITABLE_SRC" ]; then
	# The package where npx would have put it, the user's own and writable
	# (sandbox/writable.go): copied as the user, before the marker, so the
	# copy is not something the server changed.
	note "package-copy-start $(date +%s.%N)"
	if (umask 022 && as_user mkdir -p "$WRITABLE_DST" && as_user cp -R -P --preserve=mode,timestamps,links "$WRITABLE_SRC/." "$WRITABLE_DST"); then
		note "package-copy-end $(date +%s.%N)"
	else
		note "package-copy-failed"
	fi
fi
for build in $PLAYWRIGHT; do
	# Playwright's browser builds (sandbox/browsers.go), linked to the
	# image's Chromium in a root-owned directory: revisions are digits.
	case "$build" in
	chromium-[0-9]* | chromium_headless_shell-[0-9]*) ;;
	*) continue ;;
	esac
	case "$build" in *[!a-z_0-9-]*) continue ;; esac
	dir="/ms-playwright/$build"
	mkdir -p "$dir/chrome-linux" "$dir/chrome-linux64" "$dir/chrome-headless-shell-linux64" &&
		for exe in chrome-linux/chrome chrome-linux64/chrome chrome-linux/headless_shell chrome-headless-shell-linux64/chrome-headless-shell; do
			ln -sf /usr/bin/chromium "$dir/$exe"
		done &&
		: >"$dir/INSTALLATION_COMPLETE" && : >"$dir/DEPENDENCIES_VALIDATED" || note "playwright-link-failed"
done
[ -d /ms-playwright ] && chmod -R a+rX /ms-playwright
# Files whose change time (which the server cannot set back) passes this
# marker's were written after seeding.
: >"$D/seeded"
# The machine's id (systemd's /etc/machine-id, which telemetry hashes): the
# run's own when it is given one.
if [ -n "$MACHINE_ID" ]; then
	(umask 022 && printf '%s\n' "$MACHINE_ID" >/etc/machine-id) 2>/dev/null || note "machine-id not set"
fi
# The directory node writes its V8 coverage into (the traced run of a Node
# server only): the server's own, read back by the host after the run.
[ -n "$COVERAGE_DIR" ] && as_user mkdir -p -m 0700 "$COVERAGE_DIR"
cd "$WORKDIR" || cd "$HOME"

# alive lists the processes of the server's user, by builtins only.
alive() {
	for p in /proc/[0-9]*; do
		u=
		st=
		while read -r k v _; do
			case "$k" in
			State:) st=$v ;;
			Uid:)
				u=$v
				break
				;;
			esac
		done 2>/dev/null <"$p/status"
		# A zombie (the server itself, exited and not yet reaped by the
		# tracer) is not alive.
		[ "$u" = "$UID_" ] && [ "$st" != Z ] || continue
		c=
		read -r c <"$p/comm" 2>/dev/null
		echo "${p#/proc/} $c"
	done
}
# outlived records the processes of the server's user still alive once it
# is gone (a daemon it detached): listed twice, half a second apart (a
# child that is still exiting is no daemon), at most 32.
outlived() {
	first=$(alive)
	[ -n "$first" ] || return 0
	i=0
	while [ "$i" -lt 200000 ]; do i=$((i + 1)); done
	now=$(alive)
	n=0
	printf '%s\n' "$first" | while read -r pid comm; do
		case "
$now
" in *"
$pid $comm
"*) [ "$n" -lt 32 ] && echo "$pid $comm" >>"$D/outlived"; n=$((n + 1)) ;; esac
	done
}
# gone PID: the process has exited (a zombie has too).
gone() {
	st=
	while read -r k v _; do
		[ "$k" = "State:" ] && { st=$v; break; }
	done 2>/dev/null <"/proc/$1/status"
	[ -z "$st" ] || [ "$st" = Z ]
}
# server_gone: the server has exited. Traced, the tracer's children are
# the server (a process it starts is the server's child, a daemon that
# detached is the entrypoint's): none left means the server is gone while
# the tracer still waits for what it started.
server_gone() {
	[ -n "${pid:-}" ] || return 1
	if [ "$NOTRACE" = 1 ]; then
		gone "$pid"
		return
	fi
	gone "$pid" && return 1 # the tracer itself ended: the main path lists
	c=
	{ read -r c _ <"/proc/$pid/task/$pid/children"; } 2>/dev/null
	[ -z "$c" ]
}
stop() {
	[ -n "${wpid:-}" ] && stop_watch
	# A traced server that has exited while a daemon it detached lives on
	# keeps the tracer waiting: what is left is that daemon, recorded
	# before it is ended.
	if server_gone; then
		outlived
	fi
	# Every process of the server's user: the server and anything it
	# started, including daemons that left its process group.
	as_user sh -c "kill -s KILL -- -1" 2>/dev/null
}
trap stop TERM INT

# A last resort if the host side goes away: end the run after the deadline.
(sleep "$WATCHDOG" && kill -TERM 1) >/dev/null 2>&1 </dev/null &
dog=$!
# execd PID: that process runs a program other than this shell (it has
# been executed). execd_child PID: so does a child of PID. Builtins only:
# the file watcher must not see the entrypoint's own programs start late.
execd() { [ -e "/proc/$1/exe" ] && ! [ "/proc/$1/exe" -ef /proc/$$/exe ]; }
execd_child() {
	for st in /proc/[0-9]*/stat; do
		{ read -r kid _ _ ppid _ <"$st"; } 2>/dev/null || continue
		[ "$ppid" = "$1" ] && execd "$kid" && return 0
	done
	return 1
}

if [ -n "$INSTALL_DIR" ]; then
	# Install phase: the package's lifecycle scripts, traced, as the
	# server's user with the build group (which may write the package tree).
	# Output goes to a file: stdout is the MCP channel.
	note "install-start $(date +%s.%N)"
	(cd "$INSTALL_DIR" && exec strace -f --seccomp-bpf -qq -ttt -yy -s "$STRSIZE" -e signal=SIGSYS -e trace="$TRACE_SET" \
		-o "$D/trace.install" -- setpriv --reuid="$UID_" --regid="$INSTALL_GID" --clear-groups \
		sh -c "$INSTALL_SCRIPT") </dev/null >"$D/install.log" 2>&1 &
	ipid=$!
	deadline=$(($(date +%s) + INSTALL_TIMEOUT))
	while kill -0 "$ipid" 2>/dev/null; do
		if [ "$(date +%s)" -ge "$deadline" ]; then
			note "install-timeout"
			stop
		fi
		sleep 0.1
	done
	wait "$ipid"
	note "install-end $? $(date +%s.%N)"
fi

# The clock shim: the server's clocks (wall and monotonic) and its waits
# (sleep, poll, epoll timeouts) can run CLOCK_RATE times faster, so a
# payload that waits for minutes fires within the run. Only the server and
# its children get it (strace -E), so the trace's timestamps stay real.
# Without it, "-E NAME" just removes an unset variable. The rate comes from
# a file libfaketime re-reads once a second (cache 0: when the whole
# second of real time changed since its last read): real time ("+0 x1")
# while the client talks to the server, so the server's own network
# timeouts stay real, started CLOCK_SHIFT seconds ahead ("+SHIFT x1": the
# calibration run's clock is seconds from the primary's, so what follows
# the time varies between the runs with the same secrets); on SIGUSR1 from the host (the idle phase begins) the
# file is replaced, by a rename, with "+0 xCLOCK_RATE". The file is root's
# and only readable by the server. Files keep their real times
# (NO_FAKE_STAT): shifted like the clock, a directory's time no longer
# matched what a cache recorded of it (fontconfig then rebuilt its cache
# in /var/cache, a denied write to a system directory, whenever Chromium
# started), and a file the run did not write looks as old as the clock
# says, days or years.
CLOCK_LIB=
CLOCK_PRELOAD=LD_PRELOAD
CLOCK_FT=FAKETIME_TIMESTAMP_FILE
CLOCK_CACHE=FAKETIME_CACHE_DURATION
CLOCK_STAT=NO_FAKE_STAT
CLOCK_DIR=/var/lib/faketime
CLOCK_FILE=
if [ "$CLOCK_RATE" != 1 ]; then
	for lib in /usr/lib/*/faketime/libfaketime.so.1; do
		[ -f "$lib" ] && CLOCK_LIB="$lib"
	done
	if [ -n "$CLOCK_LIB" ] && mkdir -p -m 0755 "$CLOCK_DIR" && chmod 0755 "$CLOCK_DIR" &&
		echo "+$CLOCK_SHIFT x1" >"$CLOCK_DIR/rate" && chmod 0644 "$CLOCK_DIR/rate"; then
		CLOCK_FILE="$CLOCK_DIR/rate"
		CLOCK_PRELOAD="LD_PRELOAD=$CLOCK_LIB"
		CLOCK_FT="FAKETIME_TIMESTAMP_FILE=$CLOCK_FILE"
		CLOCK_CACHE="FAKETIME_CACHE_DURATION=0"
		CLOCK_STAT="NO_FAKE_STAT=1"
		note "clock $CLOCK_RATE"
	else
		CLOCK_LIB=
		note "clock-unavailable"
	fi
fi
fast_clock() {
	[ -n "$CLOCK_FILE" ] || return
	ahead=0
	[ -n "$CLOCK_AHEAD" ] && ahead="${CLOCK_AHEAD}y"
	echo "+$ahead x$CLOCK_RATE" >"$CLOCK_FILE.new" && chmod 0644 "$CLOCK_FILE.new" && mv -f "$CLOCK_FILE.new" "$CLOCK_FILE" &&
		note "clock-fast $(date +%s.%N)"
	CLOCK_FILE=
}
trap fast_clock USR1

# Noise is not stored: once the trace holds $NOISE_KEEP failed lookups of
# temporary, system or package paths (no rule judges those), further ones
# are counted instead of written, so a flood of them cannot push the trace
# to its size limit. Lookups in the home, /etc, /proc and anything that
# succeeded are always written.
cat >"$D/noise.awk" <<'AWK'
# The clock shim's own plumbing is not the server's behavior: the loader's
# open of the library and libfaketime's reads of the rate file (in every
# process), and libfaketime's clock shared
# through /dev/shm, named after the first traced process (the server's root)
# and opened by every process it starts. glibc creates that semaphore as a
# temporary file linked into place: temporary names are dropped only in the
# root, during the shim's setup (before any of the server's code runs). An
# open, link or unlink is dropped only when it names nothing else.
shim != "" {
	if (root == "") {
		root = $1
		own["\"" shim "\""] = 1
		own["\"/dev/shm/sem.faketime_sem_" root "\""] = 1
		own["\"/dev/shm/faketime_shm_" root "\""] = 1
		if (clockfile != "") own["\"" clockfile "\""] = 1
	}
	if ($1 == root && (index($0, "\"/dev/shm/faketime_shm_" root "\", O_RDWR|O_CREAT|O_NOFOLLOW") || ++rootlines > 64)) ready = 1
	if ($3 ~ /^(openat|link|unlink)\(/) {
		if (!ready && $1 == root && $3 ~ /^openat\(/ && match($0, /"\/dev\/shm\/sem\.[A-Za-z0-9]+", O_RDWR\|O_CREAT\|O_EXCL/))
			own[substr($0, RSTART, index(substr($0, RSTART + 1), "\"") + 1)] = 1
		rest = $0
		for (p in own) while ((i = index(rest, p)) > 0) rest = substr(rest, 1, i - 1) substr(rest, i + length(p))
		if (rest !~ /"/) next
	}
}
# The result is anchored at the end of the line, where strace prints it
# (a path may contain " = -1 ENOENT " itself), and a path with a . or ..
# component is never noise (it may lead anywhere).
/\) = -1 (ENOENT|ENOTDIR) \([^()]*\)$/ && $3 ~ /^(open|openat|openat2|stat|lstat|newfstatat|statx|access|faccessat|faccessat2|readlink|readlinkat)\(/ {
	if (match($0, /"([^"\\]|\\.)*"/)) {
		p = substr($0, RSTART + 1, RLENGTH - 2)
		if (p !~ /(^|\/)\.\.?(\/|$)/ && (p ~ /^\/(tmp|var\/tmp|dev\/shm|usr|lib|lib64|bin|sbin|opt|srv|app|snap)(\/|$)/ || p ~ /node_modules/)) {
			if (++noise > keep) { dropped++; next }
		}
	}
}
{ print }
END { print dropped + 0 > out }
AWK
# strace writes the trace into a named pipe that the filter reads, not
# through "-o |command", which strace starts with /bin/sh: an image may
# have none (distroless).
TRACE_PIPE="$D/trace.pipe"

# Launch history: the server started PRELAUNCHES times first, over the
# same home and /tmp, its input closed (an MCP server exits at the end of
# its input; one that does not is killed after about five seconds), so a
# count it keeps of its launches has grown when the real session starts.
# Before the watcher starts: these launches' programs are not the session's.
n=0
while [ "$n" -lt "$PRELAUNCHES" ]; do
	n=$((n + 1))
	PATH="$SERVER_PATH" "$SETPRIV" --reuid="$UID_" --regid="$UID_" --clear-groups "$@" </dev/null >/dev/null 2>&1 &
	lpid=$!
	i=0
	while kill -0 "$lpid" 2>/dev/null && [ "$i" -lt 400000 ]; do i=$((i + 1)); done
	kill -KILL "$lpid" 2>/dev/null
	wait "$lpid" 2>/dev/null
	note "prelaunch $n"
done
note "started $(date +%s.%N)"
# The traced run's filter reads the trace from the pipe (its file operand:
# awk opens it after it has been executed, so it can be waited for).
fpid=
if [ "$NOTRACE" != 1 ]; then
	rm -f "$TRACE_PIPE"
	mkfifo -m 0600 "$TRACE_PIPE" || note "trace-pipe-failed"
	"$AWK" -v keep="${NOISE_KEEP:-20000}" -v out="$D/noise" -v shim="$CLOCK_LIB" -v clockfile="$CLOCK_FILE" \
		-f "$D/noise.awk" "$TRACE_PIPE" >"$D/trace" &
	fpid=$!
fi
# The outside observer (watch.py: inotify on the bin directories, and in
# the witness run on the decoys; as root, not tracing). The witness run
# compares what it saw with what the traced run's saw: like with like, so
# a script's interpreter (the kernel opens it, no trace shows it) is no
# difference. Started once the entrypoint's background programs (the
# watchdog's sleep, the filter) have been executed; stopped before it runs
# any program of its own again but the tracer and the clock switch. The
# waits are builtin loops: a sleep would be a program it sees.
wpid=
if [ -f "$D/watch.py" ]; then
	i=0
	[ -n "$TOOLS" ] || until { execd_child "$dog" && { [ -z "$fpid" ] || execd "$fpid"; }; } || [ "$i" -ge 6000 ]; do i=$((i + 1)); done
	[ "$i" -ge 6000 ] && note "watch-wait-timeout"
	decoys=
	[ "$NOTRACE" = 1 ] && decoys="$CANARIES"
	python3 - "$D/watch" "$D/watch.ready" $decoys <"$D/watch.py" >/dev/null 2>"$D/watch.err" &
	wpid=$!
	i=0
	while [ ! -e "$D/watch.ready" ] && [ "$i" -lt 2000000 ] && kill -0 "$wpid" 2>/dev/null; do i=$((i + 1)); done
	[ -e "$D/watch.ready" ] || note "watch-not-ready"
fi
stop_watch() { [ -n "$wpid" ] && kill "$wpid" 2>/dev/null && wait "$wpid" 2>/dev/null; wpid=; }
# An asynchronous command's stdin is /dev/null before its own redirections
# apply, so hand the server our stdin through fd 3.
exec 3<&0
if [ "$NOTRACE" = 1 ]; then
	# Benchmark baseline only: the same sandbox without the tracer.
	: >"$D/trace"
	[ -n "$CLOCK_LIB" ] && set -- env "$CLOCK_PRELOAD" "$CLOCK_FT" "$CLOCK_CACHE" "$CLOCK_STAT" "$@"
	PATH="$SERVER_PATH" "$SETPRIV" --reuid="$UID_" --regid="$UID_" --clear-groups "$@" <&3 3<&- &
else
	PATH="$SERVER_PATH" "$STRACE" -f --seccomp-bpf -qq -ttt -yy -s "$STRSIZE" -e signal=SIGSYS -e trace="$TRACE_SET" \
		-o "$TRACE_PIPE" -E "$CLOCK_PRELOAD" -E "$CLOCK_FT" -E "$CLOCK_CACHE" -E "$CLOCK_STAT" -u "$U" -- "$@" <&3 3<&- &
fi
pid=$!
exec 0</dev/null 3<&-

rc=0
while :; do
	wait "$pid"
	rc=$?
	kill -0 "$pid" 2>/dev/null || break
done
wait "$pid" 2>/dev/null
r2=$?
[ "$r2" -ne 127 ] && rc=$r2
if [ -n "$fpid" ]; then
	# The filter ends when the tracer has closed the pipe; opening it
	# read-write (which never blocks) releases a filter still waiting for
	# a tracer that never started. A signal (the clock switch, TERM) ends
	# a wait early: wait again until the filter has written everything.
	: 4<>"$TRACE_PIPE"
	while kill -0 "$fpid" 2>/dev/null; do wait "$fpid"; done
fi
stop_watch
[ -n "$fpid" ] && rm -f "$TRACE_PIPE"
outlived
note "exit $rc $(date +%s.%N)"
[ -s "$D/noise" ] && [ "$(cat "$D/noise")" != 0 ] && note "noise-dropped $(cat "$D/noise")"
kill "$dog" 2>/dev/null

# Access-time witness: "atime mtime ctime path" per canary file. Seeding sets
# atime and ctime together; only a later read moves atime past ctime.
: >"$D/witness"
for f in $CANARIES; do
	as_user stat -c '%.9X %.9Y %.9Z %n' "$f" >>"$D/witness" 2>/dev/null || echo "missing 0 0 $f" >>"$D/witness"
done

# What changed in the home since seeding (outside the workspace): "size
# path" of new or changed files and links, bounded; the witness run's is
# compared with the traced run's.
find "$HOME" -xdev \( -path "${SCAN_DIR:-/nonexistent}" -prune \) -o \( -type f -o -type l \) -cnewer "$D/seeded" \
	-printf '%s %p\n' 2>/dev/null | head -n 64 >"$D/home-changed"

# What the server wrote into the workspace, searched for canary values on
# the host: regular files only (find does not follow links), changed after
# seeding, bounded in number and size. A repository's config comes first
# (the host judges what it runs), then the files outside any .git, then a
# repository's other files, so git's objects cannot crowd the others out.
if [ -n "$SCAN_DIR" ] && [ -d "$SCAN_DIR" ]; then
	set -- $SCAN_LIMITS
	{
		find "$SCAN_DIR" -xdev -type f -path '*/.git/config' -cnewer "$D/seeded" -size -"$(($2 + 1))"k -print0 2>/dev/null
		find "$SCAN_DIR" -xdev -type f ! -path '*/.git/*' -cnewer "$D/seeded" -size -"$(($2 + 1))"k -print0 2>/dev/null
		find "$SCAN_DIR" -xdev -type f -path '*/.git/*' ! -path '*/.git/config' -cnewer "$D/seeded" -size -"$(($2 + 1))"k -print0 2>/dev/null
	} | head -z -n "$1" | tar -c -f "$D/written.tar" --null --no-recursion -T - 2>/dev/null
fi
exit 0
