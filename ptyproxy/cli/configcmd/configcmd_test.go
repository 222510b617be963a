package configcmd

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"cursor-wrap/ptyproxy/cli"
	"cursor-wrap/scripts/testenv"
)

func TestMain(m *testing.M) {
	home, err := testenv.IsolateHome()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	testenv.IsolateConfig()
	code := m.Run()
	os.RemoveAll(home)
	os.Exit(code)
}

// run runs the command in process with args, and returns what it wrote
// and its exit status.
func run(args ...string) (stdout, stderr string, code int) {
	var out, errs bytes.Buffer
	code = Run(&cli.Env{Stdin: bytes.NewReader(nil), Stdout: &out, Stderr: &errs, Commands: cli.Table{Command}}, args)
	return out.String(), errs.String(), code
}

// TestConfigCommand writes a file with --init, refuses to write it again,
// and prints each value with its source: a flag, the environment, the
// default. Not parallel: it sets a variable of the process.
func TestConfigCommand(t *testing.T) {
	cfg := filepath.Join(t.TempDir(), "sub", "config.toml")
	if _, stderr, code := run("--config", cfg, "--init"); code != 0 || !strings.Contains(stderr, "wrote "+cfg) {
		t.Fatalf("--init: %d %s", code, stderr)
	}
	if _, stderr, code := run("--config", cfg, "--init"); code != 125 || !strings.Contains(stderr, "exists; not overwriting") {
		t.Errorf("second --init: %d %s", code, stderr)
	}
	t.Setenv("CURSOR_WRAP_TOOL_GRACE", "7s")
	out, _, code := run("--config", cfg, "--idle-timeout", "2m")
	for _, want := range []string{"# config file: " + cfg + " (loaded)", `idle_timeout             = "2m0s"                   # flag`,
		`tool_grace               = "7s"                     # env`, `kill_grace               = "5s"                     # default`,
		`mcp.max_concurrent       = 4                        # default`, `tool_timeouts            = {}                       # default`} {
		if !strings.Contains(out, want) {
			t.Errorf("config output lacks %q:\n%s", want, out)
		}
	}
	if code != 0 {
		t.Errorf("exit %d", code)
	}
}

// TestConfigInit checks the file config --init writes: it sets nothing
// (config reports every key as a default), a key uncommented is set by the
// file, and one added at the end stays a top-level key.
func TestConfigInit(t *testing.T) {
	t.Parallel()
	cfg := filepath.Join(t.TempDir(), "config.toml")
	if _, stderr, code := run("--init", "--config", cfg); code != 0 {
		t.Fatalf("--init: %d %s", code, stderr)
	}
	stdout, stderr, code := run("--config", cfg)
	if code != 0 || !strings.Contains(stdout, "(loaded)") || strings.Contains(stdout, "# file\n") {
		t.Errorf("config after --init: %d\n%s%s", code, stdout, stderr)
	}
	// Again on the file it wrote: refused, with a command the user can
	// type (no cursor-wrap on PATH is this binary: its path).
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	if _, stderr, code := run("--init", "--config", cfg); code != 125 || !strings.Contains(stderr, "exists; not overwriting it (`"+self+" config --defaults` prints") {
		t.Errorf("--init again: %d %s", code, stderr)
	}
	text, _ := os.ReadFile(cfg)
	edited := strings.Replace(string(text), `# kill_grace = "5s"`, `kill_grace = "4s"`, 1) + "restarts = 2\n"
	if err := os.WriteFile(cfg, []byte(edited), 0o600); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, _ = run("--config", cfg)
	for _, want := range []string{`kill_grace               = "4s"                     # file`, "restarts                 = 2                        # file"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("edited: lacks %q:\n%s%s", want, stdout, stderr)
		}
	}
	if stdout, _, code := run("--defaults"); code != 0 || stdout != string(text) {
		t.Errorf("--defaults: exit %d, not the file --init writes:\n%s", code, stdout)
	}
}

// TestConfigUsage: a flag that is not config's names the one meant.
func TestConfigUsage(t *testing.T) {
	t.Parallel()
	stdout, stderr, code := run("--int")
	if code != 2 || stdout != "" || stderr != "cursor-wrap: config: unknown flag --int: did you mean --init?\n" {
		t.Errorf("--int: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}
