package job

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"cursor-wrap/ptyproxy/config"
	"cursor-wrap/shellhook"
	"cursor-wrap/stream"
)

// A Request is what a caller asks to run: the wrapper command passes the
// agent's arguments as the user gave them, the MCP server a prompt.
type Request struct {
	Args   []string // the agent's arguments (the wrapper command)
	Prompt string   // the task, one argument (the MCP server)
	Resume string   // a session to resume (the MCP server)
	// Alias adds nothing to Args and watches only headless runs, as the
	// shell functions need; otherwise direct mode adds what a headless,
	// streaming run needs.
	Alias     bool
	Agent     string // a profile by name; "" for the configured agent
	Invoked   string // the command the user typed, from the shell function
	Model     string // "" for the default: auto for cursor, the agent's own for others
	Workspace string // the agent's workspace and working directory, "" for ours
	NoForce   bool   // direct mode: do not add the agent's --force
	// Wrapper is the cursor-wrap binary, never taken for the agent;
	// "" for this process's executable.
	Wrapper string
}

// A Command is how to start the agent: the binary, its arguments, its
// environment and directory, and how much of its output can be watched.
type Command struct {
	Profile *stream.Profile
	Path    string
	Args    []string
	// Given are the arguments as the caller gave them, before the wrapper
	// added its own (an MCP call's prompt after "--").
	Given []string
	Env   []string
	Dir   string
	// Mode is Events for a streaming run, Bytes for another headless
	// output format, Interactive for a run the wrapper must not watch
	// (alias mode only: the caller execs the agent instead).
	Mode stream.Mode
	// Direct is set when the wrapper chose the headless arguments.
	Direct bool
	// Demo is set when the agent is cursor-wrap's demo agent, not the
	// real one: its runs say so wherever they are listed.
	Demo bool
}

// Parse returns the output parser, nil when only bytes can be watched.
func (c Command) Parse() func(stream.Line) stream.Event {
	if c.Mode != stream.Events {
		return nil
	}
	return c.Profile.Parse
}

// Watch names how the output is watched, for the command record.
func (c Command) Watch() string {
	if c.Mode == stream.Events {
		return "events"
	}
	return "bytes"
}

// ErrInvalid marks a request that is the caller's to fix (an agent there
// is no profile of, a resume the agent cannot do), as opposed to a problem
// of the machine (no agent binary).
var ErrInvalid = errors.New("invalid request")

// invalid marks err as the caller's to fix, without changing its words.
type invalid struct{ error }

func (e invalid) Is(target error) bool { return target == ErrInvalid }
func (e invalid) Unwrap() error        { return e.error }

// Resolve finds the agent for a request and builds its command line: the
// agent binary (agent_bin, else the profile's commands on PATH that are
// not the wrapper, the name the user typed first), its profile (the
// configured one, else the binary's name picks it), its environment (one
// wrapper deeper), and its arguments. StartStatus maps its errors to exit
// statuses.
func Resolve(cfg config.Config, r Request) (Command, error) {
	wrapper := r.Wrapper
	if wrapper == "" {
		wrapper, _ = os.Executable()
	}
	profile, bin, err := findAgent(cfg, r, wrapper)
	if err != nil {
		return Command{Profile: profile}, err
	}
	env, err := shellhook.ChildEnv(os.Environ())
	if err != nil {
		return Command{Profile: profile}, err
	}
	workspace := r.Workspace
	if workspace != "" {
		// The agent runs in it, so a relative one must not be read twice.
		if workspace, err = filepath.Abs(workspace); err != nil {
			return Command{Profile: profile}, err
		}
	}
	c := Command{Profile: profile, Path: bin, Env: env, Dir: workspace, Args: r.Args, Demo: IsDemoAgent(bin)}
	if r.Prompt != "" || r.Resume != "" {
		// After "--" a prompt is always a prompt: "--workspace=/" or
		// "--resume=X" as a prompt must not become the agent's flags.
		c.Args = []string{"--", r.Prompt}
	}
	c.Given = c.Args
	if r.Alias {
		c.Mode = profile.ModeOf(c.Args)
		c.Dir = ""
		return c, nil
	}
	model := r.Model
	if model == "" && profile == stream.Cursor {
		model = "auto"
	}
	c.Args = profile.Headless(c.Args, stream.Direct{Model: model, Workspace: workspace, Force: !r.NoForce})
	if r.Resume != "" {
		if !profile.CanResume() {
			return c, invalid{fmt.Errorf("%s cannot resume a session by id", profile.Name)}
		}
		c.Args = profile.Resume(c.Args, r.Resume, r.Prompt)
	}
	c.Mode, c.Direct = profile.ModeOf(c.Args), true
	return c, nil
}

// findAgent resolves the agent: the configured one when the request names
// none or names that one; another agent by its own commands on PATH.
func findAgent(cfg config.Config, r Request, wrapper string) (*stream.Profile, string, error) {
	path := os.Getenv("PATH")
	configured := func() (*stream.Profile, string, error) {
		profile, bin, err := shellhook.FindAgent(cfg.Agent, r.Invoked, cfg.AgentBin, wrapper, path)
		if profile == nil {
			return nil, "", invalid{err}
		}
		if demo, ok := demoInstead(cfg, profile, err); ok {
			return profile, demo, nil
		}
		return profile, bin, err
	}
	if r.Agent == "" || r.Agent == cfg.Agent {
		return configured()
	}
	if cfg.Agent == "" {
		if p, bin, err := configured(); err == nil && p.Name == r.Agent {
			return p, bin, nil
		}
	}
	profile, err := stream.ProfileNamed(r.Agent)
	if err != nil {
		return nil, "", invalid{err}
	}
	bin, err := shellhook.Resolve(shellhook.Binaries(profile, r.Invoked), "", wrapper, path)
	return profile, bin, err
}

// WrapperBeside returns the cursor-wrap binary installed beside this
// process's executable (the MCP server's), or "" if there is none.
func WrapperBeside() string {
	self, err := os.Executable()
	if err != nil {
		return ""
	}
	return filepath.Join(filepath.Dir(self), "cursor-wrap")
}
