#!/bin/sh
# Prints this checkout's semantic version, which builds stamp into
# mcp-audit (--version): the tag vX.Y.Z on HEAD, else the newest such tag
# (v0.0.0 without one) as a pre-release counting the commits since it,
# with the commit as build metadata: v1.2.3-dev.4+0123456789ab.
set -eu
cd "$(dirname "$0")/.."
pattern='v[0-9]*.[0-9]*.[0-9]*'
if v=$(git describe --tags --exact-match --match "$pattern" 2>/dev/null); then
	echo "$v"
	exit 0
fi
sha=$(git rev-parse --short=12 HEAD 2>/dev/null) || { echo v0.0.0-dev; exit 0; }
if last=$(git describe --tags --abbrev=0 --match "$pattern" 2>/dev/null); then
	n=$(git rev-list --count "$last..HEAD")
else
	last=v0.0.0
	n=$(git rev-list --count HEAD)
fi
echo "$last-dev.$n+$sha"
