#!/usr/bin/env bash
# Real agent CLIs under cursor-wrap, offline, against a mock model.
#
# ---- README section ----------------------------------------------------
# ### Real agents (optional, slow)
#
# `scripts/realagents.sh` runs the real Claude Code, Codex (over HTTP, and as
# `codex-ws` on its default transport, the Responses API over a WebSocket,
# which a custom provider gets with `supports_websockets = true`; the mock
# model's keep-alive there is a WebSocket ping), Gemini CLI and opencode,
# installed from npm at pinned versions, under cursor-wrap and
# against a local mock model server (`scripts/mockmodel`), inside a network
# namespace that has only loopback: nothing leaves the machine and no account
# or API key is needed. It needs Go, Node 20+, npm, `unshare` and `ip`, and
# root (or unprivileged user namespaces).
#
#     scripts/realagents.sh            # the CLIs through cursor-wrap
#     scripts/realagents.sh --direct   # the CLIs alone (checks the mock)
#
# Each CLI runs six cases, with `--idle-timeout 5s --kill-grace 2s`:
#
# | case | the mock model... | passes when |
# |---|---|---|
# | A | answers with text | exit 0; stdout is the CLI's event stream as captured, ending in its own final event, and byte for byte the `raw` lines of the session log; the exit record's usage is the mock's 50 tokens in, 12 out |
# | B | has the CLI's shell tool run `sleep 20`, then answers | exit 0, 20-45 s from the first event to the last (the session log's times), no hang declared |
# | C | sends one text delta, then stalls | hang declared, exit 124, the run over within 30 s of its first event (the session log's times), and no process of the run left (tools in their own session included) |
# | T | thinks: sends only keep-alives (Anthropic `ping` events, SSE comments for the others, WebSocket pings for `codex-ws`) for 20 s, then answers | exit 0, the stream as in A, no hang declared |
# | P | sends only keep-alives, for ever (`--max-silence 20s`) | hang declared after 20-30 s of silence (at max_silence, not at the idle timeout), exit 124, the stream (if any) the start of C's |
# | S | answers with text; the CLI's stdin is an open pipe that gives nothing | exit 0, the stream as in A, and the wrapper's line that it closed stdin (unless the CLI answered within the 3 s wait, as gemini, which never reads stdin, may) |
#
# One more case runs only when asked for (`REALAGENTS_CASES=L`), as it takes
# two minutes: T at full scale, with the wrapper's own defaults.
#
# | case | the mock model... | passes when |
# |---|---|---|
# | L | thinks: sends only keep-alives, one every 10 s, for 90 s, then answers | exit 0, the stream as in A, no hang declared |
#
# T, P and L are n/a for Gemini CLI: the Gemini API defines no keep-alive in a
# stream, and the CLI fails on an SSE comment ("Incomplete JSON segment").
#
# Before the cases it holds each CLI's flag table (stream/AGENT.go) to the
# --help of the installed version (scripts/agentflags): a flag the table
# lacks, or gives other values than --help does, fails the run.
#
# It prints a table (agent, case, expected, got, PASS/FAIL) and exits 1 on any
# FAIL. In `--direct` mode A, B and T expect exit 0 and the captured stream,
# C and P only expect the CLI to stall (still running, no final event, after
# 10 s), and S expects Claude Code to answer (it gives up on a silent stdin
# after 3 s) and the others to stall; processes a CLI leaves after SIGTERM
# are listed but do not fail.
#
# The first run installs the CLIs (about 1.1 GB; 15 s on a fast registry) into
# `${REALAGENTS_CACHE:-~/.cache/cursor-wrap/realagents}` (not under /tmp:
# Codex refuses a CODEX_HOME there). After that a run takes about four minutes:
# the cases run one after another, the CLIs in parallel. Versions are
# pinned; override with CLAUDE_VERSION, CODEX_VERSION, GEMINI_VERSION and
# OPENCODE_VERSION. Narrow a run with REALAGENTS_AGENTS="claude codex" and
# REALAGENTS_CASES="A C". A failed run (or any, with REALAGENTS_KEEP=1) keeps
# its files (stdout, stderr, mock log, session logs) in the directory it names.
#
# When it can run no agent (the CLIs are not installed and the npm registry
# cannot be reached, or REALAGENTS_AGENTS or REALAGENTS_CASES names none) it
# prints `realagents: SKIP: ` and why, and exits 0; in CI on Linux (`CI` set,
# as `.ci/run` and GitHub Actions set it) it prints `realagents: FAIL: ` and
# why, and exits 1: a green CI step means the agents ran. Off Linux it
# always skips.
# -------------------------------------------------------------------------
set -euo pipefail
# Before anything bash 3.2 (macOS's) cannot parse.
if [[ $(uname -s) != Linux ]]; then
	echo "realagents: SKIP: needs Linux (a network namespace made with unshare and ip, and /proc); this is $(uname -s)"
	exit 0
fi

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cache=${REALAGENTS_CACHE:-$HOME/.cache/cursor-wrap/realagents}
read -ra agents <<<"${REALAGENTS_AGENTS:-claude codex codex-ws gemini opencode}"
read -ra cases <<<"${REALAGENTS_CASES:-A B C T P S}"
direct=${REALAGENTS_DIRECT:-0}
if [[ ${1:-} == --direct ]]; then
	direct=1
elif [[ $# -gt 0 ]]; then
	echo "usage: $0 [--direct]" >&2
	exit 2
fi

declare -A pkg=(
	[claude]=@anthropic-ai/claude-code
	[codex]=@openai/codex
	[gemini]=@google/gemini-cli
	[opencode]=opencode-ai
)
# An agent that is a CLI run another way: codex-ws is Codex on its default
# transport, the Responses API over a WebSocket.
declare -A cli=([claude]=claude [codex]=codex [codex-ws]=codex [gemini]=gemini [opencode]=opencode)
declare -A version=(
	[claude]=${CLAUDE_VERSION:-2.1.197}
	[codex]=${CODEX_VERSION:-0.169.0}
	[gemini]=${GEMINI_VERSION:-0.61.0}
	[opencode]=${OPENCODE_VERSION:-1.18.33}
)

# The commands whose --help lists the flags the wrapper reads (see
# check_flags), separated by |.
declare -A help_of=(
	[claude]="--help"
	[codex]="--help|exec --help"
	[gemini]="--help"
	[opencode]="run --help"
)

# The event stream each CLI prints, one `type[/detail]` per line with repeats
# collapsed (gemini prints every delta), as in shared/real-captures.
declare -A want=(
	[claude.A]="system/init assistant result/success"
	[claude.B]="system/init assistant system/task_started system/task_notification user assistant result/success"
	[claude.C]="system/init"
	[codex.A]="thread.started item.completed/error turn.started item.completed/agent_message turn.completed"
	[codex.B]="thread.started item.completed/error turn.started item.started/command_execution item.completed/command_execution item.completed/agent_message turn.completed"
	[codex.C]="thread.started item.completed/error turn.started"
	[gemini.A]="init message/user message/assistant result/success"
	[gemini.B]="init message/user tool_use tool_result/success message/assistant result/success"
	[gemini.C]="init message/user message/assistant"
	[opencode.A]="step_start text step_finish/stop"
	[opencode.B]="step_start tool_use step_finish/tool-calls step_start text step_finish/stop"
	[opencode.C]="step_start"
	[claude.P]="system/init"
	[codex.P]="thread.started item.completed/error turn.started"
	[gemini.P]="init message/user"
	[opencode.P]="step_start"
)
# The cases a CLI's API cannot express, and why; they print as n/a.
declare -A inapplicable=(
	[gemini.T]="the Gemini API sends no keep-alive in a stream, and Gemini CLI fails on an SSE comment (Incomplete JSON segment)"
	[gemini.P]="the Gemini API sends no keep-alive in a stream, and Gemini CLI fails on an SSE comment (Incomplete JSON segment)"
)
inapplicable[gemini.L]=${inapplicable[gemini.T]}
# Codex prints the same events over either transport.
for kase in A B C P; do
	want[codex-ws.$kase]=${want[codex.$kase]}
done
# A thinking model's answer, and an answer beside a silent stdin, are A's.
for agent in "${!cli[@]}"; do
	want[$agent.T]=${want[$agent.A]}
	want[$agent.L]=${want[$agent.A]}
	want[$agent.S]=${want[$agent.A]}
done

idle=5         # --idle-timeout, seconds
stall_wait=10  # --direct C, P and S: how long a CLI must stay stalled
think=20       # T: the mock's keep-alive-only pause, seconds (more than idle)
long_think=90  # L: the same with the wrapper's defaults, and its pings
long_ping=10   # 10 s apart
max_silence=20 # P: --max-silence, seconds

log() { printf 'realagents: %s\n' "$*" >&2; }
die() {
	log "$*"
	exit 1
}

# skip ends a run that can run no agent, saying why: a skip, or a failure in
# CI (the Linux-only gate above already let this through).
skip() {
	if [[ -n ${CI:-} && $CI != 0 && $CI != false ]]; then
		log "FAIL: $*; in CI (CI=$CI) the real agents must run"
		exit 1
	fi
	echo "realagents: SKIP: $*"
	exit 0
}

# check_selection stops a run whose REALAGENTS_AGENTS or REALAGENTS_CASES
# selects nothing (see skip) or names an agent or case there is not.
check_selection() {
	local agent kase
	[[ ${#agents[@]} -gt 0 ]] || skip "REALAGENTS_AGENTS names no agent"
	[[ ${#cases[@]} -gt 0 ]] || skip "REALAGENTS_CASES names no case"
	for agent in "${agents[@]}"; do
		[[ -v cli[$agent] ]] || die "unknown agent $agent in REALAGENTS_AGENTS (claude codex codex-ws gemini opencode)"
	done
	for kase in "${cases[@]}"; do
		[[ $kase == [ABCTPSL] ]] || die "unknown case $kase in REALAGENTS_CASES (A B C T P S L)"
	done
}

# prefix_of and bin_of take a CLI (see cli), or an agent for its CLI.
prefix_of() { printf '%s/%s-%s' "$cache" "${cli[$1]}" "${version[${cli[$1]}]}"; }
bin_of() { printf '%s/bin/%s' "$(prefix_of "$1")" "${cli[$1]}"; }
is_elf() { [[ $(head -c 4 "$1" 2>/dev/null) == $'\x7fELF' ]]; }

# Every process a run starts carries REALAGENTS_RUN=<session>.<what> in its
# environment (set with env, never exported here, so the script's own helpers
# don't match). That finds them all, even those that left our process group
# or session, and even after the netns shell is gone.
marked() { # $1: an extended regex for the whole environment entry
	grep -lzxE -- "REALAGENTS_RUN=$1" /proc/[0-9]*/environ 2>/dev/null |
		sed 's|^/proc/\([0-9]*\)/environ$|\1|' || true
}
kill_marked() {
	local pids
	mapfile -t pids < <(marked "$1")
	[[ ${#pids[@]} -eq 0 ]] || kill -KILL "${pids[@]}" 2>/dev/null || true # Gone already is fine.
}

install_one() {
	local agent=$1 prefix started
	prefix=$(prefix_of "$agent")
	started=$SECONDS
	rm -rf "$prefix" # What an interrupted earlier install left.
	if ! env REALAGENTS_RUN="$session.install.$agent" npm install --global --prefix "$prefix" \
		--no-audit --no-fund --loglevel=warn "${pkg[$agent]}@${version[$agent]}" >"$prefix.install.log" 2>&1; then
		log "$agent: npm install failed, see $prefix.install.log"
		return 1
	fi
	# npm 11 skips install scripts not covered by allowScripts. Claude Code and
	# opencode then still work where their bin is already the native binary;
	# where it is a placeholder, their own installer puts the binary there.
	local script=
	case $agent in
	claude) script=install.cjs ;;
	opencode) script=postinstall.mjs ;;
	esac
	if [[ -n $script ]] && ! is_elf "$(bin_of "$agent")"; then
		(cd "$prefix/lib/node_modules/${pkg[$agent]}" && env REALAGENTS_RUN="$session.install.$agent" node "$script") \
			>>"$prefix.install.log" 2>&1 || true
		if ! is_elf "$(bin_of "$agent")"; then
			log "$agent: $script did not install the native binary, see $prefix.install.log"
			return 1
		fi
	fi
	touch "$prefix/.installed"
	log "$agent ${version[$agent]}: installed in $((SECONDS - started)) s"
}

install_missing() {
	local agent missing=() pids=() failed=0 pid
	declare -A seen=()
	for agent in "${agents[@]}"; do
		[[ ! -v seen[${cli[$agent]}] ]] || continue
		seen[${cli[$agent]}]=1
		[[ -e $(prefix_of "$agent")/.installed ]] || missing+=("${cli[$agent]}")
	done
	[[ ${#missing[@]} -gt 0 ]] || return 0
	if ! timeout 30 npm ping --fetch-retries=0 --fetch-timeout=10000 >/dev/null 2>&1; then
		skip "npm registry unreachable, and ${missing[*]} not installed in $cache"
	fi
	for agent in "${missing[@]}"; do
		install_one "$agent" &
		pids+=($!)
	done
	for pid in "${pids[@]}"; do
		wait "$pid" || failed=1
	done
	[[ $failed -eq 0 ]] || die "install failed"
}

# check_flags holds each CLI's flag table to the --help of its installed
# version; it returns 1 if any disagrees, after checking them all.
check_flags() {
	local agent home cmd words failed=0
	local -a cmds files
	local -A checked=()
	(cd "$repo" && go build -o "$run/agentflags" ./scripts/agentflags) || return 1
	for agent in "${agents[@]}"; do
		agent=${cli[$agent]} # codex-ws is codex
		[[ ! -v checked[$agent] ]] || continue
		checked[$agent]=1
		home=$(mktemp -d "$run/help-$agent.XXXXXX")
		IFS='|' read -ra cmds <<<"${help_of[$agent]}"
		files=()
		for cmd in "${cmds[@]}"; do
			read -ra words <<<"$cmd"
			files+=("$home/help${#files[@]}.txt")
			if ! env -i PATH="$PATH" HOME="$home" CODEX_HOME="$home" GEMINI_CLI_NO_RELAUNCH=true \
				REALAGENTS_RUN="$session.help.$agent" timeout 60 "$(bin_of "$agent")" "${words[@]}" \
				>"${files[-1]}" 2>&1; then # opencode prints its help on stderr
				log "$agent: \`$agent $cmd\` failed: $(tail -n 1 "${files[-1]}")"
				failed=1
				continue 2
			fi
		done
		"$run/agentflags" "$agent" "${files[@]}" >&2 || failed=1
	done
	return "$failed"
}

# Stops the netns half and whatever the runs started; points at the files
# of a run that did not pass.
stop_outer() {
	[[ -z ${child:-} ]] || kill "$child" 2>/dev/null || true
	kill_marked "$session\..*"
	[[ ! -d ${run:-} ]] || log "files of this run kept in $run"
}

outer() {
	local tool
	for tool in go node npm jq unshare ip timeout; do
		command -v "$tool" >/dev/null || die "$tool is needed and not on PATH"
	done
	trap 'exit 130' INT
	trap 'exit 143' TERM
	trap stop_outer EXIT
	mkdir -p "$cache"
	install_missing
	run=$(mktemp -d "$cache/run.XXXXXX")
	local flags=0
	check_flags || flags=1
	(cd "$repo" && go build -o "$run/mockmodel" ./scripts/mockmodel)
	if [[ $direct -eq 0 ]] && ! (cd "$repo" && go build -o "$run/cursor-wrap" .); then
		die "cursor-wrap does not build; scripts/realagents.sh --direct runs the CLIs alone"
	fi
	local ns=(--net)
	[[ $EUID -eq 0 ]] || ns=(--map-root-user --net)
	# Outside, with network, for npm and go; the agents run in the namespace.
	_REALAGENTS_RUN_DIR=$run _REALAGENTS_SESSION=$session REALAGENTS_DIRECT=$direct \
		unshare "${ns[@]}" -- "$BASH" "${BASH_SOURCE[0]}" &
	child=$!
	local rc=0
	wait "$child" || rc=$?
	child=
	if [[ $flags -ne 0 ]]; then
		log "FAIL: a flag table disagrees with its CLI's --help (above)"
		rc=1
	fi
	[[ $rc -ne 0 || ${REALAGENTS_KEEP:-0} == 1 ]] || rm -rf "$run"
	exit "$rc"
}

# setup_agent AGENT CASE PORT HOME sets args (the agent's arguments, prompt
# last) and envs (its environment besides PATH, HOME, SHELL and the marker) and
# writes its config files into HOME.
setup_agent() {
	local agent=$1 kase=$2 port=$3 home=$4 prompt="Say hello."
	[[ $kase != B ]] || prompt="Run the shell command: sleep 20"
	case $agent in
	claude)
		# --allowedTools is variadic: as the last option it would take the prompt.
		args=(-p --allowedTools Bash --output-format stream-json --verbose --model claude-sonnet-4-5 "$prompt")
		envs=(ANTHROPIC_BASE_URL="http://127.0.0.1:$port" ANTHROPIC_API_KEY=dummy
			CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 DISABLE_TELEMETRY=1
			DISABLE_AUTOUPDATER=1 DISABLE_ERROR_REPORTING=1)
		;;
	codex | codex-ws)
		mkdir -p "$home/.codex"
		local ws=
		[[ $agent != codex-ws ]] || ws="supports_websockets = true"
		# Analytics and plugins off: offline, their shutdown flush otherwise
		# delays the exit by about 5 s.
		cat >"$home/.codex/config.toml" <<-EOF
			model = "mock-model"
			model_provider = "mock"
			approval_policy = "never"
			sandbox_mode = "danger-full-access"

			[model_providers.mock]
			# Required: codex rejects a provider with no name.
			name = "mock"
			base_url = "http://127.0.0.1:$port/v1"
			wire_api = "responses"
			env_key = "OPENAI_API_KEY"
			$ws

			[analytics]
			enabled = false

			[features]
			plugins = false
			remote_plugin = false
			apps = false
			in_app_updates = false
		EOF
		args=(exec --json --skip-git-repo-check "$prompt")
		envs=(CODEX_HOME="$home/.codex" OPENAI_API_KEY=dummy)
		;;
	gemini)
		mkdir -p "$home/.gemini"
		cat >"$home/.gemini/settings.json" <<-EOF
			{
			  "security": {"auth": {"selectedType": "gemini-api-key"}},
			  "privacy": {"usageStatisticsEnabled": false},
			  "telemetry": {"enabled": false},
			  "general": {"enableAutoUpdate": false, "enableAutoUpdateNotification": false}
			}
		EOF
		args=(-o stream-json --yolo --skip-trust -m gemini-2.5-flash -p "$prompt")
		envs=(GEMINI_API_KEY=dummy GOOGLE_GEMINI_BASE_URL="http://127.0.0.1:$port" GEMINI_CLI_NO_RELAUNCH=true)
		;;
	opencode)
		mkdir -p "$home/.config/opencode"
		cat >"$home/.config/opencode/opencode.json" <<-EOF
			{
			  "\$schema": "https://opencode.ai/config.json",
			  "model": "anthropic/claude-sonnet-4-5",
			  "permission": {"bash": "allow"},
			  "provider": {"anthropic": {"options": {"baseURL": "http://127.0.0.1:$port/v1"}}}
			}
		EOF
		args=(run --format json "$prompt")
		envs=(XDG_CONFIG_HOME="$home/.config" XDG_DATA_HOME="$home/.local/share"
			XDG_CACHE_HOME="$home/.cache" XDG_STATE_HOME="$home/.local/state"
			ANTHROPIC_API_KEY=dummy OPENCODE_DISABLE_AUTOUPDATE=1 OPENCODE_DISABLE_MODELS_FETCH=1
			OPENCODE_DISABLE_LSP_DOWNLOAD=1 OPENCODE_DISABLE_SHARE=1 OPENCODE_DISABLE_DEFAULT_PLUGINS=1)
		;;
	esac
}

# events FILE prints the stream's shape: `type[/detail]` per complete JSON
# line, repeats collapsed. Non-JSON (Claude's terminal reset after `result`,
# under a PTY) is left out.
events() {
	jq -Rr 'fromjson? | [.type, (.subtype // .item.type // .role // .status // .part.reason // empty)] | join("/")' "$1" |
		uniq | paste -sd ' ' -
}

# survivors MARKER lists the run's processes still alive after a short
# settle (SIGKILLed ones take a moment to leave /proc), then kills them.
survivors() {
	local pids pid out=() try
	for try in 1 2 3 4 5; do
		mapfile -t pids < <(marked "$1")
		[[ ${#pids[@]} -gt 0 ]] || return 0
		[[ $try -eq 5 ]] || sleep 0.2
	done
	for pid in "${pids[@]}"; do
		out+=("$(cat "/proc/$pid/comm" 2>/dev/null)($pid)")
	done
	kill -KILL "${pids[@]}" 2>/dev/null || true
	printf '%s' "${out[*]}"
}

run_case() {
	local agent=$1 kase=$2 d=$run/$1-$2 port mock i
	local marker=$session.$agent.$kase
	mkdir -p "$d/home" "$d/work" "$d/logs"
	local scenario=$kase thinking=(--think "${think}s")
	[[ $kase != S ]] || scenario=A
	[[ $kase != L ]] || scenario=T thinking=(--think "${long_think}s" --ping-every "${long_ping}s")
	env -i REALAGENTS_RUN="$session.mock.$agent.$kase" "$run/mockmodel" --scenario "$scenario" "${thinking[@]}" \
		--port-file "$d/port" --log "$d/mock.log" >/dev/null 2>"$d/mock.stderr" &
	mock=$!
	for ((i = 0; i < 100; i++)); do
		[[ ! -s $d/port ]] || break
		sleep 0.05
	done
	if [[ ! -s $d/port ]]; then
		printf 'mock did not start|FAIL\n' >"$d/result"
		return
	fi
	port=$(<"$d/port")
	setup_agent "$agent" "$kase" "$port" "$d/home"

	local cmd
	if [[ $direct -eq 1 ]]; then
		cmd=("$(bin_of "$agent")" "${args[@]}")
		! stalls_alone "$agent" "$kase" || cmd=(timeout --kill-after=5 "$stall_wait" "${cmd[@]}")
	else
		cmd=("$run/cursor-wrap" --agent "${cli[$agent]}" --agent-bin "$(bin_of "$agent")" --log-dir "$d/logs")
		[[ $kase == L ]] || cmd+=(--idle-timeout "${idle}s" --kill-grace 2s)
		[[ $kase != P ]] || cmd+=(--max-silence "${max_silence}s")
		cmd+=(-- "${args[@]}")
	fi
	printf '%q ' "${cmd[@]}" >"$d/cmd"
	# stdin is /dev/null: Codex and opencode read a non-tty stdin to EOF
	# first. For S it is a FIFO opened read-write: open, and it never gives
	# anything (the run holds its only writer).
	local stdin=/dev/null
	if [[ $kase == S ]]; then
		stdin=$d/stdin
		mkfifo "$stdin"
	fi
	local start=${EPOCHREALTIME/./} rc=0
	# TZ=UTC: the session log's times end in Z, as jq's fromdateiso8601 reads them.
	env -i -C "$d/work" PATH="$PATH" HOME="$d/home" SHELL="$BASH" TZ=UTC "${envs[@]}" REALAGENTS_RUN="$marker" \
		"${cmd[@]}" <>"$stdin" >"$d/stdout" 2>"$d/stderr" || rc=$?
	local ms=$(((${EPOCHREALTIME/./} - start) / 1000))
	local left
	left=$(survivors "$marker")
	kill "$mock" 2>/dev/null || true
	wait "$mock" 2>/dev/null || true
	judge "$agent" "$kase" "$d" "$rc" "$ms" "$left" >"$d/result"
}

# stalls_alone AGENT CASE: in --direct mode, the CLI alone must stall: on a
# stalled stream, on keep-alives, or (all but Claude Code, which gives up on
# a silent stdin after 3 s and says so) on a stdin that gives nothing.
stalls_alone() {
	[[ $direct -eq 1 && ($2 == [CP] || $2 == S && $1 != claude) ]]
}

# log_span LOG... FILTER prints the milliseconds between the first and the
# last of the Unix-ms times FILTER picks from the session logs' records (ms
# reads a record's RFC 3339 `time`, in UTC).
log_span() {
	local filter=${*: -1} logs=("${@:1:$#-1}")
	jq -n 'def ms: capture("^(?<s>[^.Z]+)(\\.(?<f>[0-9]+))?Z$") | (((.s + "Z") | fromdateiso8601) * 1000) + (((.f // "") + "000")[0:3] | tonumber);
		[inputs | '"$filter"'] | if length == 0 then 0 else max - min end' "${logs[@]}"
}

# judge prints "got|PASS" or "got|FAIL" for one run.
judge() {
	local agent=$1 kase=$2 d=$3 rc=$4 ms=$5 left=$6 ok=1 got seen
	seen=$(events "$d/stdout")
	printf '%s\n' "$seen" >"$d/events"
	got="rc $rc, $((ms / 1000)).$((ms % 1000 / 100))s"
	local stalls=0 # in --direct mode, a run that must stall
	! stalls_alone "$agent" "$kase" || stalls=1
	if [[ $stalls -eq 1 && $kase == S ]]; then
		got+=", stream not judged" # What a CLI prints before it reads stdin.
	elif [[ $seen == "${want[$agent.$kase]}" ]]; then
		got+=", stream ok"
	elif [[ $kase == P && (-z $seen || "${want[$agent.P]} " == "$seen "*) ]]; then
		got+=", stream ok (its start)" # How far a slow CLI got before the pings.
	else
		got+=", stream differs"
		ok=0
	fi
	if [[ $stalls -eq 1 ]]; then
		[[ $rc -eq 124 || $rc -eq 137 ]] || ok=0
	elif [[ $kase == [CP] ]]; then
		[[ $rc -eq 124 ]] || ok=0
	else
		[[ $rc -eq 0 ]] || ok=0
	fi
	[[ $direct -eq 0 || $kase != B ]] || [[ $ms -ge 20000 && $ms -lt 45000 ]] || ok=0
	if [[ $direct -eq 0 ]]; then
		local logs=("$d"/logs/*.jsonl) span
		if [[ -e ${logs[0]} ]]; then
			# The limits are timed by the wrapper's own log, from the first
			# event: the CLI's start-up, slow on a loaded machine, is not
			# the case's.
			case $kase in
			A)
				# Every CLI reports what the mock model said it spent (50
				# tokens in, 12 out), and the wrapper reads it the same way.
				local spent
				spent=$(jq -n -r '[inputs | select(.msg == "exit") | .usage | if . then "in \(.input_tokens) out \(.output_tokens)" else "not reported" end] | last // "no exit record"' "${logs[@]}")
				got+=", usage $spent"
				[[ $spent == "in 50 out 12" ]] || ok=0
				;;
			B)
				span=$(log_span "${logs[@]}" 'select(.msg == "event") | .recv_ts')
				got+=", events over ${span}ms"
				[[ $span -ge 20000 && $span -lt 45000 ]] || ok=0
				;;
			C)
				span=$(log_span "${logs[@]}" 'if .msg == "event" then .recv_ts elif .msg == "exit" then .time | ms else empty end')
				got+=", over ${span}ms after the first event"
				[[ $span -lt 30000 ]] || ok=0
				;;
			P)
				span=$(jq -n '[inputs | select(.msg == "hang_detected") | .reason.idle_silence_ms] | first // 0' "${logs[@]}")
				got+=", hang after ${span}ms of silence"
				[[ $span -ge $((max_silence * 1000)) && $span -lt $(((max_silence + 10) * 1000)) ]] || ok=0
				;;
			T | L)
				span=$(jq -n '[inputs | select(.msg == "exit") | .longest_silence_ms] | last // 0' "${logs[@]}")
				got+=", a silence of ${span}ms"
				;;
			S)
				# The line comes once stdin_wait (3s) has passed with nothing:
				# an agent that never reads stdin (gemini) may answer first.
				span=$(log_span "${logs[@]}" '.time | ms')
				if ! grep -q "stdin gave nothing for" "$d/stderr"; then
					got+=", no line that stdin was closed"
					[[ $span -lt 3000 ]] && got+=" (answered in ${span}ms, before the 3s wait)" || ok=0
				fi
				;;
			esac
			# The wrapper's stdout must be exactly the lines it logged.
			jq -j 'select(.msg == "event") | .raw, "\n"' "${logs[@]}" >"$d/stdout.fromlog"
			{
				cat "$d/stdout"
				[[ ! -s $d/stdout || $(tail -c 1 "$d/stdout") == "" ]] || echo
			} | cmp -s - "$d/stdout.fromlog" || {
				got+=", log differs"
				ok=0
			}
			# jq -e over several inputs judges only the last input's output.
			if jq -n -e '[inputs | select(.msg == "hang_detected")] | length > 0' "${logs[@]}" >/dev/null; then
				[[ $kase == [CP] ]] || {
					got+=", hang declared"
					ok=0
				}
			elif [[ $kase == [CP] ]]; then
				got+=", no hang_detected"
				ok=0
			fi
		else
			# The checks that read the log cannot run: a failure, not a pass.
			got+=", no session log"
			ok=0
		fi
		[[ -z $left ]] || ok=0
	fi
	[[ -z $left ]] || got+=", left: $left"
	if [[ $ok -eq 1 ]]; then
		printf '%s|PASS\n' "$got"
	else
		printf '%s|FAIL\n' "$got"
	fi
}

expected() {
	local agent=$1 kase=$2
	if stalls_alone "$agent" "$kase"; then
		echo "stalled at ${stall_wait}s, no final event"
		return
	fi
	case $kase in
	A) echo "rc 0, stream as captured" ;;
	B) echo "rc 0 after 20-45s, no kill" ;;
	C) echo "hang: rc 124 <30s, nothing left" ;;
	T) echo "rc 0 after ${think}s of pings, no kill" ;;
	L) echo "rc 0 after ${long_think}s of pings, defaults" ;;
	P) echo "hang at max_silence ${max_silence}s, rc 124" ;;
	S) echo "rc 0, stdin closed, stream as A" ;;
	esac
}

# Kills the waves' subshells, then whatever they started.
stop_inner() {
	local bg
	mapfile -t bg < <(jobs -p)
	[[ ${#bg[@]} -eq 0 ]] || kill "${bg[@]}" 2>/dev/null || true
	kill_marked "$session\..*"
}

inner() {
	local kase agent fail=0 got verdict
	trap 'exit 130' INT
	trap 'exit 143' TERM
	trap stop_inner EXIT
	ip link set lo up
	for kase in "${cases[@]}"; do
		for agent in "${agents[@]}"; do
			[[ -v inapplicable[$agent.$kase] ]] || run_case "$agent" "$kase" &
		done
		wait
	done
	printf '%-9s %-5s %-36s %-50s %s\n' agent case expected got result
	for kase in "${cases[@]}"; do
		for agent in "${agents[@]}"; do
			got="no result (the run died)" verdict=FAIL
			[[ ! -v inapplicable[$agent.$kase] ]] || got=${inapplicable[$agent.$kase]} verdict=n/a
			[[ ! -e $run/$agent-$kase/result ]] || IFS='|' read -r got verdict <"$run/$agent-$kase/result"
			printf '%-9s %-5s %-36s %-50s %s\n' "$agent" "$kase" "$(expected "$agent" "$kase")" "$got" "$verdict"
			if [[ $verdict == FAIL ]]; then
				fail=1
				printf '          want: %s\n          seen: %s\n          stderr: %s\n          files: %s\n' \
					"${want[$agent.$kase]}" "$(cat "$run/$agent-$kase/events" 2>/dev/null)" \
					"$(tail -n 1 "$run/$agent-$kase/stderr" 2>/dev/null)" "$run/$agent-$kase"
			fi
		done
	done
	return "$fail"
}

if [[ -z ${_REALAGENTS_RUN_DIR:-} ]]; then
	check_selection
	session=$(cat /proc/sys/kernel/random/uuid)
	outer
else
	run=$_REALAGENTS_RUN_DIR
	session=$_REALAGENTS_SESSION
	inner
fi
