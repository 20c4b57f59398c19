#!/usr/bin/env bash
# Make sure a Docker engine answers and the offline image prerequisites are
# present. Idempotent; installs with apt-get only what is missing (needs
# root), starts dockerd in the background when nothing answers (no systemd
# needed). Used by `make test`, `make demo` and .ci/run. With
# MCP_AUDIT_WITH_CHROMIUM=1 (make test) it also installs Debian's chromium,
# which the HTML report test opens the report in.
set -euo pipefail

log() { echo "ensure-engine: $*" >&2; }

need=()
command -v dockerd >/dev/null 2>&1 || need+=(docker.io)
command -v debootstrap >/dev/null 2>&1 || need+=(debootstrap)
if [ ${#need[@]} -gt 0 ]; then
	if [ "$(id -u)" -ne 0 ]; then
		log "missing ${need[*]}; install them (apt-get install -y ${need[*]}) or run as root"
		exit 1
	fi
	log "installing ${need[*]}"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq >/dev/null
	apt-get install -y -qq "${need[@]}" >/dev/null
fi

if [ "${MCP_AUDIT_WITH_CHROMIUM:-}" = 1 ] && ! command -v chromium >/dev/null 2>&1; then
	if [ "$(id -u)" -ne 0 ]; then
		log "missing chromium; install it (apt-get install -y chromium) or run as root"
		exit 1
	fi
	log "installing chromium"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium >/dev/null ||
		{ apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium >/dev/null; }
fi

if docker info >/dev/null 2>&1; then
	exit 0
fi
if [ -n "${DOCKER_HOST:-}" ]; then
	log "DOCKER_HOST=$DOCKER_HOST does not answer"
	exit 1
fi
if [ "$(id -u)" -ne 0 ]; then
	log "no Docker engine answers and starting one needs root (sudo dockerd &)"
	exit 1
fi
log "starting dockerd"
nohup dockerd >/var/log/mcp-audit-dockerd.log 2>&1 &
for _ in $(seq 1 60); do
	if docker info >/dev/null 2>&1; then
		log "dockerd is up"
		exit 0
	fi
	sleep 0.5
done
log "dockerd did not come up; see /var/log/mcp-audit-dockerd.log"
tail -20 /var/log/mcp-audit-dockerd.log >&2 || true
exit 1
