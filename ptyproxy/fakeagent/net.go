package fakeagent

import (
	"bufio"
	"fmt"
	"net"
	"time"
)

// Ways the net step talks to a model server, as a real agent's connection
// can look while it prints nothing.
const (
	// netRead sends a request, reads every line the server sends and
	// prints those that are not "ping": a response streaming in.
	netRead = "read"
	// netAnswer sends a request and answers each line with "pong": the
	// server pings an idle pooled connection and the agent answers.
	netAnswer = "answer"
	// netKeepAlive sends "ping" every keepAliveEvery and reads what comes
	// back: the agent pings an idle connection and the server acks.
	netKeepAlive = "keepalive"
	// netUnread sends a request and never reads: a wedged agent whose
	// kernel still receives.
	netUnread = "unread"
)

const keepAliveEvery = 200 * time.Millisecond

// talk connects to addr and talks to it as how says, until the server
// closes the connection (or forever, for netUnread).
func (a *agent) talk(addr, how string) error {
	a.out.Flush()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		return err
	}
	defer c.Close()
	switch how {
	case netKeepAlive:
		go func() {
			for range time.Tick(keepAliveEvery) {
				if _, err := c.Write([]byte("ping\n")); err != nil {
					return
				}
			}
		}()
	case netRead, netAnswer, netUnread:
		if _, err := c.Write([]byte("request\n")); err != nil {
			return err
		}
	default:
		return fmt.Errorf("net: unknown way %q", how)
	}
	if how == netUnread {
		sleepForever()
	}
	in := bufio.NewScanner(c)
	for in.Scan() {
		switch {
		case how == netAnswer:
			if _, err := c.Write([]byte("pong\n")); err != nil {
				return err
			}
		case how == netRead && in.Text() != "ping":
			a.println(in.Text())
		}
	}
	return in.Err()
}
