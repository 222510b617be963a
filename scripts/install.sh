#!/usr/bin/env bash
# Builds cursor-wrap and cursor-wrap-mcp (the server `cursor-wrap mcp`
# runs) with the local Go toolchain, installs them into $PREFIX (default
# ~/.local/bin) and adds the shell-init line to the rc file of the shell in
# $SHELL, once.
#
# Usage: scripts/install.sh [--no-rc] [--uninstall]
#   --no-rc      leave rc files alone
#   --uninstall  remove the binaries and every line this script added
set -euo pipefail

usage() { sed -n '2,9s/^# \{0,1\}//p' "$0"; }

rc_edit=1 uninstall=0
for arg in "$@"; do
	case $arg in
	--no-rc) rc_edit=0 ;;
	--uninstall) uninstall=1 ;;
	-h | --help) usage; exit 0 ;;
	*) echo "install.sh: unknown argument: $arg" >&2; usage >&2; exit 2 ;;
	esac
done

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
prefix=${PREFIX:-$HOME/.local/bin}
bin=$prefix/cursor-wrap
mcp=$prefix/cursor-wrap-mcp
# The marker rides on the line itself, so removal matches whole lines only.
marker='# added by cursor-wrap scripts/install.sh'

# rc_file SHELL prints the rc file of that shell; init_line SHELL its line.
rc_file() {
	case $1 in
	bash) echo "$HOME/.bashrc" ;;
	zsh) echo "${ZDOTDIR:-$HOME}/.zshrc" ;;
	fish) echo "${XDG_CONFIG_HOME:-$HOME/.config}/fish/config.fish" ;;
	esac
}
init_line() {
	case $1 in
	fish) echo "cursor-wrap shell-init fish | source" ;;
	*) echo "eval \"\$(cursor-wrap shell-init $1)\"" ;;
	esac
}
tilde() { echo "${1/#"$HOME"/\~}"; }

if [ "$uninstall" = 1 ]; then
	for f in "$bin" "$mcp"; do
		if [ -e "$f" ]; then
			rm -f "$f"
			echo "removed $f"
		fi
	done
	[ "$rc_edit" = 1 ] || exit 0
	# Every shell's file, not just $SHELL's: the login shell may have changed.
	for sh in bash zsh fish; do
		rc=$(rc_file "$sh") line="$(init_line "$sh") $marker"
		if [ -f "$rc" ] && grep -qxF "$line" "$rc"; then
			kept=$(mktemp)
			grep -vxF "$line" "$rc" >"$kept" || true # Status 1: nothing else left.
			# Copy back rather than move: keeps the file's mode, owner and any symlink.
			cat "$kept" >"$rc"
			rm -f "$kept"
			echo "removed the cursor-wrap line from $(tilde "$rc")"
		fi
	done
	exit 0
fi

command -v go >/dev/null || { echo "install.sh: go not found on PATH; install Go first" >&2; exit 1; }
mkdir -p "$prefix"
(cd "$repo" && go build -o "$bin" . && go build -o "$mcp" ./mcpserver/cmd/cursor-wrap-mcp)
echo "installed $bin"
echo "installed $mcp"
case ":$PATH:" in
*":$prefix:"*) ;;
*) echo "$prefix is not on PATH: add it, e.g. export PATH=\"$prefix:\$PATH\"" ;;
esac

[ "$rc_edit" = 1 ] || exit 0
sh=$(basename "${SHELL:-}")
rc=$(rc_file "$sh")
if [ -z "$rc" ]; then
	echo "could not pick an rc file for SHELL=${SHELL:-(unset)}; add the line for your shell by hand:"
	for s in bash zsh fish; do echo "  $s: $(init_line "$s")"; done
	exit 0
fi
line=$(init_line "$sh")
# A line the user wrote by hand counts too.
if [ -f "$rc" ] && grep -qF "$line" "$rc"; then
	echo "$(tilde "$rc") already has the cursor-wrap line"
	exit 0
fi
mkdir -p "$(dirname "$rc")"
# Start on a line of our own even if the file lacks a final newline.
if [ -s "$rc" ] && [ -n "$(tail -c 1 "$rc")" ]; then echo >>"$rc"; fi
echo "$line $marker" >>"$rc"
echo "added '$line' to $(tilde "$rc")"
