package job

import (
	"fmt"
	"io"
	"log/slog"
	"os"

	"cursor-wrap/ptyproxy"
	"cursor-wrap/ptyproxy/console"
	"cursor-wrap/ptyproxy/redact"
	"cursor-wrap/ptyproxy/sessionlog"
)

// Diagnostics returns a handler that writes the wrapper's messages to w
// (not a terminal: no status line) as "cursor-wrap: …" lines, at level and
// above, with the environment's secrets masked. Each job masks its own
// command's secrets on top.
func Diagnostics(w io.Writer, level slog.Leveler) slog.Handler {
	out := console.New(w, false, nil)
	return out.Handler(level, redact.New(nil, os.Environ()))
}

// StderrUnwritten records, in the log of the run's last attempt, that the
// wrapper's stderr took nothing for ptyproxy.Stall after the run and n
// bytes of what was queued for it (the last of the agent's stderr, the
// wrapper's last lines) were not written: the console gave up on it. The
// exit status stands.
func (j *Job) StderrUnwritten(res Result, n int) {
	if res.LogPath == "" || n == 0 {
		return
	}
	j.init()
	// A log that cannot take it was reported when it failed.
	_ = sessionlog.Append(res.LogPath, j.redact, sessionlog.StderrDropped{Bytes: int64(n),
		Error: fmt.Sprintf("stderr took nothing for %s after the run; %d bytes of the agent's stderr and the wrapper's last lines were not written", ptyproxy.Stall, n)})
}
