// Package sessionlog is the session log: one schema of typed records, each
// attempt's JSONL file and its writer, finding, listing and pruning the
// logs, and reading each back at a glance: how its run ended, by the one
// classifier every reader uses, and the list of past sessions. Secrets are
// masked (package redact) on the way in.
package sessionlog

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"sync"
	"time"

	"golang.org/x/sys/unix"

	"cursor-wrap/ptyproxy/redact"
)

// A File is one attempt's log file. Records are queued by Write and written
// by a goroutine of its own, many per write(2), so logging never stalls
// the output path; a record queued before a SIGKILL of the wrapper is lost,
// one that reached write(2) is not. Sync waits for the queue and fsyncs.
//
// # Failures
//
// A log that cannot be created or written is reported once, through the
// report function, and the session goes on: records are then dropped and
// counted, and a torn last record is cut back. When writes work again a
// log_dropped record says how many were lost.
type File struct {
	report func(error)

	mu      sync.Mutex
	cond    *sync.Cond
	pending []byte
	ready   chan struct{} // closed once the file is created, or failed to be
	done    chan struct{} // closed when the writer goroutine is gone
	synced  uint64        // generation of pending that has reached the file
	queued  uint64
	closed  bool
	dropped int
	failed  bool
	lagging bool // the queue stayed full past maxWait; drop until it empties
	waits   int  // times a write waited for room

	f      *os.File
	logDir string  // the log dir asked for
	dir    *logDir // the directory the file is in, once created
	name   string
	rename string // a session id the name should take; the writer renames
	start  time.Time
	good   int64 // offset after the last whole record
}

// maxPending bounds the queue when the disk does not keep up (a stuck NFS
// mount, or writeback throttling a gigabyte of records): past it records
// are dropped and counted, never the output. The writer swaps two buffers
// of this fixed capacity, so the queue costs at most twice this.
const maxPending = 2 << 20

// maxWait is how long a write waits for room in a full queue.
const maxWait = 50 * time.Millisecond

// Open starts a log file for an attempt started at start in dir, named
// after the start alone until Rename adds the session id (a run whose
// agent names none, as in text mode, keeps that name). The file is
// created by the writer goroutine, off the agent's way to its start;
// records written before are queued. It never fails: a log it cannot
// create reports why and drops its records.
func Open(dir string, start time.Time, report func(error)) *File {
	l := newFile(report, dir, start)
	go func() {
		err := l.create()
		close(l.ready)
		if err != nil {
			l.fail(err)
			l.mu.Lock()
			l.pending = nil
			l.mu.Unlock()
			close(l.done)
			return
		}
		l.loop()
	}()
	return l
}

func newFile(report func(error), dir string, start time.Time) *File {
	l := &File{report: report, logDir: dir, start: start, ready: make(chan struct{}), done: make(chan struct{})}
	l.cond = sync.NewCond(&l.mu)
	return l
}

func (l *File) create() error {
	dir, err := openDir(l.logDir, true)
	if err != nil {
		return err
	}
	base := fmt.Sprintf("cursor-wrap-%d", l.start.UnixMilli())
	for n := 1; ; n++ {
		name := base + ".jsonl"
		if n > 1 {
			name = base + "-" + strconv.Itoa(n) + ".jsonl"
		}
		f, err := dir.create(name)
		if errors.Is(err, os.ErrExist) && n < 100 {
			continue
		}
		if err != nil {
			dir.close()
			return err
		}
		// Held while the attempt runs: Prune leaves a log it cannot lock.
		_ = unix.Flock(int(f.Fd()), unix.LOCK_SH) // Best effort: a filesystem without locks.
		l.mu.Lock()
		l.f, l.dir, l.name = f, dir, name
		l.mu.Unlock()
		return nil
	}
}

// Path returns the log file's path, "" if there is none. It waits for
// the file to be created and for a rename asked for to be done.
func (l *File) Path() string {
	<-l.ready
	l.mu.Lock()
	defer l.mu.Unlock()
	for l.f != nil && l.rename != "" {
		l.cond.Wait()
	}
	if l.f == nil {
		return ""
	}
	return l.dir.join(l.name)
}

// Write queues one or more whole records, masked. It never fails.
func (l *File) Write(m redact.Masked) {
	p := m.Bytes()
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed || l.f == nil && l.failed {
		return
	}
	// One record larger than the queue (a huge line full of escapes) is
	// still taken when the queue is empty.
	full := func() bool { return len(l.pending) > 0 && len(l.pending)+len(p) > maxPending }
	if full() && !l.lagging {
		// The disk is behind (writeback throttling a burst): wait a little
		// for the writer to make room rather than lose records. A disk
		// that stays stuck costs this wait once, not once per record.
		// The wake-up is set after the deadline, so it never comes before
		// it: a wait woken early, by a stuck disk, would never end.
		deadline := time.Now().Add(maxWait)
		wake := time.AfterFunc(maxWait, func() {
			l.mu.Lock()
			l.cond.Broadcast()
			l.mu.Unlock()
		})
		l.waits++
		for full() && time.Now().Before(deadline) && !l.failed {
			l.cond.Wait()
		}
		wake.Stop()
		l.lagging = full()
	}
	if full() {
		l.dropped += max(1, bytes.Count(p, []byte("\n")))
		return
	}
	l.pending = appendCapped(l.pending, p)
	l.queued++
	l.cond.Broadcast()
}

// appendCapped appends p to b, growing b no further than maxPending (unless
// p alone is larger): append's doubling would reach twice that. It starts
// small, since a large buffer at start would bring the first garbage
// collection into the agent's start.
func appendCapped(b, p []byte) []byte {
	if need := len(b) + len(p); need > cap(b) {
		n := min(max(2*cap(b), need, 64<<10), max(maxPending, need))
		b = append(make([]byte, 0, n), b...)
	}
	return append(b, p...)
}

func (l *File) loop() {
	defer close(l.done)
	var buf []byte
	l.mu.Lock()
	for {
		for len(l.pending) == 0 && l.rename == "" && !l.closed {
			l.cond.Wait()
		}
		if id := l.rename; id != "" {
			l.mu.Unlock()
			name := l.renamed(id)
			l.mu.Lock()
			l.name = name
			if l.rename == id {
				l.rename = ""
			}
			l.cond.Broadcast()
			continue
		}
		if len(l.pending) == 0 && l.closed {
			l.mu.Unlock()
			return
		}
		buf, l.pending = l.pending, buf[:0]
		gen := l.queued
		dropped := l.dropped
		l.mu.Unlock()

		if dropped > 0 {
			if l.write(encode(time.Now(), LogDropped{Records: dropped})) == nil {
				l.mu.Lock()
				l.dropped -= dropped
				l.mu.Unlock()
			}
		}
		err := l.write(buf)
		if cap(buf) > maxPending {
			buf = nil // An oversized record's buffer is not kept.
		}

		l.mu.Lock()
		if err != nil {
			l.dropped += bytes.Count(buf, []byte("\n"))
		}
		if len(l.pending) == 0 {
			l.lagging = false
		}
		l.synced = gen
		l.cond.Broadcast()
	}
}

// write writes whole records, cutting a torn one back so the file stays
// valid JSONL.
func (l *File) write(p []byte) error {
	n, err := l.f.Write(p)
	if err == nil {
		l.good += int64(n)
		return nil
	}
	if n > 0 {
		_ = l.f.Truncate(l.good) // Best effort; readers tolerate a torn last line.
	}
	l.fail(err)
	return err
}

// fail reports the first failure only.
func (l *File) fail(err error) {
	l.mu.Lock()
	first := !l.failed
	l.failed = true
	l.mu.Unlock()
	if first && l.report != nil {
		l.report(err)
	}
}

// Sync waits until every record queued so far is written, then fsyncs.
func (l *File) Sync() {
	<-l.ready
	l.mu.Lock()
	for l.f != nil && l.synced < l.queued && !l.failed {
		l.cond.Wait()
	}
	f := l.f
	l.mu.Unlock()
	if f != nil {
		_ = f.Sync() // A failed fsync has nothing left to save.
	}
}

// Rename asks for the session id to be added to the file's name. It
// returns at once: the writer renames, since a rename and its directory
// fsync can wait as long as a stuck disk, and Rename is called from the
// session loop, which must always be free to kill. An existing file of
// that name is never replaced: a suffix is added instead.
func (l *File) Rename(sessionID string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed || l.failed && l.f == nil {
		return
	}
	l.rename = sessionID
	l.cond.Broadcast()
}

// renamed renames the file for sessionID and returns its new name, or the
// old one if it could not. Only the writer calls it.
func (l *File) renamed(sessionID string) string {
	base := fmt.Sprintf("cursor-wrap-%d-%s", l.start.UnixMilli(), safeID(sessionID))
	for n := 1; n < 100; n++ {
		name := base + ".jsonl"
		if n > 1 {
			name = base + "-" + strconv.Itoa(n) + ".jsonl"
		}
		err := l.dir.rename(l.name, name)
		if errors.Is(err, unix.EEXIST) {
			continue
		}
		if err != nil {
			break
		}
		return name
	}
	return l.name
}

var unsafeChars = regexp.MustCompile(`[^A-Za-z0-9._-]`)

// safeID keeps a session id usable in a file name.
func safeID(id string) string {
	id = unsafeChars.ReplaceAllString(id, "_")
	if len(id) > 100 {
		id = id[:100]
	}
	if id == "" || id == "." || id == ".." {
		id = "unnamed"
	}
	return id
}

// Close writes what is queued and closes the file. It does not fsync: the
// records are in the file for every reader once Close returns, and only a
// crash of the machine could lose them; Sync is for the sessions worth that
// cost (fsyncing a 120 MB log took 95 ms).
func (l *File) Close() {
	<-l.ready
	l.mu.Lock()
	l.closed = true
	l.cond.Broadcast()
	l.mu.Unlock()
	<-l.done
	if l.f != nil {
		l.f.Close()
	}
	if l.dir != nil {
		l.dir.close()
	}
}
