package job

import (
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"

	"cursor-wrap/ptyproxy/sessionlog"
)

// maxReplay bounds the stdin kept for a rerun of the original command: a
// prompt, even a long one with a file pasted in, is far smaller.
const maxReplay = 8 << 20

// errTooLong says a stdin was too long to keep for a rerun.
var errTooLong = errors.New("stdin too long to keep for a rerun")

// replay is the wrapper's stdin, read once from its source and kept (up to
// maxReplay), so that a rerun of the original command gets all of it: what
// an earlier attempt read, then the rest of the source. Only one read of
// the source is ever under way; an attempt's reader that finds another one
// reading waits for its bytes.
type replay struct {
	src io.Reader

	mu      sync.Mutex
	cond    *sync.Cond
	kept    []byte
	total   int64 // bytes read from src
	err     error // src's end: io.EOF or a read error
	reading bool
}

func newReplay(src io.Reader) *replay {
	r := &replay{src: src}
	r.cond = sync.NewCond(&r.mu)
	return r
}

// reader returns a reader of the whole stdin from its start, or
// errTooLong when it cannot be given whole any more.
func (r *replay) reader() (io.Reader, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.total > int64(len(r.kept)) {
		return nil, errTooLong
	}
	return &replayReader{r: r}, nil
}

// size is how much of stdin has been read so far.
func (r *replay) size() int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.total
}

type replayReader struct {
	r   *replay
	pos int64
}

func (rr *replayReader) Read(p []byte) (int, error) {
	r := rr.r
	r.mu.Lock()
	defer r.mu.Unlock()
	for {
		if rr.pos < r.total {
			if rr.pos >= int64(len(r.kept)) {
				return 0, errTooLong // Read by another attempt, not kept.
			}
			n := copy(p, r.kept[rr.pos:])
			rr.pos += int64(n)
			return n, nil
		}
		if r.err != nil {
			return 0, r.err
		}
		if !r.reading {
			break
		}
		r.cond.Wait()
	}
	// Read the source without the lock, so another attempt's reader can
	// wait on this read rather than start a second one.
	r.reading = true
	r.mu.Unlock()
	n, err := r.src.Read(p)
	r.mu.Lock()
	r.reading = false
	if n > 0 && r.total == int64(len(r.kept)) && len(r.kept)+n <= maxReplay {
		r.kept = append(r.kept, p[:n]...)
	}
	r.total += int64(n)
	rr.pos = r.total
	if err != nil {
		r.err = err
	}
	r.cond.Broadcast()
	return n, err
}

// silentStdin is a stdin beside a prompt in the agent's args: codex exec,
// opencode run and gemini -p read stdin to its end before they start, so
// an open pipe that never delivers (a CI step's, a spawn's default) would
// hold them for ever. When nothing has come within wait, it ends there
// (gaveUp is called once); once a byte has come, it is read to its end.
type silentStdin struct {
	f      *os.File
	wait   time.Duration
	gaveUp func()
	judged bool
	ended  atomic.Bool // read by the job at the attempt's end (lateStdin)
	told   bool        // the job recorded what came later
}

func (s *silentStdin) Read(p []byte) (int, error) {
	if !s.judged {
		s.judged = true
		if !readableWithin(s.f, s.wait) {
			s.ended.Store(true)
			s.gaveUp()
		}
	}
	if s.ended.Load() {
		return 0, io.EOF
	}
	return s.f.Read(p)
}

// readableWithin reports whether f has data, or its end, within d. A
// poll that fails says yes: the read that follows reports the error.
// Polling, not reading, leaves a late byte unread rather than lost in a
// read that never returns.
func readableWithin(f *os.File, d time.Duration) bool {
	rc, err := f.SyscallConn() // Fd would make f blocking
	if err != nil {
		return true
	}
	ready := true
	deadline := time.Now().Add(d)
	_ = rc.Control(func(fd uintptr) {
		for {
			left := time.Until(deadline)
			if left <= 0 {
				ready = false
				return
			}
			fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
			n, err := unix.Poll(fds, int(left.Milliseconds())+1)
			if err != unix.EINTR {
				ready = err != nil || n > 0
				return
			}
		}
	})
	return ready
}

// stdinSource is what the agent's stdin is read from: Stdin, given up on
// after wait when it is a file that delivers nothing and the prompt is in
// the args. Claude Code gives up after 3 s, the default: a producer
// piping context starts writing at once, and a caller's forgotten pipe
// costs no more than that.
func (j *Job) stdinSource(wait time.Duration) io.Reader {
	f, ok := j.Stdin.(*os.File)
	if !ok || wait <= 0 || !j.Cmd.Profile.HasPrompt(j.Cmd.Args) {
		return j.Stdin
	}
	j.silent = &silentStdin{f: f, wait: wait, gaveUp: func() {
		words := fmt.Sprintf("stdin gave nothing for %v and the prompt is in the args: closing the agent's stdin (--stdin-wait 0 waits for its end)", wait)
		j.record(sessionlog.Input{Change: sessionlog.StdinClosed, Message: words})
		j.console.Warn(words)
	}}
	return j.silent
}
