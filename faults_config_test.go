package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestConfigShapeBounded: a 16 KB config of inline tables nested 4,000 deep
// is refused at its line before the TOML parser sees it, in a few MB: the
// parser's cost grows with the square of the nesting (708 MB and 4.3 s for
// this file; 24 GB for 800 KB).
func TestConfigShapeBounded(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "config.toml")
	text := "idle_timeout = \"2m\"\nx = " + strings.Repeat("{a=", 4000) + "1" + strings.Repeat("}", 4000) + "\n"
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	var cmd *exec.Cmd
	r := execWrapper(t, func(c *exec.Cmd) { cmd = c }, "config", "--config", path)
	if r.code != 125 || !strings.Contains(string(r.stderr), path+":2: nested more than 8 deep") {
		t.Errorf("exit %d; stderr %s", r.code, r.stderr)
	}
	if rss := cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss << 10; rss > 100<<20 {
		t.Errorf("peak RSS %d MiB reading the config", rss>>20)
	}
}
