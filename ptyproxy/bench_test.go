package ptyproxy

import (
	"context"
	"io"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"

	"cursor-wrap/ptyproxy/fakeagent"
	"cursor-wrap/ptyproxy/redact"
	"cursor-wrap/ptyproxy/sessionlog"
	"cursor-wrap/stream"
	"cursor-wrap/watchdog"
)

// The proxy's stages of the hot path (read → forward → split → parse →
// record → redact → write; stream and sessionlog benchmark the others),
// the reader goroutine (read, forward) and the session loop's part (split
// to write) as a whole, and whole attempts. The input is
// scripts/bench.sh's throughput case, the fake agent's 1 KiB lines; bytes
// per op are the agent's bytes, so MB/s compare from stage to stage.

// benchChunk is 64 KiB of the fake agent's "lines N 1024".
var benchChunk = func() []byte {
	head := `{"type":"thinking","subtype":"delta","text":"`
	line := head + strings.Repeat("x", 1024-len(head)-3) + "\"}\n"
	return []byte(strings.Repeat(line, 64))
}()

// benchPTY opens a PTY as start does (both ends outside the poller,
// nonblocking master, raw slave) and writes total bytes of benchChunk to
// the slave from a goroutine, then closes it, so the master reads EIO
// after the last byte.
func benchPTY(b *testing.B, total int64) *os.File {
	b.Helper()
	master, slave := rawPTY(b)
	go func() {
		defer slave.Close()
		for left := total; left > 0; {
			n, err := slave.Write(benchChunk[:min(left, int64(len(benchChunk)))])
			if err != nil {
				return
			}
			left -= int64(n)
		}
	}()
	return master
}

// rawPTY opens a PTY as start does: both ends outside the poller, the
// master nonblocking, the slave raw. The master is closed at the end of
// the test; the slave is the caller's to close.
func rawPTY(tb testing.TB) (master, slave *os.File) {
	tb.Helper()
	master, slave, err := pty.Open()
	if err != nil {
		tb.Fatal(err)
	}
	if master, err = unpoll(master); err != nil {
		tb.Fatal(err)
	}
	if slave, err = unpoll(slave); err != nil {
		tb.Fatal(err)
	}
	if err := prepareMaster(master); err != nil {
		tb.Fatal(err)
	}
	if err := makeRaw(int(slave.Fd())); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { master.Close() })
	return master, slave
}

// drain returns a pipe whose other end is read to its end by a goroutine,
// as the wrapper's downstream reader does (scripts/bench's run), until the
// benchmark ends.
func drain(b *testing.B) *os.File {
	b.Helper()
	w, stop := drainPipe(b)
	b.Cleanup(stop)
	return w
}

// drainPipe is drain with the end in the caller's hands.
func drainPipe(b *testing.B) (*os.File, func()) {
	b.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		b.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		buf := make([]byte, 256<<10)
		for {
			if _, err := r.Read(buf); err != nil {
				return
			}
		}
	}()
	return w, func() {
		w.Close()
		<-done
		r.Close()
	}
}

// BenchmarkRead reads the PTY master as the reader does, coalescing the
// 4 KiB a PTY hands out per read(2) into reads of up to 64 KiB.
func BenchmarkRead(b *testing.B) {
	const perOp = 1 << 20
	r := newReader(benchPTY(b, int64(b.N)*perOp), io.Discard, systemClock{})
	buf := make([]byte, readSize)
	b.SetBytes(perOp)
	b.ResetTimer()
	var got, reads int64
	for {
		n, err := r.read(buf)
		got += int64(n)
		reads++
		if err != nil {
			break
		}
	}
	b.StopTimer()
	if got != int64(b.N)*perOp {
		b.Fatalf("read %d bytes, want %d", got, int64(b.N)*perOp)
	}
	b.ReportMetric(float64(got)/float64(reads), "B/read")
}

// BenchmarkForward writes 64 KiB reads to stdout, a pipe.
func BenchmarkForward(b *testing.B) {
	out := drain(b)
	r := newReader(out, out, systemClock{}) // forward uses only out
	b.SetBytes(int64(len(benchChunk)))
	b.ReportAllocs()
	for b.Loop() {
		r.forward(benchChunk)
	}
	if err := r.stdoutErr(); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkReader runs the reader goroutine (read, forward, hand-off) with
// a loop that only hands the batches back: its cost over BenchmarkRead and
// BenchmarkForward is the hand-off.
func BenchmarkReader(b *testing.B) {
	const perOp = 1 << 20
	r := newReader(benchPTY(b, int64(b.N)*perOp), drain(b), systemClock{})
	b.SetBytes(perOp)
	b.ReportAllocs()
	b.ResetTimer()
	go r.run()
	var got, batches int
	for done := false; !done; {
		select {
		case bt := <-r.batches:
			got += len(bt.data)
			batches++
			r.free <- bt
		case err := <-r.done:
			if err != nil {
				b.Fatal(err)
			}
			done = true
		}
	}
	for len(r.batches) > 0 { // sent before done; select may have taken done first
		bt := <-r.batches
		got += len(bt.data)
		batches++
	}
	b.StopTimer()
	if want := b.N * perOp; got != want {
		b.Fatalf("%d bytes, want %d", got, want)
	}
	b.ReportMetric(float64(got)/float64(batches), "B/batch")
}

// BenchmarkFeed runs the session loop's part of the hot path on 64 KiB
// batches of 1 KiB lines: split, parse, the watchdog, and the event
// records, redacted and queued to a log file whose writer goroutine
// writes them (the queue's cost, not the disk's, unless the disk is
// behind). With BenchmarkReader it is the whole of an attempt's hot path.
func BenchmarkFeed(b *testing.B) {
	f := sessionlog.Open(b.TempDir(), time.Now(), func(err error) { b.Error(err) })
	b.Cleanup(f.Close)
	l := &loop{
		o: Options{
			Parse: stream.Parse,
			Log:   sessionlog.NewRecorder(redact.New(nil, []string{"OPENAI_API_KEY=sk-proj-abcdefghijklmnopqrst"}), f),
		},
		r:      &reader{},
		wd:     watchdog.New(fast(), time.Now()),
		exited: true, // no process tree to look at
	}
	l.cutLines()
	bt := &batch{data: benchChunk}
	b.SetBytes(int64(len(benchChunk)))
	b.ReportAllocs()
	cpu0 := cpuTime()
	for b.Loop() {
		bt.at = time.Now()
		l.feed(bt)
	}
	// The log's writer goroutine included; steadier than wall time on a
	// shared machine.
	b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N)/1e3, "cpu-µs/op")
	if want := b.N * len(benchChunk) / 1024; l.out.Lines != want {
		b.Fatalf("%d lines, want %d", l.out.Lines, want)
	}
}

// BenchmarkRun runs whole attempts: the fake agent prints 16 MiB of 1 KiB
// or 8 MiB lines under the proxy, with the session log as the wrapper
// writes it (records redacted, queued, written to a file) or without one;
// and, stderr-heavy, 4 MiB of 1 KiB lines each written by itself and
// followed by a line on stderr, which is passed on only once the line
// before it is. Profile the proxy with
//
//	go test -run '^$' -bench 'Run/lines1KiB/^log$' -benchtime 10x -cpuprofile cpu.out ./ptyproxy
func BenchmarkRun(b *testing.B) {
	self, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		name        string
		step        string
		size, total int
	}{
		{"lines1KiB", "lines", 1 << 10, 16 << 20},
		{"lines8MiB", "lines", 8 << 20, 16 << 20},
		{"mixed1KiB", "mixed", 1 << 10, 4 << 20},
	} {
		for _, logged := range []bool{true, false} {
			b.Run(c.name+map[bool]string{true: "/log", false: "/nolog"}[logged], func(b *testing.B) {
				b.SetBytes(int64(c.total))
				b.ReportAllocs()
				cpu0 := cpuTime()
				for b.Loop() {
					runBench(b, self, c.step, c.size, c.total/c.size, logged)
				}
				// CPU time moves less than wall time on a shared machine.
				b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N)/1e6, "cpu-ms/op")
			})
		}
	}
}

// cpuTime is the CPU time this process has used (not its children: the
// agent's is not counted).
func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// runBench runs one attempt, set up as the wrapper sets one up: the agent
// prints n lines of size bytes with step ("lines" or "mixed"), its stderr
// going to the same pipe as its stdout.
func runBench(b *testing.B, self, step string, size, n int, logged bool) {
	out, stop := drainPipe(b)
	defer stop()
	o := Options{
		Path:       self,
		Args:       []string{fakeagent.Subcommand, step, strconv.Itoa(n), strconv.Itoa(size)},
		Env:        agentEnv(),
		IO:         IO{Stdout: out, Stderr: out},
		Parse:      stream.Parse,
		Thresholds: fast(),
		Tick:       5 * time.Second,
		KillGrace:  time.Second,
	}
	var f *sessionlog.File
	if logged {
		f = sessionlog.Open(b.TempDir(), time.Now(), func(err error) { b.Error(err) })
		o.Log = sessionlog.NewRecorder(redact.New(nil, []string{"OPENAI_API_KEY=sk-proj-abcdefghijklmnopqrst"}), f)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := Run(ctx, o)
	if f != nil {
		f.Close()
	}
	if err != nil || res.Cause != Exited || res.ExitCode != 0 || res.Lines != n {
		b.Fatalf("outcome %+v, %v; want %d lines", res, err, n)
	}
}
