package ptyproxy

import (
	"encoding/binary"
	"net/netip"
	"os"
	"strconv"
	"strings"
	"time"
	"unsafe"

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

// tcpConns returns the TCP connections among the sockets in inodes, as
// sock_diag reports them: one dump per address family, what `ss -ti` shows
// to any user. None if there are no sockets to look for, or the kernel
// refuses (the silence is then judged without them).
//
// x/sys/unix rather than a netlink library: one request and a fixed
// reply layout are all it takes, and fewer lines than adapting a
// library's types.
func tcpConns(inodes map[uint64]bool) []watchdog.Conn {
	if len(inodes) == 0 {
		return nil
	}
	var out []watchdog.Conn
	for _, family := range []uint8{unix.AF_INET, unix.AF_INET6} {
		out = diagDump(family, inodes, out)
	}
	return out
}

// The sock_diag layout (linux/inet_diag.h): a request is an nlmsghdr and an
// inet_diag_req_v2; each reply an nlmsghdr, an inet_diag_msg and attributes.
const (
	diagReqLen   = 56 // inet_diag_req_v2
	diagMsgLen   = 72 // inet_diag_msg
	diagInfo     = 2  // INET_DIAG_INFO: the tcp_info attribute
	tcpEstablish = 1  // TCP_ESTABLISHED
	allStates    = 0xffffffff
	diagRecvSize = 64 << 10
)

// diagDump appends the connections of one address family whose socket is
// in inodes.
func diagDump(family uint8, inodes map[uint64]bool, out []watchdog.Conn) []watchdog.Conn {
	fd, err := unix.Socket(unix.AF_NETLINK, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, unix.NETLINK_INET_DIAG)
	if err != nil {
		return out
	}
	defer unix.Close(fd)
	req := make([]byte, unix.NLMSG_HDRLEN+diagReqLen)
	ne := binary.NativeEndian
	ne.PutUint32(req[0:], uint32(len(req)))
	ne.PutUint16(req[4:], unix.SOCK_DIAG_BY_FAMILY)
	ne.PutUint16(req[6:], unix.NLM_F_REQUEST|unix.NLM_F_DUMP)
	body := req[unix.NLMSG_HDRLEN:]
	body[0], body[1], body[2] = family, unix.IPPROTO_TCP, 1<<(diagInfo-1)
	ne.PutUint32(body[4:], allStates)
	if err := unix.Sendto(fd, req, 0, &unix.SockaddrNetlink{Family: unix.AF_NETLINK}); err != nil {
		return out
	}
	buf := make([]byte, diagRecvSize)
	for {
		n, _, err := unix.Recvfrom(fd, buf, 0)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return out
		}
		for msgs := buf[:n]; len(msgs) >= unix.NLMSG_HDRLEN; {
			l, typ := int(ne.Uint32(msgs[0:])), ne.Uint16(msgs[4:])
			if l < unix.NLMSG_HDRLEN || l > len(msgs) || typ == unix.NLMSG_DONE || typ == unix.NLMSG_ERROR {
				return out
			}
			if c, ok := parseDiag(msgs[unix.NLMSG_HDRLEN:l], inodes); ok {
				out = append(out, c)
			}
			msgs = msgs[min(len(msgs), align(l, unix.NLMSG_ALIGNTO)):]
		}
	}
}

// align rounds n up to a multiple of to, a power of two.
func align(n, to int) int { return (n + to - 1) &^ (to - 1) }

// parseDiag reads one inet_diag_msg and its tcp_info, if its socket is
// one of inodes.
func parseDiag(b []byte, inodes map[uint64]bool) (watchdog.Conn, bool) {
	if len(b) < diagMsgLen {
		return watchdog.Conn{}, false
	}
	ne := binary.NativeEndian
	inode := uint64(ne.Uint32(b[68:]))
	if !inodes[inode] {
		return watchdog.Conn{}, false
	}
	// idiag_dport and the addresses are in network order.
	port := binary.BigEndian.Uint16(b[6:])
	var addr netip.Addr
	if b[0] == unix.AF_INET {
		addr = netip.AddrFrom4([4]byte(b[24:28]))
	} else {
		addr = netip.AddrFrom16([16]byte(b[24:40])).Unmap()
	}
	rqueue := int64(ne.Uint32(b[56:]))
	var info unix.TCPInfo
	for attrs := b[diagMsgLen:]; len(attrs) >= unix.SizeofRtAttr; {
		l, typ := int(ne.Uint16(attrs[0:])), ne.Uint16(attrs[2:])
		if l < unix.SizeofRtAttr || l > len(attrs) {
			break
		}
		if typ == diagInfo {
			// An older kernel's tcp_info is shorter: the fields it lacks stay 0.
			copy(unsafe.Slice((*byte)(unsafe.Pointer(&info)), unsafe.Sizeof(info)), attrs[unix.SizeofRtAttr:l])
		}
		attrs = attrs[min(len(attrs), align(l, unix.RTA_ALIGNTO)):]
	}
	sent := int64(info.Bytes_sent)
	if sent == 0 {
		sent = int64(info.Bytes_acked) // kernels before 4.19
	}
	ms := func(v uint32) time.Duration { return time.Duration(v) * time.Millisecond }
	return watchdog.Conn{
		ID:       inode,
		Remote:   netip.AddrPortFrom(addr, port).String(),
		Open:     b[1] == tcpEstablish,
		Received: max(int64(info.Bytes_received)-rqueue, 0),
		Unread:   rqueue,
		Sent:     sent,
		RecvAgo:  ms(info.Last_data_recv),
		SendAgo:  ms(info.Last_data_sent),
	}, true
}
