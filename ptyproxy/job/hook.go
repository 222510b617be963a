package job

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"time"

	"cursor-wrap/ptyproxy/reaper"
	"cursor-wrap/ptyproxy/sessionlog"
)

// OnHangTimeout bounds an on_hang command, and onHangKeep what its record
// keeps of its output.
const (
	OnHangTimeout = 10 * time.Second
	onHangKeep    = 64 << 10
)

// onHang runs the on_hang command, if one is set, for an attempt that
// hung: the hang record on its stdin, redacted, and CURSOR_WRAP_LOG,
// CURSOR_WRAP_SESSION_ID and CURSOR_WRAP_EXIT in its environment, for at
// most OnHangTimeout. Its whole tree ends with it: what it leaves running
// when it exits is stopped (reaper.Cmd.KillGroup) and counted in its
// record. Its failure is logged; it never changes the exit status.
func (j *Job) onHang(command string, res Result, rec *sessionlog.Recorder) {
	if command == "" {
		return
	}
	record, _ := json.Marshal(map[string]any{
		"time": res.Ended, "msg": sessionlog.MsgHangDetected, "session_id": res.SessionID,
		"attempt": res.Attempts, "log": res.LogPath, "reason": res.Reason,
	})
	env := os.Environ()
	for _, v := range []struct{ name, value string }{
		{"CURSOR_WRAP_LOG", res.LogPath}, {"CURSOR_WRAP_SESSION_ID", res.SessionID}, {"CURSOR_WRAP_EXIT", strconv.Itoa(res.End.Status)},
	} {
		env = append(env, v.name+"="+j.redact.MaskString(v.value).String())
	}
	ctx, cancel := context.WithTimeout(context.Background(), OnHangTimeout)
	defer cancel()
	cmd := reaper.CommandContext(ctx, "/bin/sh", "-c", command)
	cmd.KillGroup() // The shell and what it started, in its group or not.
	cmd.Keep = onHangKeep
	cmd.Env, cmd.Stdin = env, bytes.NewReader(j.redact.Mask(append(record, '\n')).Bytes())
	output, err := cmd.CombinedOutput()
	if err != nil && cmd.Process == nil {
		err = fmt.Errorf("cannot start it: %w", err)
	}
	if err != nil {
		rec.Write(sessionlog.OnHangFailed{Command: command, Error: err.Error(), Output: string(output), Leftovers: cmd.Leftovers})
		j.console.Warn("on_hang command failed: " + err.Error())
		return
	}
	rec.Write(sessionlog.OnHang{Command: command, Output: string(output), Leftovers: cmd.Leftovers})
}
