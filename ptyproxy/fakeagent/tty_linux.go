package fakeagent

import "golang.org/x/sys/unix"

// sttySane turns output processing back on, with "\n" written as "\r\n",
// as `stty sane` does.
func sttySane(fd int) error {
	t, err := unix.IoctlGetTermios(fd, unix.TCGETS)
	if err != nil {
		return err
	}
	t.Oflag |= unix.OPOST | unix.ONLCR
	return unix.IoctlSetTermios(fd, unix.TCSETS, t)
}
