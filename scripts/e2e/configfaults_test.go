package e2e

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// watchedRun is a wrapper run with --config cfg and an agent that hangs
// after it prints "ready", started and ready.
type watchedRun struct {
	logDir string
	lines  chan string // the wrapper's stderr
	done   chan int    // its exit status, -1 when it had to be killed
	stderr strings.Builder
}

func startWatched(t *testing.T, cfg string, args ...string) *watchedRun {
	t.Helper()
	w := &watchedRun{logDir: t.TempDir(), lines: make(chan string, 100), done: make(chan int, 1)}
	ctx, cancel := context.WithTimeout(context.Background(), 40*time.Second)
	t.Cleanup(cancel)
	args = append([]string{"--agent-bin", agentBin, "--log-dir", w.logDir, "--config", cfg, "--log-level", "debug"}, args...)
	cmd := exec.CommandContext(ctx, wrapperBin, append(args, "--", "line", initLine, "line", "ready", "hang")...)
	cmd.Env = testEnv()
	stdout, _ := cmd.StdoutPipe()
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		for sc := bufio.NewScanner(stderr); sc.Scan(); {
			w.stderr.WriteString(sc.Text() + "\n")
			select {
			case w.lines <- sc.Text():
			default:
			}
		}
		close(w.lines)
	}()
	sc := bufio.NewScanner(stdout)
	for sc.Scan() && sc.Text() != "ready" {
	}
	go func() {
		for sc.Scan() {
		}
		err := cmd.Wait()
		var ee *exec.ExitError
		switch {
		case ctx.Err() != nil:
			w.done <- -1
		case errors.As(err, &ee):
			w.done <- ee.ExitCode()
		default:
			w.done <- 0
		}
	}()
	return w
}

// waitLine waits for a line of the wrapper's stderr that holds text.
func (w *watchedRun) waitLine(t *testing.T, text string) {
	t.Helper()
	for line := range w.lines {
		if strings.Contains(line, text) {
			return
		}
	}
	t.Fatalf("stderr never said %q", text)
}

// hung waits for the wrapper's exit and checks it was a hang of kind
// kind, and the config_reloaded records: each holds one of want, in turn.
func (w *watchedRun) hung(t *testing.T, kind string, want ...string) {
	t.Helper()
	if code := <-w.done; code != 124 {
		t.Fatalf("exit %d; stderr %s", code, w.stderr.String())
	}
	recs := readLogs[logRecord](t, w.logDir)
	if hang, _ := find(recs, "hang_detected"); hang.Reason.Kind != kind {
		t.Errorf("hang of kind %q, want %q", hang.Reason.Kind, kind)
	}
	data, _ := os.ReadFile(readLogPath(t, w.logDir))
	var got []string
	for line := range bytes.Lines(data) {
		if bytes.Contains(line, []byte(`"msg":"config_reloaded"`)) {
			got = append(got, string(line))
		}
	}
	if len(got) != len(want) {
		t.Fatalf("config_reloaded records %q, want %d", got, len(want))
	}
	for i := range want {
		if !strings.Contains(got[i], want[i]) {
			t.Errorf("config_reloaded %s, want %s", got[i], want[i])
		}
	}
}

// TestFaultConfigFileGone: the config file deleted under a running
// wrapper keeps every value it set (25.1); its directory removed, moved
// away or made only after the start is watched again, for every later
// change (25.2). The hangs end the runs: a value lost, or a reload never
// seen, shows as a hang of the wrong kind.
func TestFaultConfigFileGone(t *testing.T) {
	t.Parallel()
	t.Run("a deleted file keeps its values", func(t *testing.T) {
		t.Parallel()
		cfg := filepath.Join(t.TempDir(), "config.toml")
		save(t, cfg, "hard_timeout = \"4s\"\nidle_timeout = \"30s\"\n")
		w := startWatched(t, cfg)
		os.Remove(cfg)
		w.waitLine(t, "is gone: keeping the current values")
		w.hung(t, "deadline")
	})
	for name, remove := range map[string]func(string) error{
		"its directory removed and made again":    os.RemoveAll,
		"its directory moved away and made again": func(dir string) error { return os.Rename(dir, dir+".old") },
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := filepath.Join(t.TempDir(), "cursor-wrap")
			cfg := filepath.Join(dir, "config.toml")
			os.Mkdir(dir, 0o700)
			save(t, cfg, "idle_timeout = \"20s\"\n")
			w := startWatched(t, cfg)
			remove(dir)
			w.waitLine(t, "is gone: keeping the current values")
			os.Mkdir(dir, 0o700)
			save(t, cfg, "idle_timeout = \"20s\"\nwarn_before = \"1m\"\n")
			w.waitLine(t, "config reloaded: warn_before")
			save(t, cfg, "idle_timeout = \"20s\"\nhard_timeout = \"1s\"\n")
			w.hung(t, "deadline", `"key":"warn_before"`, `"key":"hard_timeout","old":"0s","new":"1s"`)
		})
	}
	t.Run("a directory made after the start", func(t *testing.T) {
		t.Parallel()
		cfg := filepath.Join(t.TempDir(), "config", "cursor-wrap", "config.toml")
		w := startWatched(t, cfg, "--idle-timeout", "20s")
		os.MkdirAll(filepath.Dir(cfg), 0o700)
		save(t, cfg, "hard_timeout = \"1s\"\n")
		w.hung(t, "deadline", `"key":"hard_timeout","old":"0s","new":"1s"`)
	})
}

// TestBrokenConfigUnwatched: a broken config file or variable leaves the
// commands the wrapper does not watch (cursor-agent --help, ls) running as
// without it, with one line of warning, the agent found without the file;
// a run it would watch is refused with the line and the fix (26.1).
func TestBrokenConfigUnwatched(t *testing.T) {
	t.Parallel()
	cfg := filepath.Join(t.TempDir(), "config.toml")
	save(t, cfg, "idle_timeout = \"30s\"\n\nidel_timeout = \"5s\"\n")
	for name, broken := range map[string]string{
		"a typo in the file": "CURSOR_WRAP_CONFIG=" + cfg,
		"a bad variable":     "CURSOR_WRAP_IDLE_TIMEOUT=soon",
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			// As the shell function runs it.
			env := []string{broken, "CURSOR_WRAP_AGENT_BIN=" + agentBin, "CURSOR_WRAP_SHELL_FUNC=cursor-agent", steps("args")}
			for _, args := range [][]string{{"--help"}, {"ls"}} {
				r := runRaw(t, env, append([]string{"--alias", "--agent", "cursor", "--"}, args...)...)
				lines := strings.Split(strings.TrimSuffix(string(r.stderr), "\n"), "\n")
				if r.code != 0 || !strings.Contains(string(r.stdout), `"argv":["`+args[0]+`"]`) || len(lines) != 1 || !strings.HasPrefix(lines[0], "cursor-wrap: warning: ") {
					t.Errorf("cursor-agent %s: exit %d; stdout %s; stderr %s", args[0], r.code, r.stdout, r.stderr)
				}
			}
			r := runRaw(t, env, "--alias", "--agent", "cursor", "--", "-p", "hello")
			// Not on the test's PATH, the wrapper is named by its path.
			want := []string{"\ncursor-wrap: fix it (`" + wrapperBin + " config --defaults` prints every key at its default)", "every watched run stops here, with exit 125, and `command cursor-agent …` runs the agent without the wrapper"}
			if strings.Contains(broken, cfg) {
				want = append(want, cfg+`:3: unknown key "idel_timeout"`)
			} else {
				want = append(want, "$CURSOR_WRAP_IDLE_TIMEOUT")
			}
			for _, w := range want {
				if r.code != 125 || !strings.Contains(string(r.stderr), w) {
					t.Errorf("cursor-agent -p hello: exit %d; stderr lacks %q: %s", r.code, w, r.stderr)
				}
			}
		})
	}
}

// TestReloadRecordSaysWhat: a reload that only meets a pinned key records
// an empty list of changes, never null (26.8).
func TestReloadRecordSaysWhat(t *testing.T) {
	t.Parallel()
	cfg := filepath.Join(t.TempDir(), "config.toml")
	save(t, cfg, "idle_timeout = \"20s\"\n")
	w := startWatched(t, cfg, "--kill-grace", "1s")
	save(t, cfg, "idle_timeout = \"20s\"\nkill_grace = \"9s\"\n")
	w.waitLine(t, "config reloaded: kill_grace = 9s in the file, held at 1s by the flag")
	save(t, cfg, "idle_timeout = \"20s\"\nkill_grace = \"9s\"\nhard_timeout = \"1s\"\n")
	w.hung(t, "deadline", `"changed":[],"pinned":["kill_grace = 9s in the file, held at 1s by the flag"]`, `"key":"hard_timeout"`)
}

// TestBrokenConfigReaders checks that the commands that only read the logs
// (sessions, inspect --last) are not blocked by a broken setting they never
// use: they read the log_dir the file names, with one warning line, as the
// unwatched runs do (the rule of 26.1). A file that does not parse at all
// leaves them the default dir, said in the warning.
func TestBrokenConfigReaders(t *testing.T) {
	t.Parallel()
	logDir := t.TempDir()
	r := runWrapper(t, []string{steps("line", initLine, "line", resultLine)}, nil, "--log-dir", logDir, "--", "hi")
	if r.code != 0 {
		t.Fatalf("run: exit %d, stderr %s", r.code, r.stderr)
	}
	cfg := filepath.Join(t.TempDir(), "config.toml")
	save(t, cfg, "log_dir = \""+logDir+"\"\nidel_timeout = \"5s\"\n")
	env := []string{"CURSOR_WRAP_CONFIG=" + cfg}
	for _, args := range [][]string{{"sessions"}, {"inspect", "--last"}} {
		r := runRaw(t, env, args...)
		lines := strings.Split(strings.TrimSuffix(string(r.stderr), "\n"), "\n")
		if r.code != 0 || !strings.Contains(string(r.stdout), "s-1") || len(lines) != 1 ||
			!strings.Contains(lines[0], `warning: config ignored: `+cfg+`:2: unknown key "idel_timeout"`) || !strings.HasSuffix(lines[0], "reading the logs in "+logDir) {
			t.Errorf("%s: exit %d\nstdout %s\nstderr %s", args, r.code, r.stdout, r.stderr)
		}
	}
	// A bad variable for another setting: the same.
	r = runRaw(t, []string{"CURSOR_WRAP_LOG_DIR=" + logDir, "CURSOR_WRAP_IDLE_TIMEOUT=soon"}, "sessions")
	if r.code != 0 || !strings.Contains(string(r.stdout), "s-1") || !strings.Contains(string(r.stderr), "$CURSOR_WRAP_IDLE_TIMEOUT") {
		t.Errorf("bad variable: exit %d\nstdout %s\nstderr %s", r.code, r.stdout, r.stderr)
	}
}
