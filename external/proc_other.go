//go:build !unix

package external

import "os/exec"

func setProcessGroup(cmd *exec.Cmd) {}

// killGroup kills the command's process (its children are left: there is
// no process group to kill outside unix).
func killGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		cmd.Process.Kill()
	}
}
