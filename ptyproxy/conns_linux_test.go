package ptyproxy

import (
	"errors"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"cursor-wrap/ptyproxy/sessionlog"
)

// TestTCPConns reads a loopback connection back from sock_diag: what was
// read, what waits unread, what was sent, the data segments, and the
// remote address; a first time from a dump, then by its identity; and
// once it is closed, not at all.
func TestTCPConns(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	client, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	server, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer server.Close()
	f, err := client.(*net.TCPConn).File()
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	link, err := os.Readlink("/proc/self/fd/" + strconv.Itoa(int(f.Fd())))
	if err != nil {
		t.Fatal(err)
	}
	inode, err := strconv.ParseUint(strings.TrimSuffix(strings.TrimPrefix(link, "socket:["), "]"), 10, 64)
	if err != nil {
		t.Fatalf("%s: %v", link, err)
	}
	client.Write([]byte("request\n"))
	server.Write(make([]byte, 100))
	if _, err := io.ReadFull(client, make([]byte, 100)); err != nil {
		t.Fatal(err)
	}
	server.Write(make([]byte, 50))
	var ct connTable
	inodes := map[uint64]bool{inode: true}
	for deadline := time.Now().Add(10 * time.Second); ; {
		conns := ct.conns(inodes)
		if len(conns) != 1 {
			t.Fatalf("conns %+v, want the one", conns)
		}
		c := conns[0]
		if c.Unread == 50 {
			if c.Received != 100 || c.Sent != 8 || c.SegsIn != 2 || c.SegsOut != 1 || !c.Open || c.Remote != ln.Addr().String() || c.RecvAgo > 5*time.Second {
				t.Errorf("conn %+v", c)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the unread bytes never showed: %+v", c)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if _, known := ct.ids[inode]; !known {
		t.Fatal("the connection's identity was not kept")
	}
	client.Close()
	f.Close()
	server.Close()
	// A child another test is starting may hold a copy of the socket for a
	// moment, until its exec closes it.
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		conns := ct.conns(inodes)
		if len(conns) == 0 || !conns[0].Open {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after the close: %+v", conns)
		}
	}
}

// TestConnTableDumpsOnce: a socket of the agent's that is not TCP (here a
// Unix socket) costs a few dumps, not one at every sample.
func TestConnTableDumpsOnce(t *testing.T) {
	t.Parallel()
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fds[0])
	defer unix.Close(fds[1])
	inodes := map[uint64]bool{}
	for _, fd := range fds {
		link, err := os.Readlink("/proc/self/fd/" + strconv.Itoa(fd))
		if err != nil {
			t.Fatal(err)
		}
		inode, err := strconv.ParseUint(strings.TrimSuffix(strings.TrimPrefix(link, "socket:["), "]"), 10, 64)
		if err != nil {
			t.Fatalf("%s: %v", link, err)
		}
		inodes[inode] = true
	}
	var ct connTable
	for range 10 {
		if conns := ct.conns(inodes); len(conns) != 0 {
			t.Fatalf("TCP connections among Unix sockets: %+v", conns)
		}
	}
	for inode := range inodes {
		if ct.missed[inode] != missedDumps {
			t.Errorf("socket %d missed by %d dumps, want %d", inode, ct.missed[inode], missedDumps)
		}
	}
}

// TestConnsUnseenSaid: on a host whose kernel does not answer sock_diag,
// a run says once, at its start, that a model that thinks in silence is
// judged by idle_timeout alone, and doctor's check fails naming the fix.
// Not parallel with the package's other tests: it swaps the sock_diag the
// whole package asks.
func TestConnsUnseenSaid(t *testing.T) {
	was := sockDiag
	sockDiag = func() error { return errors.New("protocol not supported") }
	t.Cleanup(func() { sockDiag = was })
	th := fast()
	th.ActivityProbe = true
	log := &records{}
	runAgent(t, Options{Thresholds: th, Log: sessionlog.NewRecorder(nil, sessionlog.SinkTo(log))},
		"line", `{"type":"system","subtype":"init","session_id":"s-1"}`, "line", `{"type":"result","subtype":"success","result":"ok"}`)
	w := log.warnings()
	if len(w) != 1 || !strings.Contains(w[0], "the kernel does not tell the agent's connections: sock_diag does not answer (protocol not supported)") ||
		!strings.Contains(w[0], "judged by idle_timeout alone") {
		t.Errorf("warnings %q, want the kernel's silence said once", w)
	}
	if ok, what, fix := ConnCheck(); ok || !strings.Contains(what, "protocol not supported") || !strings.Contains(fix, "modprobe tcp_diag") {
		t.Errorf("doctor's check: %v, %q, %q", ok, what, fix)
	}
}
