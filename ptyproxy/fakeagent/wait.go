package fakeagent

import (
	"errors"
	"io"
	"os"
)

// The steps that wait for input, as an agent waits for a person's answer.
// Each returns once a byte or the end comes.

// stepWaitTTY waits to read its terminal as an event loop does: /dev/tty
// opened through Go's poller, which holds it in the runtime's epoll set
// for input (non-blocking, no thread in a read).
func stepWaitTTY(a *agent, _ []string) error {
	a.out.Flush()
	tty, err := os.OpenFile("/dev/tty", os.O_RDWR, 0)
	if err != nil {
		return err
	}
	defer tty.Close()
	return readOne(tty)
}

// stepWaitStdin waits to read stdin the plain way: the wrapper's pipe is
// blocking, so a thread sits in read(2).
func stepWaitStdin(a *agent, _ []string) error {
	a.out.Flush()
	return readOne(os.Stdin)
}

func readOne(f *os.File) error {
	if _, err := f.Read(make([]byte, 1)); err != nil && !errors.Is(err, io.EOF) {
		return err
	}
	return nil
}
