package sessionlog

import (
	"bytes"
	"log/slog"
	"testing"
)

func TestConsoleStatusLine(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	c := NewConsole(&b, true, func() int { return 20 })
	c.Status("cursor-wrap 1s | thinking | silent 0s")
	c.Write([]byte("agent stderr\n"))
	c.Status("cursor-wrap 2s")
	c.Write([]byte("partial"))
	c.Status("not drawn mid-line")
	log := slog.New(c.Handler(slog.LevelInfo))
	log.Info("hello", "k", "v w")
	log.Debug("hidden")
	c.Status("")
	want := "\rcursor-wrap 1s | t…\x1b[K" + "\r\x1b[K" + "agent stderr\n" +
		"\rcursor-wrap 2s\x1b[K" + "\r\x1b[K" + "partial" +
		"\ncursor-wrap: hello k=\"v w\"\n"
	if b.String() != want {
		t.Errorf("console wrote\n%q\nwant\n%q", b.String(), want)
	}
}

func TestConsoleNoTTY(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	c := NewConsole(&b, false, nil)
	c.Status("never drawn")
	slog.New(NewRedactor([]string{"--api-key", "abcdef123456"}, nil).Handler(c.Handler(slog.LevelWarn))).Warn("bad key abcdef123456")
	if b.String() != "cursor-wrap: warning: bad key [REDACTED]\n" {
		t.Errorf("wrote %q", b.String())
	}
}
