//go:build !unix

package stdio

import (
	"os"
	"os/exec"
)

func ownGroup(*exec.Cmd) {}

// killGroup kills only the child: there are no process groups here.
func killGroup(cmd *exec.Cmd) error { return cmd.Process.Kill() }

func growPipes(...*os.File) {}
