#!/bin/sh
# Builds the release binaries into DIR (default dist): linux/amd64 and
# linux/arm64 (every command), darwin/amd64 and darwin/arm64 (diff, report,
# export and the other manifest commands; the sandbox is Linux-only), all
# static and stamped with VERSION, then SHA256SUMS. It checks what it can
# on this machine: the checksums, and that the native binary prints the
# stamped version. The release workflow publishes DIR; CI runs this as
# `make release-dry-run`, which publishes nothing.
set -eu
cd "$(dirname "$0")/.."
dir=${1:-dist}
: "${VERSION:?set VERSION (scripts/version.sh prints this checkout's)}"
GO=${GO:-go}
case "$VERSION" in
v[0-9]*.[0-9]*.[0-9]*) ;;
*) echo "VERSION $VERSION is not a semantic version vX.Y.Z[-pre][+build]" >&2; exit 1 ;;
esac
rm -rf "$dir"
mkdir -p "$dir"
for target in linux/amd64 linux/arm64 darwin/amd64 darwin/arm64; do
	os=${target%/*}
	arch=${target#*/}
	CGO_ENABLED=0 GOOS=$os GOARCH=$arch $GO build -trimpath -buildvcs=false \
		-ldflags "-s -w -X github.com/mcp-audit/mcp-audit/internal/buildinfo.version=$VERSION" \
		-o "$dir/mcp-audit_${os}_${arch}" ./cmd/mcp-audit
done
(cd "$dir" && sha256sum mcp-audit_* > SHA256SUMS && sha256sum -c --quiet SHA256SUMS)
native="$dir/mcp-audit_$($GO env GOOS)_$($GO env GOARCH)"
got=$("$native" --version)
case "$got" in
"mcp-audit $VERSION "*) ;;
*) echo "$native --version printed \"$got\", want mcp-audit $VERSION" >&2; exit 1 ;;
esac
cat "$dir/SHA256SUMS"
echo "release $VERSION built in $dir (not published)"
