package job

import (
	"errors"
	"io"
	"sync"
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
