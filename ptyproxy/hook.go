package ptyproxy

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"syscall"
	"time"
)

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
		return nil, fmt.Errorf("cannot start it: %w", err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err = <-done:
	case <-ctx.Done():
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) // Its group: the shell and what it started.
		<-done
		err = fmt.Errorf("killed: %w", context.Cause(ctx))
	}
	startMu.Lock()
	delete(agents, cmd.Process.Pid)
	startMu.Unlock()
	return out.Bytes(), err
}
