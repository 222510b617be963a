package e2e

import (
	"bufio"
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"
)

// termShell is an interactive shell under a PTY of the test's, with job
// control on, as a user has it in a terminal.
type termShell struct {
	t      *testing.T
	ctx    context.Context
	term   *os.File
	screen *syncBuffer
	mark   int // where the next wait starts looking
}

func startTermShell(t *testing.T, shell string, env []string) *termShell {
	t.Helper()
	args := map[string][]string{"bash": {"--norc", "--noprofile", "-i"}, "zsh": {"-f", "-i"}, "fish": {"--no-config", "-i"}}[shell]
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	t.Cleanup(cancel)
	cmd := exec.CommandContext(ctx, shellFor(t, shell), args...)
	cmd.Env = append(testEnv(), env...)
	term, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 40, Cols: 250})
	if err != nil {
		t.Fatal(err)
	}
	s := &termShell{t: t, ctx: ctx, term: term, screen: &syncBuffer{}}
	go s.screen.ReadFrom(term)
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
		term.Close()
	})
	// zsh -f has job control on when interactive; say so for both.
	setup := `set -m; PS1='$ '; echo RE''ADY`
	if shell == "fish" {
		setup = `function fish_prompt; echo -n '$ '; end; echo RE''ADY`
	}
	s.run(setup)
	s.waitFor("READY\r\n")
	return s
}

// run types a command line.
func (s *termShell) run(line string) { s.send(line + "\r") }

func (s *termShell) send(b string) {
	if _, err := s.term.WriteString(b); err != nil {
		s.t.Fatal(err)
	}
}

// waitFor waits until the screen shows want after the last wait's match,
// and returns the screen up to and including it.
func (s *termShell) waitFor(want string) string {
	s.t.Helper()
	for {
		screen := s.screen.String()
		if i := strings.Index(screen[s.mark:], want); i >= 0 {
			s.mark += i + len(want)
			return screen[:s.mark]
		}
		if s.ctx.Err() != nil {
			s.t.Fatalf("waiting for %q; the terminal shows:\n%s", want, screen)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// procState is a process's state letter from /proc ("T": stopped), or ""
// when it is gone.
func procState(pid int) string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return ""
	}
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	return f[0]
}

// parentOf is a process's parent pid from /proc.
func parentOf(pid int) int {
	b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	n, _ := strconv.Atoi(f[1])
	return n
}

var ttyPid = regexp.MustCompile(`"pid":(\d+),[^\n]*"type":"tty"`)

// ttyAgentPid is the pid the last tty line on the screen shows.
func ttyAgentPid(t *testing.T, screen string) int {
	t.Helper()
	m := ttyPid.FindAllStringSubmatch(screen, -1)
	if len(m) == 0 {
		t.Fatalf("no agent pid on the screen:\n%s", screen)
	}
	n, _ := strconv.Atoi(m[len(m)-1][1])
	return n
}

var seqRe = regexp.MustCompile(`"seq":(\d+)`)

// seqs lists the tick numbers the screen shows, in order.
func seqs(screen string) []int {
	var out []int
	for _, m := range seqRe.FindAllStringSubmatch(screen, -1) {
		n, _ := strconv.Atoi(m[1])
		out = append(out, n)
	}
	return out
}

// TestCtrlZ checks job control through the shell functions, in bash, zsh
// and fish under a terminal: Ctrl-Z stops the agent with the wrapper (both in
// state T), a stop longer than the idle timeout is no hang, bg continues
// it without a status line, fg brings it back to its end with every line
// in order and exit 0; in a pipeline
// `jobs` shows the command as typed, and Ctrl-C after Ctrl-Z and fg still
// stops the run.
func TestCtrlZ(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("reads process states from /proc")
	}
	for _, sh := range shells {
		t.Run(sh, func(t *testing.T) {
			t.Parallel()
			bin := t.TempDir()
			if err := os.Symlink(agentBin, filepath.Join(bin, "cursor-agent")); err != nil {
				t.Fatal(err)
			}
			logDir := t.TempDir()
			s := startTermShell(t, sh, []string{"HOME=" + t.TempDir(), "TERM=dumb", "CURSOR_WRAP_LOG_DIR=" + logDir,
				"CURSOR_WRAP_IDLE_TIMEOUT=1s", "CURSOR_WRAP_STATUS=true", "PATH=" + filepath.Dir(wrapperBin) + ":" + bin + ":/usr/bin:/bin"})
			load, status := `eval "$(cursor-wrap shell-init `+sh+`)"`, `echo "r""c=$?"`
			if sh == "fish" {
				load, status = "cursor-wrap shell-init fish | source", `echo "r""c=$status"`
			}
			s.run(load + "; echo LO''ADED")
			s.waitFor("LOADED\r\n")
			// bash and zsh say so at once; fish says nothing until asked.
			waitStopped := func() string {
				if sh == "fish" {
					s.run("jobs")
					return s.waitFor("\tstopped\t")
				}
				return s.waitFor(map[string]string{"bash": "Stopped", "zsh": "suspended"}[sh])
			}

			// Stopped in a pause of its output, while the status line shows.
			s.run("cursor-agent -p --output-format stream-json tty tick 4 100ms sleep 800ms tick 36 100ms")
			tty := s.waitFor(`"seq":3`)
			agent := ttyAgentPid(t, tty)
			wrapper := parentOf(agent)
			s.waitFor("| silent") // The status line is drawn.
			s.send("\x1a")
			before := waitStopped()
			// Taken down before the shell writes on its line.
			if drawn := strings.LastIndex(before, "\rcursor-wrap "); drawn < 0 || !strings.Contains(before[drawn:], "\r\x1b[K") {
				t.Errorf("the status line was left on the screen at the stop:\n%q", before[max(drawn, 0):])
			}
			for _, pid := range []int{agent, wrapper} {
				if st := procState(pid); st != "T" {
					t.Errorf("pid %d (agent %d, wrapper %d) in state %q after Ctrl-Z, want T", pid, agent, wrapper, st)
				}
			}
			// Stopped for more than twice the idle timeout: no hang.
			time.Sleep(2500 * time.Millisecond)
			// In the background the run goes on, and the terminal is the
			// shell's: no status line is drawn there.
			s.run("bg")
			s.waitFor("bg")
			if bg := s.waitFor(`"seq":6,`); strings.Contains(bg[strings.LastIndex(bg, "bg"):], "\rcursor-wrap ") {
				t.Errorf("a status line was drawn in the background:\n%q", bg[strings.LastIndex(bg, "bg"):])
			}
			// zsh drops the rest of a command line stopped: the status
			// is asked for after fg, typed ahead.
			s.run("fg")
			s.run(status)
			screen := s.waitFor("rc=")
			end := s.waitFor("\r\n")
			if rc := strings.TrimSpace(end[len(screen):]); rc != "0" {
				t.Errorf("status after fg: %s, want 0\n%s", rc, end)
			}
			want := []int{0, 1, 2, 3}
			for i := range 36 {
				want = append(want, i)
			}
			if got := seqs(screen); !slices.Equal(got, want) {
				t.Errorf("lines %v, want %v", got, want)
			}
			if strings.Contains(screen, "hang detected") {
				t.Errorf("a hang was declared while stopped:\n%s", screen)
			}
			logs, _ := filepath.Glob(filepath.Join(logDir, "*.jsonl"))
			for _, l := range logs {
				b, _ := os.ReadFile(l)
				if strings.Contains(string(b), "hang_detected") || !strings.Contains(string(b), `"signal":"SIGSTOP"`) || !strings.Contains(string(b), `"signal":"SIGCONT"`) {
					t.Errorf("session log: no SIGSTOP and SIGCONT, or a hang:\n%s", b)
				}
			}

			// In a pipeline bash and zsh run the function as part of the
			// job: `jobs` shows what was typed. fish stops no pipeline that
			// runs a function: there, the run is alone again.
			typed := "cursor-agent -p --output-format stream-json tty tick 1000 100ms | cat"
			if sh == "fish" {
				typed = strings.TrimSuffix(typed, " | cat")
			}
			s.run(typed)
			tty = s.waitFor(`"seq":2`)
			agent = ttyAgentPid(t, tty)
			s.send("\x1a")
			waitStopped()
			if sh != "fish" {
				s.run("jobs")
				s.waitFor(typed)
			}
			if st := procState(agent); st != "T" {
				t.Errorf("agent in state %q after the second Ctrl-Z, want T", st)
			}
			s.run("fg")
			s.waitFor(`"seq":5`)
			s.send("\x03")
			s.run(status)
			screen = s.waitFor("rc=")
			end = s.waitFor("\r\n")
			// fish's fg says 0 whatever the job did: the wrapper says why.
			if rc := strings.TrimSpace(end[len(screen):]); rc != "130" && sh != "fish" || !strings.Contains(screen, "interrupted by SIGINT") {
				t.Errorf("status after Ctrl-C: %s, want 130 and the wrapper's words\n%s", rc, end)
			}
			for deadline := time.Now().Add(10 * time.Second); procState(agent) != "" && time.Now().Before(deadline); {
				time.Sleep(20 * time.Millisecond)
			}
			if st := procState(agent); st != "" {
				t.Errorf("the agent is still there after Ctrl-C, state %q", st)
			}
		})
	}
}

// TestStopWithoutATerminal checks a stop and a continue sent with kill to a
// wrapper that has no terminal and no shell (a process manager, a script):
// the agent stops and goes on with it, and the time stopped is no hang.
// In an orphaned process group, where the kernel discards a stop (nobody
// is left to continue it), the run goes on.
func TestStopWithoutATerminal(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("reads process states from /proc")
	}
	for _, tc := range []struct {
		name  string
		attr  syscall.SysProcAttr
		sig   syscall.Signal
		stops bool
	}{
		// A group of its own, whose parent (the test) is in its session.
		{"SIGTSTP", syscall.SysProcAttr{Setpgid: true}, syscall.SIGTSTP, true},
		{"SIGTTIN", syscall.SysProcAttr{Setpgid: true}, syscall.SIGTTIN, true},
		{"SIGTTOU", syscall.SysProcAttr{Setpgid: true}, syscall.SIGTTOU, true},
		// A session of its own: its group is orphaned.
		{"orphaned", syscall.SysProcAttr{Setsid: true}, syscall.SIGTSTP, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			stopAndContinue(t, &tc.attr, tc.sig, tc.stops)
		})
	}
}

// stopAndContinue runs the wrapper with attr, sends it sig, and if stops,
// checks that it and the agent stop, then sends SIGCONT after more than
// the idle timeout: the run must end by itself with every line.
func stopAndContinue(t *testing.T, attr *syscall.SysProcAttr, sig syscall.Signal, stops bool) {
	cmd := exec.Command(wrapperBin, "--agent-bin", agentBin, "--log-dir", t.TempDir(), "--idle-timeout", "1s", "--", "tty", "tick", "30", "100ms", "line", resultLine)
	cmd.Env = testEnv()
	cmd.SysProcAttr = attr
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	lines := make(chan string)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	var out strings.Builder
	for line := range lines {
		out.WriteString(line + "\n")
		if strings.Contains(line, `"seq":3,`) {
			break
		}
	}
	agent := ttyAgentPid(t, out.String())
	cmd.Process.Signal(sig)
	if stops {
		for deadline := time.Now().Add(10 * time.Second); procState(agent) != "T" || procState(cmd.Process.Pid) != "T"; {
			if time.Now().After(deadline) {
				t.Fatalf("after %v: agent in state %q, wrapper %q; want both T", sig, procState(agent), procState(cmd.Process.Pid))
			}
			time.Sleep(10 * time.Millisecond)
		}
		time.Sleep(2 * time.Second) // Twice the idle timeout, stopped.
		cmd.Process.Signal(syscall.SIGCONT)
	}
	for line := range lines {
		out.WriteString(line + "\n")
	}
	if err := cmd.Wait(); err != nil {
		t.Errorf("wrapper: %v\n%s", err, stderr.Bytes())
	}
	want := make([]int, 30)
	for i := range want {
		want[i] = i
	}
	if got := seqs(out.String()); !slices.Equal(got, want) {
		t.Errorf("lines %v, want 0 to 29", got)
	}
}
