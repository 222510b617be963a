package ptyproxy

import (
	"os"
	"os/exec"
	"sync"
	"syscall"
	"testing"

	"cursor-wrap/ptyproxy/fakeagent"
)

// TestTreesSideBySide: attempts run side by side in one process (MCP calls
// do). While one records the processes it sees under its agent, another
// asks whose an orphan is, which reads what the first recorded: neither may
// race the other (a map written while read can crash the whole process).
func TestTreesSideBySide(t *testing.T) {
	t.Parallel()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	p, err := start(&Options{Path: self, Args: []string{fakeagent.Subcommand, "group-child", "hang"}}, agentEnv())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		syscall.Kill(-p.pid, syscall.SIGKILL)
		<-p.exited
		p.closeAll()
	})
	first := newTree(p.pid, MarkerEnv+"=first", "")
	defer first.done()
	// The second attempt asks only: it is not among the running attempts,
	// whose orphans the other tests' attempts would then leave alone.
	second := &tree{agent: os.Getpid(), marker: MarkerEnv + "=second", known: map[procKey]bool{}}
	// An orphan neither attempt knows: asking whose it is reads every
	// running attempt's record. Started after the first attempt's agent,
	// it could be the first's, so no attempt claims it while that runs.
	orphan := exec.Command("sleep", "30")
	if err := orphan.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		orphan.Process.Kill()
		orphan.Wait() // The orphan reaper may have taken its status first.
	})

	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		for range 20 {
			first.snapshot()
		}
	}()
	go func() {
		defer wg.Done()
		for range 20 {
			second.orphans()
		}
	}()
	wg.Wait()
	if len(first.snapshot()) == 0 {
		t.Error("the first attempt's agent was not found")
	}
}
