package ptyproxy

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"time"
)

// OnHangTimeout bounds an on_hang command.
const OnHangTimeout = 10 * time.Second

// RunOnHang runs the on_hang command for an attempt that hung: the
// hang_detected record on its stdin (through redact), and CURSOR_WRAP_LOG,
// CURSOR_WRAP_SESSION_ID and CURSOR_WRAP_EXIT in its environment, for at
// most OnHangTimeout. It returns the command's output.
func RunOnHang(command string, out Outcome, attempt int, logPath string, redact func([]byte) []byte) ([]byte, error) {
	record, _ := json.Marshal(map[string]any{
		"time": out.Ended, "msg": "hang_detected", "session_id": out.SessionID,
		"attempt": attempt, "log": logPath, "reason": out.Reason,
	})
	env := append(os.Environ(),
		"CURSOR_WRAP_LOG="+logPath,
		"CURSOR_WRAP_SESSION_ID="+out.SessionID,
		"CURSOR_WRAP_EXIT="+strconv.Itoa(out.Status()))
	ctx, cancel := context.WithTimeout(context.Background(), OnHangTimeout)
	defer cancel()
	return RunHook(ctx, command, redact(append(record, '\n')), env)
}

// RunHook runs command through /bin/sh -c with stdin and env until it
// exits or ctx is done, and returns its combined output. It is registered
// like an agent, so the orphan reaper never takes its exit status; when ctx
// ends first its whole process group is killed.
func RunHook(ctx context.Context, command string, stdin []byte, env []string) ([]byte, error) {
	cmd := exec.Command("/bin/sh", "-c", command)
	// A background child holding the output pipe must not hold us too.
	cmd.WaitDelay = time.Second
	cmd.Env = env
	cmd.Stdin = bytes.NewReader(stdin)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	startMu.Lock()
	err := cmd.Start()
	if err == nil {
		agents[cmd.Process.Pid] = true
	}
	startMu.Unlock()
	if err != nil {
		return nil, fmt.Errorf("ptyproxy: hook: %w", err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err = <-done:
	case <-ctx.Done():
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) // Its group: the shell and what it started.
		err = <-done
		err = fmt.Errorf("ptyproxy: hook: killed: %w", context.Cause(ctx))
	}
	startMu.Lock()
	delete(agents, cmd.Process.Pid)
	startMu.Unlock()
	return out.Bytes(), err
}
