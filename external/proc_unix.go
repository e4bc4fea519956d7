//go:build unix

package external

import (
	"os/exec"
	"syscall"
)

// setProcessGroup starts the command in a process group of its own, so
// that a timeout or Close also ends what it started (a shell's children).
func setProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// killGroup kills the command's process group.
func killGroup(cmd *exec.Cmd) {
	if cmd.Process == nil {
		return
	}
	syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	cmd.Process.Kill()
}
