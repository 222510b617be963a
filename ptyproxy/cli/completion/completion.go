// Package completion is the command `cursor-wrap completion`: the
// completion script of bash, zsh or fish, made from the command table and
// the flag sets, so that it follows every command and flag added.
package completion

import (
	"flag"
	"fmt"
	"slices"
	"strings"

	"cursor-wrap/ptyproxy/cli"
	"cursor-wrap/ptyproxy/job"
	"cursor-wrap/shellhook"
)

// Command is `cursor-wrap completion`.
var Command = cli.Command{
	Name: "completion", Args: "bash|zsh|fish",
	Summary: "print shell completions for cursor-wrap",
	Run:     Run,
}

// compFlag is a flag as the completions see it.
type compFlag struct {
	name, doc string
	bool      bool // takes no value
	cli.Value
}

// compFlags lists the flags of a flag set (the wrapper's, or a command's
// from the table), so the completions follow every flag added or renamed.
func compFlags(fs *flag.FlagSet) []compFlag {
	var flags []compFlag
	fs.VisitAll(func(f *flag.Flag) {
		flags = append(flags, compFlag{name: f.Name, doc: f.Usage, bool: cli.IsBool(f), Value: cli.Values[f.Name]})
	})
	return flags
}

// wrapperFlags are the wrapper's own flags, as the completions see them.
func wrapperFlags() []compFlag {
	var o cli.Options
	return compFlags(cli.NewFlagSet(&o))
}

func flagNames(flags []compFlag) []string {
	names := make([]string, len(flags))
	for i, f := range flags {
		names[i] = cli.Dashed(f.name)
	}
	return names
}

// completionHow says how each shell loads its completions.
const completionHow = `
  bash: if command -v cursor-wrap >/dev/null; then eval "$(cursor-wrap completion bash)"; fi   in ~/.bashrc
  zsh:  if command -v cursor-wrap >/dev/null; then eval "$(cursor-wrap completion zsh)"; fi    in ~/.zshrc
  fish: cursor-wrap completion fish > ~/.config/fish/completions/cursor-wrap.fish`

// Run prints the completion script of a shell, for the commands of env:
// cursor-wrap completion bash|zsh|fish.
func Run(env *cli.Env, args []string) int {
	completionUsage := env.Usage("completion") + completionHow
	if len(args) != 1 {
		return env.Fail(job.ExitUsage, "%s", completionUsage)
	}
	var script string
	switch args[0] {
	case "-h", "-help", "--help":
		fmt.Fprintln(env.Stdout, completionUsage)
		return 0
	case "bash":
		script = bashCompletion(env.Commands)
	case "zsh":
		script = zshCompletion(env.Commands)
	case "fish":
		script = fishCompletion(env.Commands)
	default:
		return env.Fail(job.ExitUsage, "no completions for %q\n%s", args[0], completionUsage)
	}
	fmt.Fprint(env.Stdout, script)
	return 0
}

// The three scripts follow one rule, from the command table. The first
// word may be a subcommand or a flag. After shell-init or completion comes
// a shell; a word of a subcommand that starts with "-" is one of its
// flags, and its other words are files. Before "--" a word that starts
// with "-" is a wrapper flag; after "--" the words are the agent's
// (files). A flag's value is completed from cli.Values.

// quote single-quotes s for bash and zsh.
func quote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// fishQuote single-quotes s for fish.
func fishQuote(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s) + "'"
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
		case f.Words != nil:
			fmt.Fprintf(&b, "    %s) %s; return ;;\n", cli.Dashed(f.name), words(f.Words))
		case f.File:
			fmt.Fprintf(&b, "    %s) %s; return ;;\n", cli.Dashed(f.name), files)
		case f.Dir:
			fmt.Fprintf(&b, "    %s) %s; return ;;\n", cli.Dashed(f.name), dirs)
		default:
			if free.Len() > 0 {
				free.WriteString(" | ")
			}
			free.WriteString(cli.Dashed(f.name))
		}
	}
	if free.Len() > 0 {
		// Free text: nothing to offer, and no flag names either.
		fmt.Fprintf(&b, "    %s) return ;;\n", free.String())
	}
	return b.String()
}

// commandCases are the case arms, in bash and zsh, for the words after
// each subcommand: first, for the shell of shellArg's commands; then the
// values of its flags (values), and its flags (flags) or its other words
// (others).
func commandCases(commands cli.Table, first string, flags, values func([]compFlag) string, others string) string {
	var b strings.Builder
	for _, c := range commands {
		fmt.Fprintf(&b, "    %s)\n", c.Name)
		if slices.Contains(shellArg, c.Name) {
			fmt.Fprintf(&b, "        %s\n", first)
		}
		cf := compFlags(c.FlagSet())
		if len(cf) > 0 {
			b.WriteString("        case $prev in\n" + indent(values(cf), "    ") + "        esac\n")
			fmt.Fprintf(&b, "        if [[ $cur == -* ]]; then\n            %s\n", flags(cf))
			if others != "" {
				fmt.Fprintf(&b, "        else\n            %s\n", others)
			}
			b.WriteString("        fi\n")
		} else if others != "" {
			fmt.Fprintf(&b, "        %s\n", others)
		}
		b.WriteString("        return ;;\n")
	}
	return b.String()
}

func indent(lines, by string) string {
	var b strings.Builder
	for line := range strings.Lines(lines) {
		b.WriteString(by + line)
	}
	return b.String()
}

func bashCompletion(commands cli.Table) string {
	flags := wrapperFlags()
	words := func(w []string) string {
		return `COMPREPLY=($(compgen -W ` + quote(strings.Join(w, " ")) + ` -- "$cur"))`
	}
	values := func(cf []compFlag) string {
		return valueCases(cf, `COMPREPLY=($(compgen -f -- "$cur"))`, `COMPREPLY=($(compgen -d -- "$cur"))`, words)
	}
	first := `if [ "$COMP_CWORD" -eq 2 ]; then ` + words(shellhook.Shells()) + `; return; fi`
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
        ` + words(commands.Names()) + `
        return
    fi
    case ${COMP_WORDS[1]} in
` + commandCases(commands, first, func(cf []compFlag) string { return words(flagNames(cf)) }, values, "") + `    esac
    for ((i = 1; i < COMP_CWORD; i++)); do
        if [ "${COMP_WORDS[i]}" = -- ]; then return; fi
    done
    case $prev in
` + values(flags) + `    esac
    if [[ $cur == -* ]]; then
        ` + words(append(flagNames(flags), "--")) + `
    fi
}
complete -o default -F _cursor_wrap cursor-wrap
`
}

func zshCompletion(commands cli.Table) string {
	describe := func(name, doc string) string {
		return quote(strings.ReplaceAll(name, ":", `\:`) + ":" + doc)
	}
	describeFlags := func(cf []compFlag) string {
		var opts []string
		for _, f := range cf {
			opts = append(opts, describe(cli.Dashed(f.name), f.doc))
		}
		return strings.Join(opts, " ")
	}
	var cmds []string
	for _, c := range commands {
		cmds = append(cmds, describe(c.Name, c.Summary))
	}
	words := func(w []string) string { return "compadd -- " + strings.Join(w, " ") }
	values := func(cf []compFlag) string { return valueCases(cf, "_files", "_files -/", words) }
	commandFlags := func(cf []compFlag) string {
		return "opts=(" + describeFlags(cf) + "); _describe -t options 'cursor-wrap flag' opts"
	}
	first := `if (( CURRENT == 3 )); then ` + words(shellhook.Shells()) + `; return; fi`
	return `#compdef cursor-wrap
# cursor-wrap completion zsh: load it with  eval "$(cursor-wrap completion zsh)"
# (it runs compinit if nothing has), or save it as _cursor-wrap in a
# directory of $fpath.
_cursor_wrap() {
    local cur=${words[CURRENT]} prev=${words[CURRENT-1]} i
    local -a subcommands flags opts
    subcommands=(` + strings.Join(cmds, " ") + `)
    flags=(` + describeFlags(wrapperFlags()) + " " + describe("--", "the agent's arguments follow") + `)
    if [[ $cur == --*=* ]]; then
        prev=${cur%%=*}
        compset -P '*='
    fi
    if (( CURRENT == 2 )) && [[ $cur != -* ]]; then
        _describe -t commands 'cursor-wrap command' subcommands
        return
    fi
    case ${words[2]} in
` + commandCases(commands, first, commandFlags, values, "_files") + `    esac
    for (( i = 2; i < CURRENT; i++ )); do
        if [[ ${words[i]} == -- ]]; then _files; return; fi
    done
    case $prev in
` + values(wrapperFlags()) + `    esac
    if [[ $cur == -* ]]; then
        _describe -t options 'cursor-wrap flag' flags
    else
        _files
    fi
}
if [[ ${funcstack[1]} == _cursor-wrap ]]; then
    _cursor_wrap "$@"
else
    # compdef comes with compinit, which a fresh zsh has not run.
    (( $+functions[compdef] )) || { autoload -Uz compinit && compinit -i; }
    compdef _cursor_wrap cursor-wrap
fi
`
}

func fishCompletion(commands cli.Table) string {
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
    set -q words[2]; and contains -- $words[2] ` + strings.Join(commands.Names(), " ") + `; and return 1
    return 0
end
function __cursor_wrap_shell_arg
    set -l words (commandline -opc)
    test (count $words) -eq 2; and contains -- $words[2] ` + strings.Join(shellArg, " ") + `
end
function __cursor_wrap_command --argument-names name --description 'true after the subcommand name'
    set -l words (commandline -opc)
    set -q words[2]; and test $words[2] = $name
end
`)
	for _, c := range commands {
		fmt.Fprintf(&b, "complete -c cursor-wrap -n __cursor_wrap_first -f -a %s -d %s\n", c.Name, fishQuote(c.Summary))
	}
	fmt.Fprintf(&b, "complete -c cursor-wrap -n __cursor_wrap_shell_arg -f -a %s\n", fishQuote(strings.Join(shellhook.Shells(), " ")))
	fishFlags(&b, "__cursor_wrap_flags", wrapperFlags())
	for _, c := range commands {
		fishFlags(&b, fishQuote("__cursor_wrap_command "+c.Name), compFlags(c.FlagSet()))
	}
	return b.String()
}

// fishFlags writes the completions of flags, offered while condition holds.
func fishFlags(b *strings.Builder, condition string, flags []compFlag) {
	for _, f := range flags {
		arg := ""
		switch {
		case f.bool:
		case f.Words != nil:
			arg = " -x -a " + fishQuote(strings.Join(f.Words, " "))
		case f.File:
			arg = " -r -F"
		case f.Dir:
			arg = " -x -a '(__fish_complete_directories)'"
		default:
			arg = " -x"
		}
		long := "-l"
		if len(f.name) == 1 {
			long = "-s"
		}
		fmt.Fprintf(b, "complete -c cursor-wrap -n %s %s %s%s -d %s\n", condition, long, f.name, arg, fishQuote(f.doc))
	}
}
