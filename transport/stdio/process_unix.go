//go:build unix

package stdio

import (
	"os"
	"os/exec"
	"syscall"

	"golang.org/x/sys/unix"
)

// ownGroup makes the child lead a process group of its own, so that Close
// reaches whatever it started too (a shell wrapper, npx, a uv launcher).
func ownGroup(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
}

// killGroup kills the child's process group. It also works after the
// leader was reaped, as long as one member lives: a live group's id is
// never handed out as a new pid.
func killGroup(cmd *exec.Cmd) error {
	err := unix.Kill(-cmd.Process.Pid, unix.SIGKILL)
	if err == unix.ESRCH {
		return nil
	}
	return err
}

// growPipes widens the child's pipes from our side, as ServeFD does from a
// server's (a server in another language may not).
func growPipes(files ...*os.File) {
	for _, f := range files {
		if rc, err := f.SyscallConn(); err == nil { // not Fd(): that would make f blocking
			_ = rc.Control(func(fd uintptr) { growPipe(int(fd)) })
		}
	}
}
