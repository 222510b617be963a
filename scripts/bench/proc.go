//go:build linux

package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// What run reads from /proc of a copy: CPU times, the CPU used over the
// idle window, and the peak resident memory.

// clockTick is USER_HZ, the unit of /proc/PID/stat times: 100 on every
// Linux architecture Go supports.
const clockTick = 10 * time.Millisecond

// statTimes returns utime, stime, cutime and cstime of a process.
func statTimes(pid int) ([4]time.Duration, error) {
	var t [4]time.Duration
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return t, err
	}
	// The command name may hold spaces; the fields start after its ')'.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return t, errors.New("bad stat")
	}
	f := strings.Fields(string(b[i+1:]))
	// f[0] is field 3 (state); utime..cstime are fields 14..17.
	if len(f) < 15 {
		return t, errors.New("short stat")
	}
	for k := range 4 {
		v, err := strconv.ParseInt(f[11+k], 10, 64)
		if err != nil {
			return t, err
		}
		t[k] = time.Duration(v) * clockTick
	}
	return t, nil
}

// cpuNS returns the on-CPU time of every live thread of a process, in ns,
// from schedstat (exact, unlike stat's ticks).
func cpuNS(pid int) (int64, error) {
	tasks, err := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/schedstat", pid))
	if err != nil || len(tasks) == 0 {
		return 0, fmt.Errorf("no tasks for %d", pid)
	}
	var sum int64
	for _, t := range tasks {
		b, err := os.ReadFile(t)
		if err != nil {
			return 0, err
		}
		f := strings.Fields(string(b))
		if len(f) < 1 {
			return 0, errors.New("bad schedstat")
		}
		v, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil {
			return 0, err
		}
		sum += v
	}
	return sum, nil
}

// measureIdle takes the child's CPU time from FROM to TO after its first
// byte; it stays -1 if the child exited before TO.
func (c *child) measureIdle(from, to time.Duration) {
	<-c.first1
	if c.first.IsZero() {
		return
	}
	pid := c.cmd.Process.Pid
	select {
	case <-time.After(time.Until(c.first.Add(from))):
	case <-c.gone:
		return
	}
	a, err := cpuNS(pid)
	if err != nil {
		return
	}
	select {
	case <-time.After(time.Until(c.first.Add(to))):
	case <-c.gone:
		return
	}
	b, err := cpuNS(pid)
	if err != nil {
		return
	}
	c.mu.Lock()
	c.idleCPU = time.Duration(b - a)
	c.mu.Unlock()
}

// sampleHWM reads VmHWM of each running child every period.
func sampleHWM(kids []*child, period time.Duration, stop <-chan struct{}) {
	t := time.NewTicker(period)
	defer t.Stop()
	for {
		for _, c := range kids {
			select {
			case <-c.gone:
				continue
			default:
			}
			if kib, ok := vmHWM(c.cmd.Process.Pid); ok {
				c.mu.Lock()
				c.hwm = max(c.hwm, kib)
				c.mu.Unlock()
			}
		}
		select {
		case <-stop:
			return
		case <-t.C:
		}
	}
}

func vmHWM(pid int) (int64, bool) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, false
	}
	for line := range bytes.Lines(b) {
		if v, ok := bytes.CutPrefix(line, []byte("VmHWM:")); ok {
			f := strings.Fields(string(v))
			if len(f) > 0 {
				kib, err := strconv.ParseInt(f[0], 10, 64)
				return kib, err == nil
			}
		}
	}
	return 0, false
}
