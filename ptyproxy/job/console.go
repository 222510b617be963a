package job

import (
	"io"
	"log/slog"
	"os"

	"cursor-wrap/ptyproxy/sessionlog"
)

// Diagnostics returns a handler that writes the wrapper's messages to w
// (not a terminal: no status line) as "cursor-wrap: …" lines, at level and
// above, with the environment's secrets masked. Each job masks its own
// command's secrets on top.
func Diagnostics(w io.Writer, level slog.Leveler) slog.Handler {
	console := sessionlog.NewConsole(w, false, nil)
	return sessionlog.NewRedactor(nil, os.Environ()).Handler(console.Handler(level))
}
