package shellhook

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"cursor-wrap/ptyproxy/reaper"
	"cursor-wrap/stream"
)

// ErrIsWrapper means the agent would be cursor-wrap itself, found on PATH or
// through the depth guard; main exits 127.
var ErrIsWrapper = errors.New("the agent is cursor-wrap itself")

// setAgentBin ends every ErrIsWrapper message: the way out of the loop.
const setAgentBin = "set agent_bin in the config file (or $CURSOR_WRAP_AGENT_BIN, or --agent-bin) to the real agent's path"

// Resolve returns the path of the agent binary to run.
//
// explicit is --agent-bin, $CURSOR_WRAP_AGENT_BIN or the config's agent_bin,
// already merged by the caller; when set it wins. A path is used as given and
// must exist, be executable and not be self. A bare name is searched like
// names. Otherwise each of names is searched, in order, through the entries
// of pathEnv, in order, and the first executable file wins.
//
// self is the wrapper's own executable (os.Executable). A PATH hit that is
// the same file (os.SameFile: device and inode, so a symlink or hard link to
// the wrapper counts) is skipped. Empty and relative PATH entries are skipped
// too, as os/exec refuses them.
func Resolve(names []string, explicit, self, pathEnv string) (string, error) {
	// nil when self is unknown or gone: then only the depth guard stops a loop.
	selfInfo, _ := os.Stat(self)
	isSelf := func(fi fs.FileInfo) bool { return selfInfo != nil && os.SameFile(fi, selfInfo) }

	if strings.Contains(explicit, "/") {
		fi, err := os.Stat(explicit)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return "", fmt.Errorf("%w: %s does not exist; set agent_bin (or --agent-bin, $CURSOR_WRAP_AGENT_BIN) to the agent's path", reaper.ErrNotFound, explicit)
		case err != nil:
			return "", fmt.Errorf("%w: %w", reaper.ErrNotExecutable, err)
		case fi.IsDir():
			return "", fmt.Errorf("%w: %s is a directory; set agent_bin to the agent's path", reaper.ErrNotExecutable, explicit)
		case fi.Mode()&0o111 == 0:
			return "", fmt.Errorf("%w: %s; make it executable (chmod +x), or set agent_bin to the agent's path", reaper.ErrNotExecutable, explicit)
		case isSelf(fi):
			return "", fmt.Errorf("%w: %s is cursor-wrap; %s", ErrIsWrapper, explicit, setAgentBin)
		}
		return explicit, nil
	}
	if explicit != "" {
		names = []string{explicit}
	}

	var wrapper, noExec string
	for _, name := range names {
		for _, dir := range filepath.SplitList(pathEnv) {
			if !filepath.IsAbs(dir) {
				continue
			}
			p := filepath.Join(dir, name)
			fi, err := os.Stat(p)
			switch {
			case err != nil || fi.IsDir():
			case isSelf(fi):
				wrapper = cmp.Or(wrapper, p)
			case fi.Mode()&0o111 == 0:
				noExec = cmp.Or(noExec, p)
			default:
				return p, nil
			}
		}
	}
	switch {
	case wrapper != "":
		return "", fmt.Errorf("%w: %s on PATH is cursor-wrap and would run itself; %s", ErrIsWrapper, wrapper, setAgentBin)
	case noExec != "":
		return "", fmt.Errorf("%w: %s on PATH; make it executable (chmod +x), or set agent_bin to the agent's path", reaper.ErrNotExecutable, noExec)
	}
	return "", fmt.Errorf("%w: no %s on PATH%s", reaper.ErrNotFound, strings.Join(names, " or "), installHint(names))
}

// FindAgent finds the agent to run: its profile and binary. agent is the
// configured profile's name ("" for none), invoked the command the user
// typed (FuncEnv), explicit the configured agent_bin. Without a configured
// profile the binary's name picks it (claude runs the claude profile), and
// cursor's commands are searched. The profile is nil only for an agent
// name it does not know.
func FindAgent(agent, invoked, explicit, self, pathEnv string) (*stream.Profile, string, error) {
	profile, err := profileNamed(cmp.Or(agent, stream.Cursor.Name))
	if err != nil {
		return nil, "", err
	}
	bin, err := Resolve(Binaries(profile, invoked), explicit, self, pathEnv)
	if err != nil {
		return profile, "", err
	}
	if p := stream.ProfileFor(filepath.Base(bin)); agent == "" && p != nil {
		profile = p
	}
	return profile, bin, nil
}

// installHint says how to install the agent whose commands are names, as
// its makers document it, and where else the wrapper looks.
func installHint(names []string) string {
	if len(names) > 0 {
		if p := stream.ProfileFor(names[0]); p != nil && p.Install != "" {
			return "; install it with `" + p.Install + "`, or set agent_bin to its path"
		}
	}
	return "; set agent_bin to the agent's path"
}
