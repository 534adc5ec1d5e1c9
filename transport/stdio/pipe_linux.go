package stdio

import "golang.org/x/sys/unix"

// pipeBytes is the kernel buffer asked for on a pipe: Linux's default
// pipe-max-size, so an unprivileged process gets it.
const pipeBytes = 1 << 20

// growPipe raises a pipe's buffer to pipeBytes; the pipe is shared with
// the peer, which only gains from it.
func growPipe(fd int) {
	var st unix.Stat_t
	if unix.Fstat(fd, &st) == nil && st.Mode&unix.S_IFMT == unix.S_IFIFO {
		_, _ = unix.FcntlInt(uintptr(fd), unix.F_SETPIPE_SZ, pipeBytes)
	}
}
