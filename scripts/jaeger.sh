#!/usr/bin/env bash
# Builds Jaeger (github.com/jaegertracing/jaeger/cmd/jaeger, the version
# below) from the Go module proxy, in a module of its own (never the
# product's go.mod, whose versions Jaeger's would pull along), once: the
# binary is kept in the cache and the build skipped while it is there.
# scripts/oteltest runs the wrapper against it. About 120 MB; a cold build
# takes about 8 minutes on 2 cores (its modules are downloaded once too,
# into the Go module cache).
#
# Usage: scripts/jaeger.sh   prints the binary's path on stdout
#   JAEGER_CACHE   where the module and the binary are kept
#                  (default ${XDG_CACHE_HOME:-~/.cache}/cursor-wrap/jaeger)
set -euo pipefail
version=v1.76.0
cache=${JAEGER_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/cursor-wrap/jaeger}
bin=$cache/jaeger-$version
if [ -x "$bin" ]; then
	echo "$bin"
	exit 0
fi
mod=$cache/module-$version
mkdir -p "$mod"
cd "$mod"
if [ ! -f go.mod ]; then
	go mod init jaegerbuild >/dev/null 2>&1
fi
started=$SECONDS
echo "jaeger.sh: building jaeger $version into $bin (about 8 minutes cold)" >&2
go get -tool "github.com/jaegertracing/jaeger/cmd/jaeger@$version" >&2
# Built aside, then renamed: an interrupted build leaves no binary behind.
go build -o "$bin.new" github.com/jaegertracing/jaeger/cmd/jaeger >&2
mv -f "$bin.new" "$bin"
echo "jaeger.sh: built in $((SECONDS - started)) s" >&2
echo "$bin"
