package reaper

import (
	"bytes"
	"context"
	"errors"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// TestCmd runs a child through a Cmd: it is owned while it runs, and its
// stdin, environment, output and exit code come through.
func TestCmd(t *testing.T) {
	t.Parallel()
	c := Command("/bin/sh", "-c", `read line; echo "got $line and $X"; exit 3`)
	c.Stdin, c.Env = strings.NewReader("rec\n"), []string{"X=env"}
	var out bytes.Buffer
	c.Stdout = &out
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	if !Owns(c.Process.Pid) {
		t.Error("a started child is not owned")
	}
	err := c.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 3 || out.String() != "got rec and env\n" {
		t.Errorf("Wait = %v, output %q", err, out.String())
	}
	if Owns(c.Process.Pid) {
		t.Error("a reaped child is still owned")
	}
	if out, err := Command("/bin/sh", "-c", "echo out; echo err >&2").CombinedOutput(); err != nil || string(out) != "out\nerr\n" {
		t.Errorf("CombinedOutput = %q, %v", out, err)
	}
	if out, err := Command("/bin/sh", "-c", "echo out; echo err >&2").Output(); err != nil || string(out) != "out\n" {
		t.Errorf("Output = %q, %v", out, err)
	}
}

// TestCommandContext: the end of the context kills the child, as with
// exec.CommandContext.
func TestCommandContext(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	err := CommandContext(ctx, "sleep", "30").Run()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.String() != "signal: killed" || time.Since(start) > 5*time.Second {
		t.Errorf("Run = %v after %v, want killed at once", err, time.Since(start))
	}
}

// TestKillGroup: the end of the context kills the child's whole group,
// not the shell alone, and Wait says why.
func TestKillGroup(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	c := CommandContext(ctx, "/bin/sh", "-c", "sleep 30 & sleep 30")
	c.KillGroup()
	start := time.Now()
	_, err := c.CombinedOutput()
	// The background sleep holds the output open: had it lived, Wait
	// would have waited a second for it, and said so.
	if err == nil || err.Error() != "killed: context deadline exceeded" || time.Since(start) > 5*time.Second {
		t.Errorf("bounded command: %v after %v", err, time.Since(start))
	}
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("%v does not wrap the context's error", err)
	}
}
