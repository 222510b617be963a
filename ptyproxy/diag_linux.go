package ptyproxy

import (
	"encoding/binary"
	"net/netip"
	"time"
	"unsafe"

	"cursor-wrap/watchdog"

	"golang.org/x/sys/unix"
)

// sock_diag, as `ss -ti` uses it, for any user: a dump of every TCP socket
// of one address family, or one socket asked for by its identity.
//
// x/sys/unix rather than a netlink library: one request and a fixed
// reply layout are all it takes, and fewer lines than adapting a
// library's types.

// The sock_diag layout (linux/inet_diag.h): a request is an nlmsghdr and an
// inet_diag_req_v2; each reply an nlmsghdr, an inet_diag_msg and attributes.
const (
	diagReqLen   = 56 // inet_diag_req_v2
	diagMsgLen   = 72 // inet_diag_msg
	diagReqIDAt  = 8  // where the inet_diag_sockid starts in a request
	diagMsgIDAt  = 4  // and in a reply
	diagIDLen    = 48 // the inet_diag_sockid: ports, addresses, interface, cookie
	diagInfo     = 2  // INET_DIAG_INFO: the tcp_info attribute
	tcpEstablish = 1  // TCP_ESTABLISHED
	allStates    = 0xffffffff
	diagRecvSize = 64 << 10
)

// A diagID names one socket to sock_diag: its address family and its
// inet_diag_sockid as a dump gave it (its cookie included, so a socket
// closed and another opened on the same ports is not taken for it).
type diagID struct {
	family uint8
	id     [diagIDLen]byte
}

// A diagSocket is a netlink socket that asks sock_diag.
type diagSocket int

func openDiag() (diagSocket, error) {
	fd, err := unix.Socket(unix.AF_NETLINK, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, unix.NETLINK_INET_DIAG)
	return diagSocket(fd), err
}

func (s diagSocket) close() { _ = unix.Close(int(s)) } // Best effort.

// ask sends a request: a dump of a family's TCP sockets, or with id the
// one socket it names. Every reply asks for its tcp_info.
func (s diagSocket) ask(family uint8, id *diagID) error {
	req := make([]byte, unix.NLMSG_HDRLEN+diagReqLen)
	ne := binary.NativeEndian
	ne.PutUint32(req[0:], uint32(len(req)))
	ne.PutUint16(req[4:], unix.SOCK_DIAG_BY_FAMILY)
	flags := uint16(unix.NLM_F_REQUEST | unix.NLM_F_DUMP)
	body := req[unix.NLMSG_HDRLEN:]
	if id != nil {
		flags = unix.NLM_F_REQUEST
		copy(body[diagReqIDAt:], id.id[:])
	}
	ne.PutUint16(req[6:], flags)
	body[0], body[1], body[2] = family, unix.IPPROTO_TCP, 1<<(diagInfo-1)
	ne.PutUint32(body[4:], allStates) // idiag_states, after family, protocol, ext and a pad byte
	return unix.Sendto(int(s), req, 0, &unix.SockaddrNetlink{Family: unix.AF_NETLINK})
}

// replies reads the replies to the last request, calling f with each
// inet_diag_msg and its attributes, until the last; the error says why
// the kernel did not answer (ENOENT: the socket asked for is gone).
func (s diagSocket) replies(buf []byte, f func(msg []byte)) error {
	ne := binary.NativeEndian
	for {
		n, _, err := unix.Recvfrom(int(s), buf, 0)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return err
		}
		for msgs := buf[:n]; len(msgs) >= unix.NLMSG_HDRLEN; {
			l, typ, flags := int(ne.Uint32(msgs[0:])), ne.Uint16(msgs[4:]), ne.Uint16(msgs[6:])
			switch {
			case typ == unix.NLMSG_ERROR && l >= unix.NLMSG_HDRLEN+4:
				if errno := int32(ne.Uint32(msgs[unix.NLMSG_HDRLEN:])); errno != 0 {
					return unix.Errno(-errno)
				}
				return nil
			case l < unix.NLMSG_HDRLEN || l > len(msgs) || typ == unix.NLMSG_DONE || typ == unix.NLMSG_ERROR:
				return nil
			}
			f(msgs[unix.NLMSG_HDRLEN:l])
			if flags&unix.NLM_F_MULTI == 0 {
				return nil // The one reply to a request for one socket.
			}
			msgs = msgs[min(len(msgs), align(l, unix.NLMSG_ALIGNTO)):]
		}
	}
}

// align rounds n up to a multiple of to, a power of two.
func align(n, to int) int { return (n + to - 1) &^ (to - 1) }

// diagInode is the inode of the socket an inet_diag_msg is about, 0 if
// the message is too short to say.
func diagInode(b []byte) uint64 {
	if len(b) < diagMsgLen {
		return 0
	}
	return uint64(binary.NativeEndian.Uint32(b[68:]))
}

// parseDiag reads one inet_diag_msg and its tcp_info.
func parseDiag(b []byte) (watchdog.Conn, diagID) {
	var id diagID
	id.family = b[0]
	copy(id.id[:], b[diagMsgIDAt:])
	ne := binary.NativeEndian
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
		ID:          diagInode(b),
		Remote:      netip.AddrPortFrom(addr, port).String(),
		Open:        b[1] == tcpEstablish,
		Received:    max(int64(info.Bytes_received)-rqueue, 0),
		Unread:      rqueue,
		Sent:        sent,
		SegsIn:      int64(info.Data_segs_in),
		SegsOut:     int64(info.Data_segs_out),
		RecvAgo:     ms(info.Last_data_recv),
		SendAgo:     ms(info.Last_data_sent),
		Unacked:     int(info.Unacked),
		Retransmits: int(info.Retransmits),
	}, id
}
