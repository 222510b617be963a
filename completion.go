package main

import (
	"flag"
	"fmt"
	"slices"
	"strings"

	"cursor-wrap/ptyproxy/job"
	"cursor-wrap/ptyproxy/notify"
	"cursor-wrap/shellhook"
)

// subcommands are the first words run dispatches on, as the completions
// offer them.
var subcommands = []struct{ name, doc string }{
	{"shell-init", "print the functions that route cursor-agent through the wrapper"},
	{"inspect", "show a session log as a timeline"},
	{"sessions", "list the recent sessions, one line each"},
	{"config", "print the effective config, or write a new file"},
	{"doctor", "check the installation"},
	{"mcp", "serve watched agents to MCP clients on stdio"},
	{"demo", "watch a normal run and a hang"},
	{"completion", "print shell completions for cursor-wrap"},
	{"version", "print the version"},
	{"help", "print the usage"},
}

// flagValues says what the value of a wrapper flag can be, for the flags
// whose values can be listed or are paths; the others take free text.
var flagValues = map[string]valueKind{
	"log-level": {words: []string{"debug", "info", "warn", "error"}},
	"notify-on": {words: notify.Names(notify.Events)},
	"stdin":     {words: []string{"auto", "close"}},
	"agent":     {words: shellhook.Agents()},
	"config":    {file: true},
	"agent-bin": {file: true},
	"log-dir":   {dir: true},
	"workspace": {dir: true},
}

type valueKind struct {
	words     []string
	file, dir bool
}

// compFlag is a wrapper flag as the completions see it.
type compFlag struct {
	name, doc string
	bool      bool // takes no value
	valueKind
}

// compFlags lists the wrapper's flags from its flag set, so the completions
// follow every flag added or renamed.
func compFlags() []compFlag {
	var o options
	var flags []compFlag
	newFlagSet(&o).VisitAll(func(f *flag.Flag) {
		flags = append(flags, compFlag{name: f.Name, doc: f.Usage, bool: isBool(f), valueKind: flagValues[f.Name]})
	})
	return flags
}

const completionUsage = `usage: cursor-wrap completion bash|zsh|fish
  bash: eval "$(cursor-wrap completion bash)"     in ~/.bashrc
  zsh:  eval "$(cursor-wrap completion zsh)"      in ~/.zshrc, after compinit
  fish: cursor-wrap completion fish > ~/.config/fish/completions/cursor-wrap.fish`

// completion prints the completion script of a shell:
// cursor-wrap completion bash|zsh|fish.
func completion(args []string) int {
	if len(args) != 1 {
		return fail(job.ExitUsage, "%s", completionUsage)
	}
	var script string
	switch args[0] {
	case "-h", "-help", "--help":
		fmt.Println(completionUsage)
		return 0
	case "bash":
		script = bashCompletion()
	case "zsh":
		script = zshCompletion()
	case "fish":
		script = fishCompletion()
	default:
		return fail(job.ExitUsage, "no completions for %q\n%s", args[0], completionUsage)
	}
	fmt.Print(script)
	return 0
}

// The three scripts follow one rule. The first word may be a subcommand or
// a flag. After shell-init or completion comes a shell; after doctor
// --shell, too; the other subcommands' arguments are files. Before "--" a
// word that starts with "-" is a wrapper flag, and a flag's value is
// completed from flagValues; after "--" the words are the agent's (files).

// quote single-quotes s for bash and zsh.
func quote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// fishQuote single-quotes s for fish.
func fishQuote(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s) + "'"
}

func subcommandNames() []string {
	var names []string
	for _, c := range subcommands {
		names = append(names, c.name)
	}
	return names
}

// shellArg are the subcommands whose first argument is a shell.
var shellArg = []string{"shell-init", "completion"}

// valueCases are the case arms, in bash and zsh, that complete the value
// of each flag that takes one.
func valueCases(flags []compFlag, files, dirs string, words func([]string) string) string {
	var b, free strings.Builder
	for _, f := range flags {
		switch {
		case f.bool:
		case f.words != nil:
			fmt.Fprintf(&b, "    --%s) %s; return ;;\n", f.name, words(f.words))
		case f.file:
			fmt.Fprintf(&b, "    --%s) %s; return ;;\n", f.name, files)
		case f.dir:
			fmt.Fprintf(&b, "    --%s) %s; return ;;\n", f.name, dirs)
		default:
			if free.Len() > 0 {
				free.WriteString(" | ")
			}
			free.WriteString("--" + f.name)
		}
	}
	if free.Len() > 0 {
		// Free text: nothing to offer, and no flag names either.
		fmt.Fprintf(&b, "    %s) return ;;\n", free.String())
	}
	return b.String()
}

func bashCompletion() string {
	flags := compFlags()
	var names []string
	for _, f := range flags {
		names = append(names, "--"+f.name)
	}
	words := func(w []string) string {
		return `COMPREPLY=($(compgen -W ` + quote(strings.Join(w, " ")) + ` -- "$cur"))`
	}
	shells := words(shellhook.Shells())
	// No arrays beyond COMP_WORDS and COMPREPLY, no ${x,,}: bash 3.2 (macOS)
	// runs it too.
	return `# cursor-wrap completion bash: load it with  eval "$(cursor-wrap completion bash)"
_cursor_wrap() {
    local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]} i
    COMPREPLY=()
    # COMP_WORDBREAKS splits --flag=value into three words.
    if [ "$cur" = = ]; then
        cur=
    elif [ "$prev" = = ] && [ "$COMP_CWORD" -gt 2 ]; then
        prev=${COMP_WORDS[COMP_CWORD-2]}
    fi
    if [ "$COMP_CWORD" -eq 1 ] && [[ $cur != -* ]]; then
        ` + words(subcommandNames()) + `
        return
    fi
    case ${COMP_WORDS[1]} in
    ` + strings.Join(shellArg, " | ") + `)
        if [ "$COMP_CWORD" -eq 2 ]; then ` + shells + `; fi
        return ;;
    doctor)
        if [ "$prev" = --shell ]; then ` + shells + `; fi
        return ;;
    ` + strings.Join(slices.DeleteFunc(subcommandNames(), func(s string) bool { return slices.Contains(shellArg, s) || s == "doctor" }), " | ") + `)
        return ;;
    esac
    for ((i = 1; i < COMP_CWORD; i++)); do
        if [ "${COMP_WORDS[i]}" = -- ]; then return; fi
    done
    case $prev in
` + valueCases(flags, `COMPREPLY=($(compgen -f -- "$cur"))`, `COMPREPLY=($(compgen -d -- "$cur"))`, words) + `    esac
    if [[ $cur == -* ]]; then
        ` + words(append(names, "--")) + `
    fi
}
complete -o default -F _cursor_wrap cursor-wrap
`
}

func zshCompletion() string {
	flags := compFlags()
	describe := func(name, doc string) string {
		return quote(strings.ReplaceAll(name, ":", `\:`) + ":" + doc)
	}
	var cmds, opts []string
	for _, c := range subcommands {
		cmds = append(cmds, describe(c.name, c.doc))
	}
	for _, f := range flags {
		opts = append(opts, describe("--"+f.name, f.doc))
	}
	opts = append(opts, describe("--", "the agent's arguments follow"))
	words := func(w []string) string { return "compadd -- " + strings.Join(w, " ") }
	shells := words(shellhook.Shells())
	return `#compdef cursor-wrap
# cursor-wrap completion zsh: load it with  eval "$(cursor-wrap completion zsh)"
# after compinit, or save it as _cursor-wrap in a directory of $fpath.
_cursor_wrap() {
    local cur=${words[CURRENT]} prev=${words[CURRENT-1]} i
    local -a subcommands flags
    subcommands=(` + strings.Join(cmds, " ") + `)
    flags=(` + strings.Join(opts, " ") + `)
    if [[ $cur == --*=* ]]; then
        prev=${cur%%=*}
        compset -P '*='
    fi
    if (( CURRENT == 2 )) && [[ $cur != -* ]]; then
        _describe -t commands 'cursor-wrap command' subcommands
        return
    fi
    case ${words[2]} in
    ` + strings.Join(shellArg, " | ") + `)
        if (( CURRENT == 3 )); then ` + shells + `; fi
        return ;;
    doctor)
        if [[ $prev == --shell ]]; then ` + shells + `; fi
        return ;;
    ` + strings.Join(slices.DeleteFunc(subcommandNames(), func(s string) bool { return slices.Contains(shellArg, s) || s == "doctor" }), " | ") + `)
        _files
        return ;;
    esac
    for (( i = 2; i < CURRENT; i++ )); do
        if [[ ${words[i]} == -- ]]; then _files; return; fi
    done
    case $prev in
` + valueCases(flags, "_files", "_files -/", words) + `    esac
    if [[ $cur == -* ]]; then
        _describe -t options 'cursor-wrap flag' flags
    else
        _files
    fi
}
if [[ ${funcstack[1]} == _cursor-wrap ]]; then
    _cursor_wrap "$@"
else
    compdef _cursor_wrap cursor-wrap
fi
`
}

func fishCompletion() string {
	var b strings.Builder
	b.WriteString(`# cursor-wrap completion fish: load it with  cursor-wrap completion fish | source
# or save it as ~/.config/fish/completions/cursor-wrap.fish
complete -c cursor-wrap -e
function __cursor_wrap_first
    test (count (commandline -opc)) -eq 1
end
function __cursor_wrap_flags --description 'true while wrapper flags may come'
    set -l words (commandline -opc)
    contains -- -- $words; and return 1
    set -q words[2]; and contains -- $words[2] ` + strings.Join(subcommandNames(), " ") + `; and return 1
    return 0
end
function __cursor_wrap_shell_arg
    set -l words (commandline -opc)
    test (count $words) -eq 2; and contains -- $words[2] ` + strings.Join(shellArg, " ") + `
end
`)
	shells := fishQuote(strings.Join(shellhook.Shells(), " "))
	for _, c := range subcommands {
		fmt.Fprintf(&b, "complete -c cursor-wrap -n __cursor_wrap_first -f -a %s -d %s\n", c.name, fishQuote(c.doc))
	}
	fmt.Fprintf(&b, "complete -c cursor-wrap -n __cursor_wrap_shell_arg -f -a %s\n", shells)
	fmt.Fprintf(&b, "complete -c cursor-wrap -n '__fish_seen_subcommand_from doctor' -l shell -x -a %s -d 'the shell to check'\n", shells)
	for _, f := range compFlags() {
		arg := ""
		switch {
		case f.bool:
		case f.words != nil:
			arg = " -x -a " + fishQuote(strings.Join(f.words, " "))
		case f.file:
			arg = " -r -F"
		case f.dir:
			arg = " -x -a '(__fish_complete_directories)'"
		default:
			arg = " -x"
		}
		fmt.Fprintf(&b, "complete -c cursor-wrap -n __cursor_wrap_flags -l %s%s -d %s\n", f.name, arg, fishQuote(f.doc))
	}
	return b.String()
}
