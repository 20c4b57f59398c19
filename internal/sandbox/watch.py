# The witness run's outside observer (see docs/sandbox.md, "The witness
# run"). Started by the entrypoint as root, so the server (another user)
# cannot read its file descriptors in /proc; it does not trace the server.
# inotify sees opens and reads of the decoy files (O_NOATIME included) and
# opens of the programs in the system's bin directories (execve opens the
# program). On SIGTERM it writes, bounded:
#   read SECONDS PATH            first open or read of a decoy file
#   exec COUNT PATH ALIAS...     a program opened (PATH resolved; ALIASes
#                                are the other bin-directory names for it)
#   lost                         events were lost: the kernel's queue
#                                overflowed, or more programs than MAX_EXECS
# Usage: python3 - OUT READY DECOY...   (the script on stdin)
import ctypes
import os
import signal
import struct
import sys
import time

IN_ACCESS, IN_OPEN, IN_Q_OVERFLOW, IN_IGNORED = 0x1, 0x20, 0x4000, 0x8000
IN_CLOEXEC = 0o2000000
BIN_DIRS = ["/usr/local/bin", "/usr/local/sbin", "/usr/bin", "/usr/sbin", "/bin", "/sbin"]
MAX_EXECS = 4096  # more than a bin directory holds: the server cannot add files there
MAX_ALIASES = 16


class Stop(Exception):
    pass


def on_term(signum, frame):
    raise Stop()


def watch(libc, fd, path, mask):
    wd = libc.inotify_add_watch(fd, path.encode(), mask)
    return wd if wd >= 0 else None


def alias_map():
    """Maps a resolved program path to the other names it has: symlinks
    in the bin directories (sh -> dash) and the same name under a bin
    directory that is itself a link (/bin -> /usr/bin)."""
    names = {}
    linked = [(d, os.path.realpath(d)) for d in BIN_DIRS if os.path.islink(d)]
    for d in BIN_DIRS:
        try:
            entries = os.listdir(d) if not os.path.islink(d) else []
        except OSError:
            continue
        for n in entries:
            p = os.path.join(d, n)
            if os.path.islink(p):
                names.setdefault(os.path.realpath(p), []).append(p)
    return names, linked


def also(p, linked):
    return [d + p[len(r):] for d, r in linked if p.startswith(r + "/")]


def main():
    out, ready, decoys = sys.argv[1], sys.argv[2], sys.argv[3:]
    signal.signal(signal.SIGTERM, on_term)
    libc = ctypes.CDLL(None, use_errno=True)
    fd = libc.inotify_init1(IN_CLOEXEC)
    files, dirs = {}, {}
    for p in decoys:
        wd = watch(libc, fd, p, IN_OPEN | IN_ACCESS)
        if wd is not None:
            files[wd] = p
    for d in BIN_DIRS:
        if os.path.isdir(d) and not os.path.islink(d):
            wd = watch(libc, fd, d, IN_OPEN)
            if wd is not None:
                dirs[wd] = d
    reads, execs, lost = {}, {}, False
    open(ready, "w").close()
    try:
        while True:
            buf = os.read(fd, 65536)
            now = time.time()
            i = 0
            while i + 16 <= len(buf):
                wd, mask, _, n = struct.unpack_from("iIII", buf, i)
                name = buf[i + 16:i + 16 + n].split(b"\0", 1)[0].decode("utf-8", "replace")
                i += 16 + n
                if mask & IN_Q_OVERFLOW:
                    lost = True
                    continue
                if mask & IN_IGNORED:
                    continue
                if wd in files:
                    reads.setdefault(files[wd], now)
                elif wd in dirs and name:
                    p = os.path.join(dirs[wd], name)
                    if p in execs or len(execs) < MAX_EXECS:
                        execs[p] = execs.get(p, 0) + 1
                    else:
                        lost = True
    except Stop:
        pass
    amap, linked = alias_map() if execs else ({}, [])
    with open(out, "w") as f:
        if lost:
            f.write("lost\n")
        for p, t in sorted(reads.items()):
            f.write("read %.9f %s\n" % (t, p))
        for p, c in sorted(execs.items()):
            real = os.path.realpath(p)
            names = [p] if real == p else [p, real]
            for a in amap.get(real, []):
                names += [a] + also(a, linked)
            names += also(real, linked)
            seen = []
            for n in names:
                if n not in seen and len(seen) < MAX_ALIASES:
                    seen.append(n)
            f.write("exec %d %s\n" % (c, " ".join(seen)))

main()
