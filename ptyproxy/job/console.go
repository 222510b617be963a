package job

import (
	"io"
	"log/slog"
	"os"

	"cursor-wrap/ptyproxy/console"
	"cursor-wrap/ptyproxy/redact"
)

// Diagnostics returns a handler that writes the wrapper's messages to w
// (not a terminal: no status line) as "cursor-wrap: …" lines, at level and
// above, with the environment's secrets masked. Each job masks its own
// command's secrets on top.
func Diagnostics(w io.Writer, level slog.Leveler) slog.Handler {
	out := console.New(w, false, nil)
	return redact.New(nil, os.Environ()).Handler(out.Handler(level))
}
