package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// noShebang is a cursor-agent that is a shell script without "#!", as
// shells run it (with /bin/sh): it says its version, or gives a stream.
const noShebang = `case "$1" in
--version) echo "2026.08.01-noshebang"; exit 0;;
esac
echo '{"type":"system","subtype":"init","session_id":"s-1"}'
echo '{"type":"result","subtype":"success","session_id":"s-1","result":"done"}'
`

// foreignBinary is the start of an ELF executable for a VAX: no kernel
// here runs it, and no binfmt_misc emulator claims it.
const foreignBinary = "\x7fELF\x02\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x02\x00\x4b\x00\x01\x00\x00\x00" +
	"\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00"

// TestAgentAsTheShellRunsIt (33.5): the wrapper starts the agent as the
// shell would without it. A cursor-agent script without "#!" runs under
// /bin/sh through the shell function, watched (-p) or not (--version),
// given by --agent-bin, and in doctor's --version probe; it exited 126,
// "exec format error". A binary for another machine still fails, as it
// does in the shell: 126, with the kernel's words.
func TestAgentAsTheShellRunsIt(t *testing.T) {
	t.Parallel()
	write := func(content string) string {
		path := filepath.Join(t.TempDir(), "cursor-agent")
		if err := os.WriteFile(path, []byte(content), 0o755); err != nil {
			t.Fatal(err)
		}
		return path
	}
	script, foreign := write(noShebang), write(foreignBinary)
	calls := "cursor-agent --version; echo rc=$?; cursor-agent -p --output-format stream-json hi; echo rc=$?\n"
	bare := strings.ReplaceAll(calls, "cursor-agent ", "command cursor-agent ") // the shell's own way

	out, stderr, logDir := inShell(t, "bash", script, nil, calls+bare)
	want := "2026.08.01-noshebang\nrc=0\n" + `{"type":"system","subtype":"init","session_id":"s-1"}` + "\n" +
		`{"type":"result","subtype":"success","session_id":"s-1","result":"done"}` + "\nrc=0\n"
	if string(out) != want+want {
		t.Errorf("a script without #!, through the function then without it:\n%s\nwant each\n%s\nstderr %s", out, want, stderr)
	}
	if logs, _ := filepath.Glob(filepath.Join(logDir, "cursor-wrap-*-s-1.jsonl")); len(logs) != 1 {
		t.Errorf("%d session logs, want 1: the -p run watched", len(logs))
	}
	if r := runWrapper(t, nil, nil, "--agent-bin", script, "--", "hi"); r.code != 0 || !strings.Contains(string(r.stdout), `"result":"done"`) {
		t.Errorf("--agent-bin: exit %d, stdout %s, stderr %s", r.code, r.stdout, r.stderr)
	}
	if out, _ := runDoctor(t, t.TempDir(), shellFor(t, "bash"), filepath.Dir(script)); !strings.Contains(out, "✓ agent: "+script+" (2026.08.01-noshebang)") {
		t.Errorf("doctor:\n%s", out)
	}

	out, stderr, _ = inShell(t, "bash", foreign, nil, calls+bare)
	if string(out) != "rc=126\nrc=126\nrc=126\nrc=126\n" || strings.Count(string(stderr), "exec format error") < 2 {
		t.Errorf("a binary for another machine: %s; stderr %s", out, stderr)
	}
}
