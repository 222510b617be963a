#!/usr/bin/env bash
# The project's test command: formatting, vet, the race-enabled test suite,
# and every benchmark once so none rots. CI runs it with REQUIRE_SHELLS=1,
# which turns a missing bash, zsh or fish into a failure instead of a skip.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

unformatted=$(gofmt -l .)
if [ -n "$unformatted" ]; then
	echo "gofmt: not formatted:" >&2
	echo "$unformatted" >&2
	exit 1
fi
go vet ./...
go test -race -count=1 ./...
go test -run '^$' -bench . -benchtime=1x ./... >/dev/null
echo "scripts/test.sh: all passed"
