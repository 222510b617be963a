package demo

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"cursor-wrap/ptyproxy/cli"
	"cursor-wrap/ptyproxy/config"
	"cursor-wrap/ptyproxy/fakeagent"
	"cursor-wrap/ptyproxy/job"
	"cursor-wrap/stream"
)

// The demo agent is a script at job.DemoAgent that runs this binary as
// fakeagent.Demo. Its second line says it is ours; its "made" lines name
// the directories --install-agent made for it, which --remove-agent
// removes with it, so that the home is left as it was.
const (
	agentHeader = "# cursor-wrap's demo agent, not Cursor's cursor-agent: `cursor-wrap demo --install-agent` wrote it, `cursor-wrap demo --remove-agent` removes it."
	madePrefix  = "# made: "
)

// installAgent writes the demo agent, or writes it again for this
// wrapper, and says how to try it and how to remove it.
func installAgent(env *cli.Env) int {
	path := job.DemoAgent()
	if path == "" {
		return env.Fail(job.ExitWrapper, "demo: no home directory to put the demo agent in: set HOME")
	}
	wrapper := env.Self()
	if !filepath.IsAbs(wrapper) || strings.ContainsAny(wrapper, "'\n") {
		return env.Fail(job.ExitWrapper, "demo: this cursor-wrap's path (%q) cannot be written in a script; install it somewhere plainer (scripts/install.sh)", wrapper)
	}
	made, ours, err := readAgent(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return env.Fail(job.ExitWrapper, "demo: %v", err)
	}
	if err == nil && !ours {
		return env.Fail(job.ExitWrapper, "demo: %s is not cursor-wrap's demo agent; it is left as it is", path)
	}
	now, err := makeDirs(filepath.Dir(path))
	if err != nil {
		return env.Fail(job.ExitWrapper, "demo: %v", err)
	}
	made = append(made, now...)
	if err := writeAgent(path, wrapper, made); err != nil {
		return env.Fail(job.ExitWrapper, "demo: %v", err)
	}
	name := env.TypedName()
	fmt.Fprintf(env.Stdout, "installed the demo agent: %s\n", cli.Tilde(path))
	fmt.Fprintf(env.Stdout, `It stands in for cursor-agent while none is installed: the cursor-agent function,
the wrapper and its MCP server run it. It is not Cursor's agent: it reads no code and changes
nothing, and its answers, its --version and its runs in sessions and report ("cursor (demo)")
say it is the demo.
Try it:
  cursor-agent -p "fix the failing test"
  cursor-agent -p --output-format stream-json "fix the failing test"
  CURSOR_WRAP_IDLE_TIMEOUT=10s cursor-agent -p hang    a hang, stopped 10s in: exit 124
  cursor-agent -p ask                                  a question only a person can answer: exit 85
  %[1]s sessions
  %[1]s doctor
Remove it with: %[1]s demo --remove-agent (Cursor's cursor-agent, once installed, is run before it)
`, name)
	// Say it when the demo would not be the agent run.
	cfg, _, err := config.Load("", nil)
	if err != nil {
		fmt.Fprintf(env.Stdout, "! the config cannot be read, so no run starts until it is fixed: %v\n", err)
		return 0
	}
	switch cmd, err := job.Resolve(cfg, job.Request{Alias: true}); {
	case err != nil:
		fmt.Fprintf(env.Stdout, "! the wrapper would not run it: %v\n", err)
	case !cmd.Demo:
		fmt.Fprintf(env.Stdout, "! the wrapper runs %s, not the demo (%s); to try the demo: CURSOR_WRAP_AGENT_BIN=%s cursor-agent -p \"fix the failing test\"\n",
			cmd.Path, agentFrom(cfg), job.ShellWords([]string{path}))
	}
	return 0
}

// agentFrom says where the agent run instead of the demo comes from.
func agentFrom(cfg config.Config) string {
	if cfg.AgentBin != "" {
		return "agent_bin, " + string(cfg.Source("agent_bin"))
	}
	return "found on PATH"
}

// removeAgent removes the demo agent and the directories installAgent
// made for it, when nothing else is in them.
func removeAgent(env *cli.Env) int {
	path := job.DemoAgent()
	made, ours, err := readAgent(path)
	switch {
	case path == "" || errors.Is(err, fs.ErrNotExist):
		fmt.Fprintf(env.Stdout, "no demo agent at %s: nothing to remove\n", cli.Tilde(path))
		return 0
	case err != nil:
		return env.Fail(job.ExitWrapper, "demo: %v", err)
	case !ours:
		return env.Fail(job.ExitWrapper, "demo: %s is not cursor-wrap's demo agent; it is left as it is", path)
	}
	if err := os.Remove(path); err != nil {
		return env.Fail(job.ExitWrapper, "demo: %v", err)
	}
	fmt.Fprintf(env.Stdout, "removed the demo agent %s\n", cli.Tilde(path))
	for _, dir := range slices.Backward(made) {
		// Only while empty: something of the user's put there stays.
		if os.Remove(dir) == nil {
			fmt.Fprintf(env.Stdout, "removed %s, which --install-agent made\n", cli.Tilde(dir))
		}
	}
	if cfg, _, err := config.Load("", nil); err == nil {
		if cmd, err := job.Resolve(cfg, job.Request{Alias: true}); err == nil {
			fmt.Fprintf(env.Stdout, "cursor-agent now runs %s\n", cmd.Path)
		} else {
			fmt.Fprintf(env.Stdout, "cursor-agent now finds no agent: install Cursor's with `%s`\n", stream.Cursor.Install)
		}
	}
	fmt.Fprintln(env.Stdout, `the demo's runs stay in the session logs, listed as "cursor (demo)" in sessions and report`)
	return 0
}

// readAgent reads the demo agent at path: the directories it says were
// made for it, and whether it is ours at all.
func readAgent(path string) (made []string, ours bool, err error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, false, err
	}
	lines := strings.Split(string(b), "\n")
	if len(lines) < 2 || lines[1] != agentHeader {
		return nil, false, nil
	}
	for _, l := range lines {
		if dir, ok := strings.CutPrefix(l, madePrefix); ok && filepath.IsAbs(dir) {
			made = append(made, dir)
		}
	}
	return made, true, nil
}

// makeDirs makes dir and the directories above it that are missing, and
// returns those it made, outermost first.
func makeDirs(dir string) ([]string, error) {
	var missing []string
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Lstat(d); err == nil || d == filepath.Dir(d) {
			break
		}
		missing = append(missing, d)
	}
	slices.Reverse(missing)
	for i, d := range missing {
		if err := os.Mkdir(d, 0o755); err != nil {
			return missing[:i], err
		}
	}
	return missing, nil
}

// writeAgent writes the demo agent's script at path, whole or not at all:
// it runs the wrapper as the demo agent, else the cursor-wrap on PATH.
func writeAgent(path, wrapper string, made []string) error {
	var b strings.Builder
	b.WriteString("#!/bin/sh\n" + agentHeader + "\n")
	b.WriteString("# cursor-wrap runs it while no cursor-agent is installed; it answers any prompt and changes nothing.\n")
	for _, d := range made {
		b.WriteString(madePrefix + d + "\n")
	}
	fmt.Fprintf(&b, `w='%s'
if [ ! -x "$w" ]; then
  w=$(command -v cursor-wrap) || { echo "cursor-agent (demo): cursor-wrap is gone from '%s' and not on PATH: run cursor-wrap demo --install-agent again, or remove $0" >&2; exit 127; }
fi
exec "$w" %s "$@"
`, wrapper, wrapper, fakeagent.DemoSubcommand)
	tmp, err := os.CreateTemp(filepath.Dir(path), ".cursor-agent-*")
	if err != nil {
		return err
	}
	_, err = tmp.WriteString(b.String())
	if err == nil {
		err = tmp.Chmod(0o755)
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		_ = os.Remove(tmp.Name()) // Best effort: the error says what failed.
	}
	return err
}
