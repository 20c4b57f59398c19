#!/bin/sh
# Chromium from Debian's package, started the way a container runs it. Every
# name a program looks for a browser under (/usr/bin/chromium, Chrome's
# /opt/google/chrome/chrome, google-chrome) leads here.
#
# --no-sandbox: Chromium's own sandbox needs a user namespace (or a setuid
# helper); the container drops the capabilities and its seccomp profile
# refuses the namespace, so with it Chromium would not start at all.
# --disable-dev-shm-usage: the container's /dev/shm is 64 MiB.
# --headless, --disable-gpu: there is no display and no GPU.
# The rest keep the browser's own background traffic (updates, time and
# variations queries, crash reports, sync, metrics) from starting, so what
# reaches the network is what the page and the program driving it asked for.
# A --disable-features the caller passes is merged with ours (Chromium reads
# only the last one). D-Bus is off: there is no system or session bus.
export DBUS_SYSTEM_BUS_ADDRESS=disabled: DBUS_SESSION_BUS_ADDRESS=disabled:
export BREAKPAD_DUMP_LOCATION=/tmp/.chromium-crashes
features=NetworkTimeServiceQuerying,OptimizationHints,Translate,MediaRouter,DialMediaRouteProvider,AutofillServerCommunication,CertificateTransparencyComponentUpdater
n=$#
while [ "$n" -gt 0 ]; do
	arg=$1
	shift
	n=$((n - 1))
	case $arg in
	--disable-features=*) features="$features,${arg#--disable-features=}" ;;
	*) set -- "$@" "$arg" ;;
	esac
done
exec /usr/lib/chromium/chromium --no-sandbox --disable-dev-shm-usage --headless --disable-gpu \
	--disable-background-networking --disable-component-update --disable-sync --disable-default-apps \
	--disable-domain-reliability --disable-breakpad --disable-client-side-phishing-detection \
	--no-first-run --no-default-browser-check --no-pings --metrics-recording-only \
	--disable-features="$features" "$@"
