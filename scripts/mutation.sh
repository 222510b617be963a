#!/usr/bin/env bash
# Mutation testing: gremlins (github.com/go-gremlins/gremlins) changes one
# operator at a time in a package's code (< to <=, + to -, a condition
# negated, ...) and runs the package's tests against each change; a change
# no test fails on "lived". Each package has two floors, checked here:
#   efficacy          killed / (killed + lived)
#   mutator coverage  (killed + lived) / (killed + lived + not covered)
#
#   scripts/mutation.sh              the packages CI gates
#   scripts/mutation.sh all          every package with a floor
#   scripts/mutation.sh stream ...   the packages named
#
# MUTATION_WORKERS mutants at a time (default: the number of CPUs);
# MUTATION_TIMEOUT_COEFFICIENT (default 10); MUTATION_DIFF=REF tests only
# the mutants on lines changed since REF (gremlins' diff mode).
# docs/mutation.md has the figures and every mutant left alive, with why.
#
# How it is measured, and why:
# - Only the package's own tests count: gremlins runs `go test PKG` for
#   each mutant (never -i, which runs ./..., nor --coverpkg), so a kill made
#   only by scripts/e2e's binary tests does not count for the package.
# - GOFLAGS=-count=1: gremlins times the package's tests once with coverage
#   and gives each mutant that time times the coefficient. From a warm test
#   cache that first run takes milliseconds and every mutant times out.
# - A mutant whose tests run past that time is "timed out": its tests hung,
#   and go test's own -timeout would fail them, so it counts as killed
#   (gremlins leaves it out of both figures). Load makes a run slower, not
#   a test pass: the coefficient of 10 leaves room for a loaded machine and
#   for workers sharing it; each timed-out mutant is listed all the same,
#   and a run where more than a quarter of the mutants time out is refused
#   as measuring the machine rather than the tests.
# - Files not built on this system (defaults_darwin.go on Linux) are left
#   out: no test here can run them.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

# package, efficacy floor, mutator-coverage floor (percent)
floors="
watchdog 95 90
ptyproxy/redact 95 90
ptyproxy/sessionlog/report 90 90
ptyproxy/config 90 90
stream 90 90
"
# CI gates these (.ci/run); the others are measured by hand (all), their
# figures in docs/mutation.md: stream and ptyproxy/config take 10 to 20
# minutes each on a loaded machine.
gated="watchdog ptyproxy/redact ptyproxy/sessionlog/report"
gremlins_version=v0.6.0

if ! command -v jq >/dev/null; then
	echo "mutation: jq is needed to read gremlins' results (apt-get install jq)" >&2
	exit 1
fi

case "${1:-}" in
"") packages=$gated ;;
all) packages=$(awk 'NF { print $1 }' <<<"$floors") ;;
*) packages=$* ;;
esac

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# Built into a directory of our own, so that a developer's own gremlins,
# or its absence, does not matter; from the module cache after the first
# time.
GOBIN=$work/bin go install "github.com/go-gremlins/gremlins/cmd/gremlins@$gremlins_version"
# gremlins reports the conditions of a switch's cases NOT COVERED and never
# tests them (go-gremlins/gremlins#298): Go's cover tool counts a case from
# its colon. It runs go from PATH, so it gets one that hands every command
# to the real go, then gives the coverage profile those conditions
# (scripts/casecover).
go build -o "$work/bin/casecover" ./scripts/casecover
mkdir "$work/go"
cat >"$work/go/go" <<EOF
#!/usr/bin/env bash
set -euo pipefail
$(printf '%q' "$(command -v go)") "\$@"
prev=
for arg in "\$@"; do
	if [ "\$prev" = -coverprofile ]; then
		exec $(printf '%q' "$work/bin/casecover") "\$arg"
	fi
	prev=\$arg
done
EOF
chmod +x "$work/go/go"

failed=()
for pkg in $packages; do
	read -r efficacy_floor coverage_floor < <(awk -v p="$pkg" '$1 == p { print $2, $3 }' <<<"$floors")
	if [ -z "${efficacy_floor:-}" ]; then
		echo "mutation: $pkg has no floor in scripts/mutation.sh" >&2
		exit 2
	fi
	args=(unleash --timeout-coefficient "${MUTATION_TIMEOUT_COEFFICIENT:-10}" --output "$work/result.json")
	if [ -n "${MUTATION_WORKERS:-}" ]; then
		args+=(--workers "$MUTATION_WORKERS")
	fi
	if [ -n "${MUTATION_DIFF:-}" ]; then
		args+=(--diff "$MUTATION_DIFF")
	fi
	for file in $(go list -f '{{join .IgnoredGoFiles " "}}' "./$pkg"); do
		args+=(--exclude-files "^${file//./\\.}\$")
	done

	echo "mutation: $pkg"
	start=$SECONDS
	rm -f "$work/result.json"
	if ! PATH=$work/go:$PATH GOFLAGS="${GOFLAGS:+$GOFLAGS }-count=1" "$work/bin/gremlins" "${args[@]}" "$PWD/$pkg" >"$work/log" 2>&1 ||
		[ ! -s "$work/result.json" ]; then
		cat "$work/log" >&2
		echo "mutation: $pkg: gremlins failed (its output is above)" >&2
		exit 1
	fi
	elapsed=$((SECONDS - start))

	# Each mutant that did not die, with the line it changed.
	jq -r '.files[] | .file_name as $f | .mutations[]
		| select(.status == "LIVED" or .status == "NOT COVERED" or .status == "TIMED OUT")
		| "\(.status)\t\($f)\t\(.line)\t\(.column)\t\(.type)"' "$work/result.json" |
		sort -t$'\t' -k2,2 -k3,3n -k4,4n |
		while IFS=$'\t' read -r status file line column type; do
			printf '  %-11s %s:%s:%s %s: %s\n' "$status" "$pkg/$file" "$line" "$column" "$type" \
				"$(sed -n "${line}p" "$pkg/$file" | sed 's/^[[:space:]]*//')"
		done

	read -r killed lived timed notcovered notviable < <(jq -r '[.files[].mutations[].status] |
		[map(select(. == "KILLED")), map(select(. == "LIVED")), map(select(. == "TIMED OUT")),
		 map(select(. == "NOT COVERED")), map(select(. == "NOT VIABLE"))] | map(length) | @tsv' "$work/result.json")
	dead=$((killed + timed))
	tested=$((dead + lived))
	covered=$((tested + notcovered))
	if [ "$covered" -eq 0 ]; then
		if [ -n "${MUTATION_DIFF:-}" ]; then
			echo "mutation: $pkg: no mutant on a line changed since $MUTATION_DIFF"
			continue
		fi
		echo "mutation: $pkg: gremlins found no mutant" >&2
		exit 1
	fi
	verdict=$(awk -v dead="$dead" -v tested="$tested" -v covered="$covered" -v timed="$timed" \
		-v ef="$efficacy_floor" -v cf="$coverage_floor" -v pkg="$pkg" 'BEGIN {
		efficacy = tested ? 100 * dead / tested : 100
		coverage = 100 * tested / covered
		printf "mutation: %s: efficacy %.2f%% (floor %d%%), mutator coverage %.2f%% (floor %d%%)\n", pkg, efficacy, ef, coverage, cf
		if (tested && 4 * timed > tested)
			printf "mutation: %s: %d of %d mutants timed out: this run measured the machine, not the tests; run it on a quieter machine or with a larger MUTATION_TIMEOUT_COEFFICIENT\n", pkg, timed, tested
		else if (efficacy < ef)
			printf "mutation: %s: efficacy %.2f%% is below its floor of %d%%: a test that asserts behaviour kills a mutant listed LIVED above; one that changes nothing a user can see goes in docs/mutation.md, with why\n", pkg, efficacy, ef
		else if (coverage < cf)
			printf "mutation: %s: mutator coverage %.2f%% is below its floor of %d%%: the package'"'"'s own tests do not run the lines listed NOT COVERED above\n", pkg, coverage, cf
		else
			print "ok"
	}')
	echo "$(head -1 <<<"$verdict"): $killed killed, $timed timed out (counted as killed), $lived lived, $notcovered not covered, $notviable not viable; ${elapsed}s"
	if [ "$(tail -1 <<<"$verdict")" != ok ]; then
		tail -1 <<<"$verdict" >&2
		failed+=("$pkg")
	fi
done

if [ ${#failed[@]} -gt 0 ]; then
	echo "mutation: below a floor: ${failed[*]}" >&2
	exit 1
fi
echo "scripts/mutation.sh: every floor holds ($packages)"
