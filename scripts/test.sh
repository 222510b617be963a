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
# The binary suite (scripts/e2e) runs for minutes; on a loaded machine it
# outgrew go test's default 10-minute limit (737 s once), so the limit is
# CI's own budget instead.
go test -race -count=1 -timeout 30m ./...
go test -run '^$' -bench . -benchtime=1x ./... >/dev/null
echo "scripts/test.sh: all passed"
