#!/usr/bin/env bash
# Builds cursor-wrap, cursor-wrap-mcp (the server `cursor-wrap mcp` runs)
# and cursor-wrap-otel (the OpenTelemetry exporter a run starts when export
# is configured)
# with the local Go toolchain, installs them into $BINDIR (default
# ~/.local/bin) and adds one line to the startup files of your shell: the
# one this script was started from, else your login shell in the password
# database (it says which, and why), else --shell NAME.
# The line defines cursor-agent and agent to run through the wrapper; it
# names the wrapper by its full path, so it works while $BINDIR is not on
# PATH, and does nothing once the wrapper is gone. Every file changed and
# every line added, replaced or removed is printed. Running it again
# rebuilds and changes no line.
#
# Usage: scripts/install.sh [--shell NAME] [--no-rc] [--no-build] [--uninstall]
#   --shell NAME the shell whose startup files get the line: bash, zsh or fish
#   --no-rc      leave startup files alone
#   --no-build   keep the binaries already in $BINDIR (say, from go install)
#                and only add the line
#   --uninstall  remove the binaries and every line this script added, and
#                the binaries of earlier installs those lines name
#
# BINDIR is the directory the binaries go in; PREFIX, its old name, still
# works, with a warning (it was never the directory above bin/).
#
# Linux (WSL included) and macOS; bash 3.2 or later.
set -euo pipefail

usage() { awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; }

rc_edit=1 build=1 uninstall=0 shell_name=
while [ $# -gt 0 ]; do
	arg=$1
	shift
	case $arg in
	--shell | --shell=*)
		if [ "$arg" = --shell ]; then
			[ $# -gt 0 ] || { echo "install.sh: --shell needs a NAME: bash, zsh or fish" >&2; exit 2; }
			shell_name=$1
			shift
		else
			shell_name=${arg#--shell=}
		fi
		case $shell_name in
		bash | zsh | fish) ;;
		*) echo "install.sh: --shell $shell_name: cursor-wrap has functions for bash, zsh and fish only. Nothing was changed." >&2; exit 2 ;;
		esac
		;;
	--no-rc) rc_edit=0 ;;
	--no-build) build=0 ;;
	--uninstall) uninstall=1 ;;
	-h | --help) usage; exit 0 ;;
	*) echo "install.sh: unknown argument: $arg" >&2; usage >&2; exit 2 ;;
	esac
done

# Refuse what is not supported before anything is touched.
os=$(uname -s)
case $os in
Linux | Darwin) ;;
*)
	echo "install.sh: $os is not supported: cursor-wrap runs on Linux and macOS (on Windows, inside WSL). Nothing was changed." >&2
	exit 1
	;;
esac
if [ -n "${BINDIR:-}" ]; then
	bindir=$BINDIR
	[ -z "${PREFIX:-}" ] || echo "install.sh: PREFIX=$PREFIX is ignored: BINDIR=$BINDIR names the directory the binaries go in" >&2
elif [ -n "${PREFIX:-}" ]; then
	bindir=$PREFIX
	echo "install.sh: PREFIX is now called BINDIR: the directory the binaries go in ($PREFIX/cursor-wrap, not $PREFIX/bin/cursor-wrap); PREFIX still works, as BINDIR" >&2
else
	bindir=$HOME/.local/bin
fi
case $bindir in
/*) ;;
*) echo "install.sh: BINDIR must be an absolute path, not $bindir. Nothing was changed." >&2; exit 2 ;;
esac
# The startup line quotes the path; these would need escaping in some shell.
case $bindir in
*"'"* | *\\* | *"
"*)
	echo "install.sh: BINDIR must not hold a quote, a backslash or a newline. Nothing was changed." >&2
	exit 2
	;;
esac

# parent_shell prints the name of the process that started this script,
# as bash, zsh or fish name it ("-zsh" for a login shell).
parent_shell() {
	local name
	name=$(cat "/proc/$PPID/comm" 2>/dev/null || ps -o comm= -p "$PPID" 2>/dev/null) || true
	name=${name#-}
	echo "${name##*/}"
}

# passwd_shell prints the login shell the password database gives the user.
passwd_shell() {
	local user
	user=$(id -un)
	if [ "$os" = Darwin ]; then
		dscl . -read "/Users/$user" UserShell 2>/dev/null | sed -n 's/^UserShell: *//p'
	else
		getent passwd "$user" 2>/dev/null | cut -d: -f7
	fi
}

# The shell whose startup files get the line, decided before anything is
# touched: --shell, else the shell this script was started from, else the
# login shell in the password database. $SHELL is not asked: a shell that
# does not export it leaves the one of whatever started it.
shell_why=
if [ "$uninstall" = 0 ] && [ "$rc_edit" = 1 ]; then
	if [ -n "$shell_name" ]; then
		shell_why="--shell $shell_name"
	else
		parent=$(parent_shell)
		case $parent in
		bash | zsh | fish)
			shell_name=$parent
			shell_why="$parent: the shell this script was started from (process $PPID)"
			;;
		*)
			login_shell=$(passwd_shell)
			case ${login_shell##*/} in
			bash | zsh | fish)
				shell_name=${login_shell##*/}
				shell_why="$shell_name: your login shell in the password database ($login_shell); this script was started from ${parent:-an unknown process}, not from a shell"
				;;
			*)
				echo "install.sh: cannot tell your shell: this script was started from ${parent:-an unknown process}, not bash, zsh or fish, and the password database gives ${login_shell:-no login shell}. Run it again with --shell bash, --shell zsh or --shell fish (or --no-rc). Nothing was changed." >&2
				exit 2
				;;
			esac
			;;
		esac
	fi
fi

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bin=$bindir/cursor-wrap
mcp=$bindir/cursor-wrap-mcp
otel=$bindir/cursor-wrap-otel
# The marker rides on the line itself, so removal matches whole lines only.
marker='# added by cursor-wrap scripts/install.sh'
# created ends the line in a file the script created, so that --uninstall
# removes the file too once it holds nothing else.
created=' (it created this file)'

tilde() {
	case $1 in
	"$HOME"/*) printf '~/%s\n' "${1#"$HOME"/}" ;;
	*) printf '%s\n' "$1" ;;
	esac
}

# rc_file SHELL prints the startup file an interactive shell reads; for
# bash, whose login shell (macOS's Terminal, tmux, ssh, a console) reads
# other files, bash_login_file prints the one a login bash reads. doctor
# names the same files (shellhook.RCFile).
rc_file() {
	case $1 in
	bash) echo "$HOME/.bashrc" ;;
	zsh) echo "${ZDOTDIR:-$HOME}/.zshrc" ;;
	fish) echo "${XDG_CONFIG_HOME:-$HOME/.config}/fish/config.fish" ;;
	esac
}

# bash_login_file prints the first of ~/.bash_profile, ~/.bash_login and
# ~/.profile that exists: the only one a login bash reads; none, if none.
bash_login_file() {
	local f
	for f in "$HOME/.bash_profile" "$HOME/.bash_login" "$HOME/.profile"; do
		if [ -e "$f" ]; then
			echo "$f"
			return
		fi
	done
}

# wrapper_word prints $bin as one shell word for bash, zsh and fish alike:
# "$HOME/…" under the home directory (so the line still works in a home that
# lives elsewhere, as shared dotfiles do), else in single quotes.
wrapper_word() {
	case $bin in
	"$HOME"/*)
		case ${bin#"$HOME"/} in
		*[\"\$\`!]*) ;;
		*) printf '"$HOME/%s"' "${bin#"$HOME"/}"; return ;;
		esac
		;;
	esac
	printf "'%s'" "$bin"
}

# init_line SHELL [FILE] prints the line for that shell, without the
# marker. In ~/.profile, which sh and dash read too, it runs in bash only.
init_line() {
	w=$(wrapper_word)
	case $1 in
	fish) printf 'if test -x %s; %s shell-init fish | source; end\n' "$w" "$w" ;;
	*)
		case ${2:-} in
		*/.profile) printf 'if [ -n "${BASH_VERSION:-}" ] && [ -x %s ]; then eval "$(%s shell-init %s)"; fi\n' "$w" "$w" "$1" ;;
		*) printf 'if [ -x %s ]; then eval "$(%s shell-init %s)"; fi\n' "$w" "$w" "$1" ;;
		esac
		;;
	esac
}

# hand_lines FILE prints, as N: LINE, the lines that run cursor-wrap
# shell-init and were not added by this script.
hand_lines() {
	CW_MARK=$marker awk '/cursor-wrap["\047]? shell-init/ && !/^[ \t]*#/ && !index($0, ENVIRON["CW_MARK"]) { print NR ": " $0 }' "$1"
}

# completion_lines FILE prints, as N: LINE, the lines that load cursor-wrap's
# completions (the user's own: this script adds none).
completion_lines() {
	awk '/cursor-wrap["\047]? completion/ && !/^[ \t]*#/ { print NR ": " $0 }' "$1"
}

# all_rcs prints every startup file a line of this script can be in: any
# shell's, not just this one's, since the shell may have changed.
all_rcs() {
	printf '%s\n' "$HOME/.bashrc" "$HOME/.bash_profile" "$HOME/.bash_login" "$HOME/.profile" \
		"$(rc_file zsh)" "$(rc_file fish)"
}

# earlier_dirs prints the directories other than $bindir whose cursor-wrap
# a line of this script names: earlier installs, with another BINDIR.
earlier_dirs() {
	local rc
	all_rcs | while IFS= read -r rc; do
		[ -f "$rc" ] && grep -F -- "$marker" "$rc"
	done | sed -n -e 's/.*-x "\([^"]*\)".*/\1/p' -e "s/.*-x '\([^']*\)'.*/\1/p" |
		sed -e "s|^\\\$HOME/|$HOME/|" -e 's|/cursor-wrap$||' | sort -u | grep -vxF -- "$bindir" || true
}

# rewrite FILE LINES PROGRAM [ARGS…] replaces the user's FILE with what
# PROGRAM prints when given FILE's contents on stdin, and only with a
# complete, checked copy: PROGRAM must succeed and print LINES lines. The copy
# is made beside the file the name points to (a dotfile manager's symlink
# stays a symlink), with its mode and owner, and renamed over it in one step;
# the old file is kept as FILE.cursor-wrap-backup. On any failure the file
# is left as it was, and rewrite says so and returns 1.
# The caller says what changed, from the backup, once the change is made.
rewrite() {
	local file=$1 lines=$2 target link dir tmp got
	shift 2
	target=$file
	while [ -L "$target" ]; do
		link=$(readlink "$target")
		case $link in
		/*) target=$link ;;
		*) target=$(dirname "$target")/$link ;;
		esac
	done
	dir=$(dirname "$target")
	if tmp=$(mktemp "$dir/.cursor-wrap.XXXXXX" 2>/dev/null) &&
		cp -p "$target" "$tmp" 2>/dev/null &&
		"$@" <"$target" >"$tmp" &&
		got=$(wc -l <"$tmp" | tr -d ' ') && [ "$got" = "$lines" ] &&
		cp -p "$target" "$file.cursor-wrap-backup" 2>/dev/null &&
		cmp -s "$target" "$file.cursor-wrap-backup" &&
		mv -f "$tmp" "$target"; then
		return 0
	fi
	[ -z "${tmp:-}" ] || rm -f "$tmp"
	echo "$(tilde "$file"): NOT changed: a complete copy could not be written beside it (is its disk full?); nothing was lost" >&2
	return 1
}

# without_marker prints stdin without our lines; grep's status 1 (no line
# left) is success here, 2 (an error) is not.
without_marker() {
	grep -vF -- "$marker" || [ $? = 1 ]
}

# left_behind prints what --uninstall leaves: the config file and the session
# logs, asked of the wrapper itself (before it is removed) and looked for at
# their default places.
left_behind() {
	local cfg="" logs="" out
	if [ -x "$bin" ] && out=$("$bin" config 2>/dev/null); then
		cfg=$(printf '%s\n' "$out" | sed -n '1s/^# config file: \(.*\) ([^)]*)$/\1/p')
		logs=$(printf '%s\n' "$out" | sed -n 's/^log_dir  *= "\(.*\)" *#.*$/\1/p')
	fi
	local found=0 seen=" " p n
	for p in "$cfg" "${CURSOR_WRAP_CONFIG:-${XDG_CONFIG_HOME:-$HOME/.config}/cursor-wrap/config.toml}"; do
		case $seen in *" $p "*) continue ;; esac
		seen="$seen$p "
		if [ -n "$p" ] && [ -f "$p" ]; then
			[ "$found" = 1 ] || echo "left in place (remove them yourself when you no longer want them):"
			found=1
			echo "  $(tilde "$p"), your settings: rm '$p'"
		fi
	done
	for p in "$logs" "$HOME/.cursor-wrap/logs" "${XDG_STATE_HOME:-$HOME/.local/state}/cursor-wrap/logs"; do
		case $seen in *" $p "*) continue ;; esac
		seen="$seen$p "
		if [ -n "$p" ] && [ -d "$p" ]; then
			[ "$found" = 1 ] || echo "left in place (remove them yourself when you no longer want them):"
			found=1
			n=$(find "$p" -maxdepth 1 -name 'cursor-wrap-*.jsonl' | wc -l | tr -d ' ')
			echo "  $(tilde "$p"), $n session logs, which hold your prompts and the agents' output: rm -r '$p'"
		fi
	done
	[ "$found" = 1 ] || echo "no config file or session logs to leave behind"
}

if [ "$uninstall" = 1 ]; then
	left=$(left_behind)
	failed=0
	# The demo agent runs the wrapper: it goes first, by the wrapper, which
	# knows what it made for it.
	demo=${XDG_DATA_HOME:-$HOME/.local/share}/cursor-wrap/demo-agent/cursor-agent
	if [ -e "$demo" ]; then
		if [ -x "$bin" ]; then
			"$bin" demo --remove-agent | grep -e '^removed' || true
		else
			echo "left $(tilde "$demo"), the demo agent, which no longer runs: rm -r '$(dirname "$demo")'"
		fi
	fi
	for f in "$bin" "$mcp" "$otel"; do
		if [ -e "$f" ]; then
			rm -f "$f"
			echo "removed $f"
		else
			echo "$f: not there"
		fi
	done
	earlier_dirs | while IFS= read -r d; do
		for f in "$d/cursor-wrap" "$d/cursor-wrap-mcp" "$d/cursor-wrap-otel"; do
			if [ -e "$f" ]; then
				rm -f "$f"
				echo "removed $f, of an earlier install (a startup line named it)"
			fi
		done
	done
	if [ "$rc_edit" = 1 ]; then
		while IFS= read -r rc; do
			[ -f "$rc" ] || continue
			if grep -qF -- "$marker" "$rc"; then
				if rewrite "$rc" "$(without_marker <"$rc" | wc -l | tr -d ' ')" without_marker; then
					grep -nF -- "$marker" "$rc.cursor-wrap-backup" | while IFS= read -r l; do
						echo "$(tilde "$rc"): removed line ${l%%:*}: ${l#*:}"
					done
					if [ ! -s "$rc" ] && grep -qF -- "$marker$created" "$rc.cursor-wrap-backup"; then
						rm -f -- "$rc" "$rc.cursor-wrap-backup"
						echo "$(tilde "$rc"): removed the file, which the install created and which held nothing else"
					else
						echo "$(tilde "$rc"): the file as it was is kept as $(tilde "$rc").cursor-wrap-backup"
					fi
				else
					failed=1
				fi
			fi
			[ -f "$rc" ] || continue # Removed: the install created it.
			hand_lines "$rc" | while IFS= read -r l; do
				echo "$(tilde "$rc"): left line ${l%%:*}, which this script did not add: ${l#*: }"
			done
			completion_lines "$rc" | while IFS= read -r l; do
				case $l in
				*"command -v cursor-wrap"*) echo "$(tilde "$rc"): left line ${l%%:*}, your line for cursor-wrap's completions, which does nothing without cursor-wrap: ${l#*: }" ;;
				*) echo "$(tilde "$rc"): left line ${l%%:*}, your line for cursor-wrap's completions: without cursor-wrap every new shell says \"command not found\"; remove it: ${l#*: }" ;;
				esac
			done
		done < <(all_rcs)
		f=${XDG_CONFIG_HOME:-$HOME/.config}/fish/completions/cursor-wrap.fish
		[ ! -f "$f" ] || echo "left $(tilde "$f"), the completions you saved for fish: rm '$f'"
		echo "shells already open keep their cursor-agent function, which now runs the real agent, until they exit"
	fi
	printf '%s\n' "$left"
	exit "$failed"
fi

if [ "$build" = 0 ]; then
	if [ ! -x "$bin" ]; then
		echo "install.sh: --no-build, but there is no cursor-wrap at $bin. Nothing was changed." >&2
		exit 1
	fi
	echo "kept $bin (--no-build)"
else
	command -v go >/dev/null || {
		echo "install.sh: go not found on PATH; install Go first. Nothing was changed." >&2
		exit 1
	}
	tmp=$(mktemp -d "${TMPDIR:-/tmp}/cursor-wrap-build.XXXXXX")
	trap 'rm -rf "$tmp"' EXIT
	# Built aside first: a failed build changes nothing. Without cgo: a
	# static binary starts 5 ms sooner (no dynamic loader, no libc threads)
	# and needs nothing of C (net's resolver is Go's own).
	(cd "$repo" && CGO_ENABLED=0 go build -o "$tmp/cursor-wrap" . && CGO_ENABLED=0 go build -o "$tmp/cursor-wrap-mcp" ./mcpserver/cmd/cursor-wrap-mcp &&
		CGO_ENABLED=0 go build -o "$tmp/cursor-wrap-otel" ./ptyproxy/telemetry/cmd/cursor-wrap-otel)
	if [ ! -d "$bindir" ]; then
		mkdir -p "$bindir"
		echo "created $bindir"
	fi
	for name in cursor-wrap cursor-wrap-mcp cursor-wrap-otel; do
		# A rename in the same directory: a running wrapper keeps its file.
		cp "$tmp/$name" "$bindir/.$name.new"
		mv -f "$bindir/.$name.new" "$bindir/$name"
		echo "installed $bindir/$name"
	done
fi
on_path=0
case ":$PATH:" in
*":$bindir:"*) on_path=1 ;;
esac

# edit_rc SHELL FILE adds the line for SHELL to FILE, or says why not.
edit_rc() {
	local sh=$1 rc=$2 line shown
	line="$(init_line "$sh" "$rc") $marker"
	shown=$(tilde "$rc")
	if [ -f "$rc" ] && grep -qF -- "$marker$created" "$rc"; then
		line=$line$created
	fi
	if [ -f "$rc" ] && grep -qxF -- "$line" "$rc"; then
		echo "$shown already has the cursor-wrap line; not changed"
	elif [ -f "$rc" ] && grep -qF -- "$marker" "$rc"; then
		# An earlier install's line (another BINDIR, an older form): replaced
		# in place, so whatever the user put around it keeps its order.
		rewrite "$rc" "$(($(without_marker <"$rc" | wc -l) + 1))" env CW_MARK="$marker" CW_LINE="$line" awk '
			index($0, ENVIRON["CW_MARK"]) { if (!done) print ENVIRON["CW_LINE"]; done = 1; next }
			{ print }' || exit 1
		grep -nF -- "$marker" "$rc.cursor-wrap-backup" | while IFS= read -r l; do
			echo "$shown: replaced line ${l%%:*}: ${l#*:}"
		done
		echo "  with: $line"
		echo "$shown: the file as it was is kept as $shown.cursor-wrap-backup"
	elif [ -f "$rc" ] && [ -n "$(hand_lines "$rc")" ]; then
		hand_lines "$rc" | while IFS= read -r l; do
			echo "$shown: line ${l%%:*} already runs cursor-wrap shell-init (a line of your own); not changed: ${l#*: }"
			case $l in
			*/cursor-wrap*) ;;
			*) [ "$on_path" = 1 ] || echo "  it finds cursor-wrap on PATH, which lacks $bindir: put $bin in the line, or add $bindir to PATH" ;;
			esac
		done
	else
		mkdir -p "$(dirname "$rc")"
		if [ -e "$rc" ]; then
			# awk ends the file's last line if it lacks its newline, so ours
			# starts a line of its own.
			rewrite "$rc" "$(($(awk 'END { print NR }' "$rc") + 1))" env CW_LINE="$line" awk '{ print } END { print ENVIRON["CW_LINE"] }' || exit 1
		else
			line=$line$created
			echo "$line" >"$rc"
		fi
		echo "$shown: added line $(wc -l <"$rc" | tr -d ' '): $line"
	fi
}

# edit_rcs adds the line to the startup files of the shell decided above.
# For bash, to ~/.bashrc and to the file a login bash reads, unless that
# file sources ~/.bashrc, saying why.
edit_rcs() {
	local sh=$shell_name login
	echo "shell: $shell_why"
	edit_rc "$sh" "$(rc_file "$sh")"
	[ "$sh" = bash ] || return 0
	login=$(bash_login_file)
	if [ -z "$login" ]; then
		echo "a login bash (tmux, ssh, a console$([ "$os" = Darwin ] && echo ", Terminal")) reads only the first of ~/.bash_profile, ~/.bash_login and ~/.profile, and ~/.bashrc only if that one sources it; there is none, so ~/.bash_profile, created with the line, shadows none of them"
		edit_rc bash "$HOME/.bash_profile"
	elif grep -q '\.bashrc' "$login"; then
		echo "a login bash (tmux, ssh, a console$([ "$os" = Darwin ] && echo ", Terminal")) reads $(tilde "$login"), which sources ~/.bashrc: not changed"
	else
		echo "a login bash (tmux, ssh, a console$([ "$os" = Darwin ] && echo ", Terminal")) reads $(tilde "$login") and not ~/.bashrc: the line goes there too"
		edit_rc bash "$login"
	fi
}

earlier=$(earlier_dirs)
if [ "$rc_edit" = 1 ]; then
	edit_rcs
else
	echo "startup files left alone (--no-rc)"
fi
printf '%s\n' "$earlier" | while IFS= read -r d; do
	[ -n "$d" ] && [ -e "$d/cursor-wrap" ] || continue
	if [ "$rc_edit" = 1 ]; then
		echo "an earlier install is in $d (a startup line named it; now it names $bin): remove it with: rm $d/cursor-wrap $d/cursor-wrap-mcp $d/cursor-wrap-otel"
	else
		echo "an earlier install is in $d, which a startup line still runs (--no-rc left it): run this script without --no-rc to move the line here"
	fi
done
check="$(if [ "$on_path" = 1 ]; then echo cursor-wrap; else echo "$bin"; fi) doctor"
if [ "$rc_edit" = 0 ]; then
	[ "$on_path" = 1 ] || echo "$bindir is not on PATH, and no startup line was added (--no-rc): type cursor-wrap as $bin, or add $bindir to PATH"
	echo "cursor-agent goes through the wrapper once your shell loads \`cursor-wrap shell-init\` (README: The shell line); check the installation with: $check"
	exit 0
fi
if [ "$on_path" = 0 ]; then
	echo "$bindir is not on PATH: the shell line names the wrapper by its full path, so cursor-agent goes through it all the same; to type cursor-wrap itself, add $bindir to PATH"
fi
echo "open a new shell to use it, and check the installation with: $check"
