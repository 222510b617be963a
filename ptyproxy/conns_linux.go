package ptyproxy

import (
	"maps"
	"os"
	"strconv"
	"strings"
	"sync"

	"cursor-wrap/watchdog"

	"golang.org/x/sys/unix"
)

// sockets returns the inodes of the sockets the processes pids hold:
// the agent process and its runtime process, whose connections are the
// agent's model client's; not its helpers' (an MCP server following a
// feed), its tools' or leftovers'.
func sockets(pids []int) map[uint64]bool {
	inodes := map[uint64]bool{}
	for _, pid := range pids {
		dir := "/proc/" + strconv.Itoa(pid) + "/fd/"
		fds, _ := os.ReadDir(dir)
		for _, fd := range fds {
			link, err := os.Readlink(dir + fd.Name())
			if err != nil {
				continue
			}
			if s, ok := strings.CutPrefix(link, "socket:["); ok {
				if n, err := strconv.ParseUint(strings.TrimSuffix(s, "]"), 10, 64); err == nil {
					inodes[n] = true
				}
			}
		}
	}
	return inodes
}

// A connTable finds the agent's TCP connections among its sockets. A
// dump of a family's sockets walks the kernel's whole table of them,
// which costs about 1.4 ms of CPU a family on a host with a large one,
// whatever few sockets it holds: too much every 2 s while a model
// thinks. So a dump is taken only for a socket not seen before, and what
// it tells (which sockets are TCP, and their identity) lets every later
// sample ask for each by its identity, a lookup.
type connTable struct {
	ids map[uint64]diagID // the agent's TCP sockets, by inode
	// missed counts the dumps that did not find a socket of the agent's:
	// not TCP (a Unix socket, UDP), or not connected yet. It is looked
	// for again up to missedDumps times.
	missed map[uint64]int
	buf    []byte
}

// missedDumps bounds the dumps a socket that is not TCP costs.
const missedDumps = 3

// conns returns the TCP connections among the sockets in inodes, as
// sock_diag reports them. None if there are no sockets to look for, or
// the kernel refuses (the silence is then judged without them).
func (ct *connTable) conns(inodes map[uint64]bool) []watchdog.Conn {
	if len(inodes) == 0 {
		return nil
	}
	if ct.ids == nil {
		ct.ids, ct.missed, ct.buf = map[uint64]diagID{}, map[uint64]int{}, make([]byte, diagRecvSize)
	}
	maps.DeleteFunc(ct.ids, func(inode uint64, _ diagID) bool { return !inodes[inode] })
	maps.DeleteFunc(ct.missed, func(inode uint64, _ int) bool { return !inodes[inode] })
	s, err := openDiag()
	if err != nil {
		return nil
	}
	defer s.close()
	for inode := range inodes {
		if _, known := ct.ids[inode]; !known && ct.missed[inode] < missedDumps {
			return ct.dump(s, inodes)
		}
	}
	var out []watchdog.Conn
	for inode, id := range ct.ids {
		found := false
		err := s.ask(id.family, &id)
		if err == nil {
			err = s.replies(ct.buf, func(msg []byte) {
				if diagInode(msg) == inode {
					c, _ := parseDiag(msg)
					out, found = append(out, c), true
				}
			})
		}
		if !found {
			delete(ct.ids, inode) // Closed since: gone from the kernel's table.
		}
	}
	return out
}

// dump finds the agent's TCP connections in a dump of each family (IPv6
// only if a socket is still not found), and learns which of its sockets
// are TCP and their identities.
func (ct *connTable) dump(s diagSocket, inodes map[uint64]bool) []watchdog.Conn {
	var out []watchdog.Conn
	for _, family := range []uint8{unix.AF_INET, unix.AF_INET6} {
		if len(ct.ids) == len(inodes) || s.ask(family, nil) != nil {
			break
		}
		s.replies(ct.buf, func(msg []byte) {
			if inode := diagInode(msg); inodes[inode] {
				c, id := parseDiag(msg)
				out, ct.ids[inode] = append(out, c), id
			}
		})
	}
	for inode := range inodes {
		if _, ok := ct.ids[inode]; !ok {
			ct.missed[inode]++
		}
	}
	return out
}

// sockDiag says why sock_diag cannot tell connections here, nil if it can:
// asked once, with a dump.
var sockDiag = sync.OnceValue(func() error {
	s, err := openDiag()
	if err != nil {
		return err
	}
	defer s.close()
	if err := s.ask(unix.AF_INET, nil); err != nil {
		return err
	}
	return s.replies(make([]byte, diagRecvSize), func([]byte) {})
})

// connsVisible reports whether the kernel tells the connections of the
// agent pid, and why not: sock_diag must answer, and the agent must be in
// the wrapper's network namespace (a dump shows only its own).
func connsVisible(pid int) (ok bool, why string) {
	if err := sockDiag(); err != nil {
		return false, "sock_diag does not answer (" + err.Error() + ")"
	}
	self, err := os.Readlink("/proc/self/ns/net")
	if err != nil {
		return true, ""
	}
	if agent, err := os.Readlink("/proc/" + strconv.Itoa(pid) + "/ns/net"); err == nil && agent != self {
		return false, "the agent runs in another network namespace"
	}
	return true, ""
}

// ConnCheck reports whether the kernel tells the agent's TCP connections
// here (sock_diag), what that check is, and what it costs when it does
// not, for doctor.
func ConnCheck() (ok bool, what, fix string) {
	what = "sock_diag tells the agent's TCP connections (a thinking model's keep-alives, a response streaming in)"
	if err := sockDiag(); err != nil {
		return false, what + ": " + err.Error(),
			"load the inet_diag and tcp_diag modules (modprobe tcp_diag); without them a model that thinks in silence is stopped at idle_timeout"
	}
	return true, what, ""
}
