package e2e

import (
	"bufio"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// escapingAgent is an agent, a shell script, that starts a tool in a
// session of its own (as a `docker run` client may be) before it says
// anything: the tool writes to $ESCAPEE_LOG the signals it gets and that
// it cleaned up, and ends on SIGTERM or SIGUSR1 as such a client stops its
// container. The agent itself takes half a second to stop on either, as a
// real one may. Both wait in the shell's wait for one sleep started
// before the traps, which a trapped signal interrupts and the signals end:
// a loop of sleeps would be a churn of processes, activity to the
// watchdog, and a sleep started after a trap ran would be waited for.
const escapingAgent = `#!/bin/sh
setsid sh -c '
	sleep 1000 & s=$!
	trap "echo CONT >> \"\$ESCAPEE_LOG\"" CONT
	trap "echo TERM >> \"\$ESCAPEE_LOG\"; done=1" TERM
	trap "echo USR1 >> \"\$ESCAPEE_LOG\"; done=1" USR1
	echo "started $$" >> "$ESCAPEE_LOG"
	while [ -z "$done" ]; do wait $s; done
	echo "cleaned up" >> "$ESCAPEE_LOG"' &
while ! grep -q started "$ESCAPEE_LOG" 2>/dev/null; do sleep 0.01; done
sleep 1000 & s=$!
trap 'stop=1' TERM USR1
echo '{"type":"system","subtype":"init","session_id":"s-1"}'
while [ -z "$stop" ]; do wait $s; done
sleep 0.5
exit 1
`

// TestEscapeesGetTheSignals (33.11): a process of the attempt that left
// the agent's process group gets what the group gets, SIGCONT then the
// signal (SIGTERM for a hang, the signal the wrapper got and passed on),
// not only the SIGKILL at the end: a tool's cleanup depends on it.
func TestEscapeesGetTheSignals(t *testing.T) {
	t.Parallel()
	bin := filepath.Join(t.TempDir(), "cursor-agent")
	if err := os.WriteFile(bin, []byte(escapingAgent), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		send   syscall.Signal // to the wrapper; 0: let it hang
		signal string         // what the tool must get after SIGCONT
		status int
	}{
		{"a hang", 0, "TERM", 124},
		{"SIGUSR1 passed on", syscall.SIGUSR1, "USR1", 128 + int(syscall.SIGUSR1)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			toolLog, logDir := filepath.Join(t.TempDir(), "tool.log"), t.TempDir()
			ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, wrapperBin, "--agent-bin", bin, "--log-dir", logDir, "--idle-timeout", "1s", "--kill-grace", "5s", "--", "go")
			cmd.Env = append(testEnv(), "ESCAPEE_LOG="+toolLog)
			var stderr strings.Builder
			cmd.Stderr = &stderr
			stdout, _ := cmd.StdoutPipe()
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			sc := bufio.NewScanner(stdout)
			if !sc.Scan() {
				t.Fatalf("the agent said nothing; stderr %s", stderr.String())
			}
			log, _ := os.ReadFile(toolLog)
			pid := 0
			if f := strings.Fields(string(log)); len(f) == 2 && f[0] == "started" {
				pid, _ = strconv.Atoi(f[1])
			}
			if pid == 0 {
				t.Fatalf("the tool did not start: %q", log)
			}
			t.Cleanup(func() { syscall.Kill(pid, syscall.SIGKILL) })
			if tc.send != 0 {
				cmd.Process.Signal(tc.send)
			}
			for sc.Scan() {
			}
			err := cmd.Wait()
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != tc.status {
				t.Errorf("exit %v, want %d; stderr %s", err, tc.status, stderr.String())
			}
			log, _ = os.ReadFile(toolLog)
			got := strings.Fields(strings.ReplaceAll(string(log), "cleaned up", "cleaned-up"))[2:]
			cont, sig := slices.Index(got, "CONT"), slices.Index(got, tc.signal)
			if cont < 0 || sig < 0 || !slices.Contains(got, "cleaned-up") {
				t.Errorf("the tool that left the group logged %q, want CONT, %s and its clean-up", got, tc.signal)
			}
			// The session log names its pid among the targets of both.
			sent := map[string]bool{}
			for _, rec := range readLogs[map[string]any](t, logDir) {
				if rec["msg"] != "kill" {
					continue
				}
				for _, p := range rec["pids"].([]any) {
					if int(p.(float64)) == pid {
						sent[rec["signal"].(string)] = true
					}
				}
			}
			if !sent["SIGCONT"] || !sent["SIG"+tc.signal] {
				t.Errorf("kill records name the tool (pid %d) for %v, want SIGCONT and SIG%s", pid, sent, tc.signal)
			}
		})
	}
}
