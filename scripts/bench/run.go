//go:build linux

package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// A child is one copy of the measured command and what was seen of it.
type child struct {
	cmd   *exec.Cmd
	out   *os.File // our end of its stdout: a pipe, or the PTY master
	start time.Time

	// Set by the reader goroutine; read once it has returned (first: once
	// first1 is closed).
	first  time.Time // first byte
	eof    time.Time
	bytes  int64
	lat    []time.Duration // arrival - sent_ns, one per line that has it
	first1 chan struct{}   // closed at the first byte

	// Set by the waiter goroutine.
	exited   time.Time
	selfCPU  time.Duration // utime+stime of the child itself
	childCPU time.Duration // utime+stime of what it waited for (the agent)
	ruCPU    time.Duration // wait4's rusage: itself and its waited-for children
	ruMaxRSS int64         // KiB, the larger of itself and any waited-for child
	status   int
	gone     chan struct{} // closed once exited and stat were taken

	mu      sync.Mutex
	hwm     int64         // KiB, peak VmHWM sampled while it ran
	idleCPU time.Duration // CPU over the idle window, -1 if not measured
}

// runCmd runs -n copies of a command at once, reads their stdout to EOF,
// and prints the measurements as one line of key=value pairs.
//
// How each number is taken, and why:
//   - wall: from just before the first fork to the last EOF or exit.
//   - ttfb: fork to the first byte read, per copy (median over copies).
//   - self/child CPU: the child is waited for with WNOWAIT, so it stays a
//     zombie while /proc/PID/stat is read: utime+stime is then the child's
//     whole life and cutime+cstime is what it reaped (the wrapper's agent),
//     kept apart. The resolution is the clock tick (10 ms).
//   - hwm: /proc/PID/status VmHWM sampled every -sample while the child
//     runs. It is a high-water mark, so a late sample still sees an early
//     peak; only growth in the last interval before exit can be missed.
//     (wait4's maxrss is printed too, but it is the larger of the child and
//     its agent, so it cannot tell the wrapper's own peak.)
//   - idle CPU: with -idle FROM:TO, the child's on-CPU time in ns (the sum
//     of /proc/PID/task/*/schedstat, exact, unlike the 10 ms ticks of stat)
//     between FROM and TO after its first byte.
//   - latency: with -lat, arrival time minus the "sent_ns" each line carries
//     (the fake agent's tick step); arrival is when the read that completed
//     the line returned.
func runCmd(args []string) int {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	n := fs.Int("n", 1, "copies to run at once")
	usePTY := fs.Bool("pty", false, "give the command a raw PTY as stdout (read in-process) instead of a pipe")
	lat := fs.Bool("lat", false, "measure the latency of sent_ns lines")
	idle := fs.String("idle", "", "FROM:TO after the first byte: measure the child's CPU time in that window")
	sample := fs.Duration("sample", 20*time.Millisecond, "VmHWM sampling period, 0 for none")
	timeout := fs.Duration("timeout", 10*time.Minute, "SIGKILL the copies after this")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	argv := fs.Args()
	if len(argv) == 0 {
		return fatal("run: no command")
	}
	var idleFrom, idleTo time.Duration
	if *idle != "" {
		a, b, _ := strings.Cut(*idle, ":")
		var err1, err2 error
		idleFrom, err1 = time.ParseDuration(a)
		idleTo, err2 = time.ParseDuration(b)
		if err1 != nil || err2 != nil || idleTo <= idleFrom {
			return fatal("run: -idle %q: want FROM:TO durations", *idle)
		}
	}

	kids := make([]*child, *n)
	t0 := time.Now()
	for i := range kids {
		c := &child{first1: make(chan struct{}), gone: make(chan struct{}), idleCPU: -1}
		c.cmd = exec.Command(argv[0], argv[1:]...)
		c.cmd.Stderr = os.Stderr
		var err error
		c.start = time.Now()
		if *usePTY {
			c.out, err = startOnPTY(c.cmd)
		} else {
			c.out, err = startOnPipe(c.cmd)
		}
		if err != nil {
			for _, k := range kids[:i] {
				_ = k.cmd.Process.Kill()
			}
			return fatal("run: start: %v", err)
		}
		kids[i] = c
	}

	var wg sync.WaitGroup
	for _, c := range kids {
		wg.Go(func() { c.read(*lat) })
		wg.Go(c.wait)
		if *idle != "" {
			wg.Go(func() { c.measureIdle(idleFrom, idleTo) })
		}
	}
	stopSampling := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		if *sample > 0 {
			sampleHWM(kids, *sample, stopSampling)
		}
	}()
	var timedOut atomic.Bool
	timer := time.AfterFunc(*timeout, func() {
		timedOut.Store(true)
		for _, c := range kids {
			_ = c.cmd.Process.Signal(syscall.SIGKILL)
		}
	})
	wg.Wait()
	timer.Stop()
	close(stopSampling)
	<-sampled

	var end time.Time
	var st stats
	for _, c := range kids {
		end = later(end, later(c.eof, c.exited))
		st.add(c)
	}
	st.print(end.Sub(t0), timedOut.Load())
	if st.fails > 0 || timedOut.Load() {
		return 1
	}
	return 0
}

// startOnPipe starts cmd with its stdout on a pipe and returns our end.
func startOnPipe(cmd *exec.Cmd) (*os.File, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	defer w.Close()
	cmd.Stdout = w
	if err := cmd.Start(); err != nil {
		r.Close()
		return nil, err
	}
	return r, nil
}

// read reads the child's stdout to its end, as any consumer would, with
// one read(2) per call into a large buffer.
func (c *child) read(lat bool) {
	defer c.out.Close()
	buf := make([]byte, 256<<10)
	var carry []byte // an unfinished line, kept only with -lat
	for {
		n, err := c.out.Read(buf)
		if n > 0 {
			now := time.Now()
			if c.bytes == 0 {
				c.first = now
				close(c.first1)
			}
			c.bytes += int64(n)
			if lat {
				carry = c.latencies(now, append(carry, buf[:n]...))
			}
		}
		// EIO is the end of a PTY, EOF the end of a pipe.
		if err != nil {
			if !errors.Is(err, io.EOF) && !errors.Is(err, syscall.EIO) {
				fmt.Fprintln(os.Stderr, "bench: read:", err)
			}
			break
		}
	}
	c.eof = time.Now()
	if c.bytes == 0 {
		close(c.first1)
	}
}

// latencies records arrival - sent_ns for each whole line in p and returns
// the unfinished rest.
func (c *child) latencies(now time.Time, p []byte) []byte {
	for {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			return p
		}
		if sent, ok := sentNS(p[:i]); ok {
			c.lat = append(c.lat, now.Sub(time.Unix(0, sent)))
		}
		p = p[i+1:]
	}
}

// sentNS finds "sent_ns":N in a line.
func sentNS(line []byte) (int64, bool) {
	key := []byte(`"sent_ns":`)
	i := bytes.Index(line, key)
	if i < 0 {
		return 0, false
	}
	rest := line[i+len(key):]
	j := 0
	for j < len(rest) && rest[j] >= '0' && rest[j] <= '9' {
		j++
	}
	v, err := strconv.ParseInt(string(rest[:j]), 10, 64)
	return v, err == nil
}

// wait waits for the child's exit without reaping it, reads its CPU times
// from the zombie's /proc/PID/stat, then reaps it.
func (c *child) wait() {
	defer close(c.gone)
	pid := c.cmd.Process.Pid
	var info unix.Siginfo
	for {
		err := unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED|unix.WNOWAIT, nil)
		if err != unix.EINTR {
			break
		}
	}
	c.exited = time.Now()
	if t, err := statTimes(pid); err == nil {
		c.selfCPU, c.childCPU = t[0]+t[1], t[2]+t[3]
	}
	err := c.cmd.Wait()
	ps := c.cmd.ProcessState
	if ps == nil {
		fmt.Fprintln(os.Stderr, "bench: wait:", err)
		c.status = -1
		return
	}
	c.status = ps.ExitCode()
	if ru, ok := ps.SysUsage().(*syscall.Rusage); ok {
		c.ruCPU = time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
		c.ruMaxRSS = ru.Maxrss
	}
}

// stats sums and summarizes the copies.
type stats struct {
	n, fails, status int // status: the first non-zero exit status, else 0
	bytes            int64
	ttfb, lat, idle  []time.Duration
	self, child, ru  time.Duration
	hwm, maxrss      int64
}

func (s *stats) add(c *child) {
	s.n++
	if c.status != 0 {
		if s.fails == 0 {
			s.status = c.status
		}
		s.fails++
	}
	s.bytes += c.bytes
	if !c.first.IsZero() {
		s.ttfb = append(s.ttfb, c.first.Sub(c.start))
	}
	s.lat = append(s.lat, c.lat...)
	s.self += c.selfCPU
	s.child += c.childCPU
	s.ru += c.ruCPU
	s.maxrss = max(s.maxrss, c.ruMaxRSS)
	c.mu.Lock()
	s.hwm = max(s.hwm, c.hwm)
	if c.idleCPU >= 0 {
		s.idle = append(s.idle, c.idleCPU)
	}
	c.mu.Unlock()
}

func (s *stats) print(wall time.Duration, timedOut bool) {
	var b strings.Builder
	kv := func(k string, v any) { fmt.Fprintf(&b, "%s=%v ", k, v) }
	kv("n", s.n)
	kv("exit", s.status)
	kv("fails", s.fails)
	kv("timeout", timedOut)
	kv("wall_ms", ms(wall))
	kv("bytes", s.bytes)
	if len(s.ttfb) > 0 {
		kv("ttfb_ms", ms(pct(s.ttfb, 50)))
	}
	kv("self_cpu_ms", ms(s.self))
	kv("child_cpu_ms", ms(s.child))
	kv("ru_cpu_ms", ms(s.ru))
	kv("hwm_kib", s.hwm)
	kv("ru_maxrss_kib", s.maxrss)
	if len(s.idle) > 0 {
		kv("idle_cpu_ms", ms(pct(s.idle, 50)))
	}
	if len(s.lat) > 0 {
		printLat(kv, s.lat)
	}
	fmt.Println(strings.TrimSpace(b.String()))
}

func printLat(kv func(string, any), lat []time.Duration) {
	kv("lat_n", len(lat))
	kv("lat_p50_ms", ms(pct(lat, 50)))
	kv("lat_p99_ms", ms(pct(lat, 99)))
	kv("lat_max_ms", ms(pct(lat, 100)))
}

// pct returns the p-th percentile (nearest rank) of d.
func pct(d []time.Duration, p int) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	i := (len(s)*p + 99) / 100
	return s[max(0, min(len(s)-1, i-1))]
}

func ms(d time.Duration) string {
	return strconv.FormatFloat(float64(d)/float64(time.Millisecond), 'f', 3, 64)
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// sink measures the latency of the sent_ns lines on stdin, for use at the
// end of a shell pipeline.
func sink() int {
	c := &child{out: os.Stdin, first1: make(chan struct{})}
	c.read(true)
	if len(c.lat) == 0 {
		return fatal("sink: no sent_ns lines")
	}
	var b strings.Builder
	kv := func(k string, v any) { fmt.Fprintf(&b, "%s=%v ", k, v) }
	kv("bytes", c.bytes)
	printLat(kv, c.lat)
	fmt.Println(strings.TrimSpace(b.String()))
	return 0
}
