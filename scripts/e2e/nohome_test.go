package e2e

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"cursor-wrap/scripts/testenv"
)

// TestFaultNoHome: with HOME unset, the config and the log dir are under
// the password database's home, never the working directory: a
// repository's own .config does not take effect and no log is written
// into it (25.9). A user the password database does not know gets a clear
// refusal, 125, from both binaries. The runs change user (root only): the
// password database's home of the one running the tests is a real home.
func TestFaultNoHome(t *testing.T) {
	t.Parallel()
	if os.Geteuid() != 0 {
		testenv.SkipOutsideCI(t, "changing user needs root")
	}
	// The binaries, linked where another user can reach them.
	bin, err := os.MkdirTemp("", "cursor-wrap-nohome-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(bin) })
	os.Chmod(bin, 0o755)
	// The agent is the one on PATH, as for a user without a config.
	for b, name := range map[string]string{wrapperBin: "cursor-wrap", agentBin: "cursor-agent", filepath.Join(filepath.Dir(wrapperBin), "cursor-wrap-mcp"): "cursor-wrap-mcp"} {
		if err := os.Link(b, filepath.Join(bin, name)); err != nil {
			t.Fatal(err)
		}
	}
	// A repository with a config of its own, whose agent_bin leaves a mark.
	repo := filepath.Join(bin, "repo")
	os.MkdirAll(filepath.Join(repo, ".config", "cursor-wrap"), 0o777)
	marker := filepath.Join(repo, "pwned")
	os.WriteFile(filepath.Join(repo, "agent"), []byte("#!/bin/sh\ntouch "+marker+"\n"), 0o755)
	os.WriteFile(filepath.Join(repo, ".config", "cursor-wrap", "config.toml"), []byte(`agent_bin = "`+filepath.Join(repo, "agent")+`"`+"\n"), 0o644)
	os.Chmod(repo, 0o777)

	run := func(t *testing.T, uid uint32, name string, env ...string) (int, string) {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		args := []string{"--", "line", initLine, "line", resultLine}
		if name == "cursor-wrap-mcp" {
			args = nil
		}
		cmd := exec.CommandContext(ctx, filepath.Join(bin, name), args...)
		cmd.Dir = repo
		for _, kv := range testEnv() {
			if !strings.HasPrefix(kv, "HOME=") && !strings.HasPrefix(kv, "XDG_") && !strings.HasPrefix(kv, "CURSOR_WRAP_") {
				cmd.Env = append(cmd.Env, kv)
			}
		}
		cmd.Env = append(cmd.Env, append(env, "PATH="+bin+":"+os.Getenv("PATH"))...)
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uid, Gid: uid}}
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		err := cmd.Run()
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return ee.ExitCode(), out.String()
		}
		if err != nil {
			t.Fatal(err)
		}
		return 0, out.String()
	}
	nothingInRepo := func(t *testing.T) {
		t.Helper()
		if _, err := os.Stat(marker); err == nil {
			t.Error("the repository's config took effect: its agent_bin ran")
		}
		if _, err := os.Stat(filepath.Join(repo, ".local")); err == nil {
			t.Error("a log dir was made in the working directory")
		}
	}

	t.Run("the password database's home", func(t *testing.T) {
		// nobody's home, /nonexistent, holds no config and takes no log.
		code, out := run(t, 65534, "cursor-wrap")
		if code != 0 || !strings.Contains(out, resultLine) {
			t.Errorf("exit %d: %s", code, out)
		}
		nothingInRepo(t)
	})
	t.Run("no home at all", func(t *testing.T) {
		for _, name := range []string{"cursor-wrap", "cursor-wrap-mcp"} {
			code, out := run(t, 54321, name)
			if code != 125 || !strings.Contains(out, "$HOME: not set, and the password database has no home directory") {
				t.Errorf("%s: exit %d: %s", name, code, out)
			}
		}
		nothingInRepo(t)
	})
	t.Run("no home, the paths given", func(t *testing.T) {
		logs := filepath.Join(bin, "logs")
		os.Mkdir(logs, 0o700)
		os.Chown(logs, 54321, 54321)
		code, out := run(t, 54321, "cursor-wrap", "XDG_CONFIG_HOME="+filepath.Join(bin, "none"), "XDG_STATE_HOME="+logs)
		if code != 0 || !strings.Contains(out, resultLine) {
			t.Errorf("exit %d: %s", code, out)
		}
		if files, _ := filepath.Glob(filepath.Join(logs, "cursor-wrap", "logs", "cursor-wrap-*.jsonl")); len(files) != 1 {
			t.Errorf("logs %v; %s", files, out)
		}
		nothingInRepo(t)
	})
}
