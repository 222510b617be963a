package stream

// What each agent waits on, as far as the wrapper can see it from outside:
// the one process besides its own that does its work, and (model.go) the
// lines of its stream between which it waits on its model.

// runtimes name, per agent, the runtime process that does its work under
// the process the wrapper starts: Codex's npm package runs `node codex.js`,
// which starts the native `codex` binary and forwards signals to it
// (REAL_AGENTS.md); Gemini CLI relaunches itself as a child node with
// memory flags unless GEMINI_CLI_NO_RELAUNCH is set. Claude Code and
// opencode are one native binary, and cursor-agent's launcher execs node:
// none.
var runtimes = map[*Profile]string{
	Codex:  "codex",
	Gemini: "node",
}

// Runtime names the agent's runtime process by its command name (as
// /proc/PID/comm has it): the first child of the agent process, started
// with it, that bears that name does the agent's work. "" for an agent
// that is one process, or a nil profile.
func (p *Profile) Runtime() string { return runtimes[p] }
