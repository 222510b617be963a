package ptyproxy

import (
	"io"
	"net"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestTCPConns reads a loopback connection back from sock_diag: what was
// read, what waits unread, what was sent, and the remote address.
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
	for deadline := time.Now().Add(10 * time.Second); ; {
		conns := tcpConns(map[uint64]bool{inode: true})
		if len(conns) != 1 {
			t.Fatalf("conns %+v, want the one", conns)
		}
		c := conns[0]
		if c.Unread == 50 {
			if c.Received != 100 || c.Sent != 8 || !c.Open || c.Remote != ln.Addr().String() || c.RecvAgo > 5*time.Second {
				t.Errorf("conn %+v", c)
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the unread bytes never showed: %+v", c)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
