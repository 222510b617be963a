package e2e

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestAgentValueFlags: an agent's own flag that takes a value, followed by
// its value and then the prompt, through the built wrapper. The value is
// not the prompt (sessions shows the prompt alone); with no prompt in the
// args, a prompt that comes on stdin after the stdin wait is waited for
// (it was cut at the wait: the value was read as the prompt); a restart
// keeps the flag with its value before --resume. Claude Code's flags and
// cursor-agent's --name were unknown to their profiles before their flag
// tables.
func TestAgentValueFlags(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ agent, flag, value string }{
		{"claude", "--max-budget-usd", "5"},
		{"claude", "--permission-prompt-tool", "mcp__perm__ask"},
		{"claude", "--json-schema", `{"type":"object"}`},
		{"claude", "--setting-sources", "user,project"},
		{"cursor", "--name", "nightly"},
	} {
		t.Run(tc.agent+tc.flag, func(t *testing.T) {
			t.Parallel()
			t.Run("the value is not the prompt", func(t *testing.T) {
				t.Parallel()
				r := runWrapper(t, []string{steps("line", initLine, "line", resultLine)}, nil,
					"--agent", tc.agent, "--", tc.flag, tc.value, "fix the tests")
				if r.code != 0 {
					t.Fatalf("exit %d; stderr %s", r.code, r.stderr)
				}
				s := runRaw(t, nil, "sessions", "--json", "--log-dir", r.logDir)
				var sessions []struct{ Prompt string }
				if err := json.Unmarshal(s.stdout, &sessions); err != nil || len(sessions) != 1 || sessions[0].Prompt != "fix the tests" {
					t.Errorf("sessions --json: %s (%v); want the prompt %q alone", s.stdout, err, "fix the tests")
				}
			})
			t.Run("a prompt on stdin is waited for", func(t *testing.T) {
				t.Parallel()
				pr, pw := pipe(t)
				go func() {
					defer pw.Close()
					time.Sleep(1500 * time.Millisecond) // longer than the stdin wait
					pw.Write([]byte("fix the tests\n"))
				}()
				r := wrapperRun(t, func(cmd *exec.Cmd) {
					cmd.Stdin = pr
					cmd.Env = append(cmd.Env, steps("stdin", "line", resultLine))
				}, "--agent", tc.agent, "--stdin-wait", "500ms", "--", tc.flag, tc.value)
				sum := sha256.Sum256([]byte("fix the tests\n"))
				if r.code != 0 || !bytes.Contains(r.stdout, []byte(`"sha256":"`+hex.EncodeToString(sum[:])+`"`)) || bytes.Contains(r.stderr, []byte("stdin gave nothing")) {
					t.Errorf("exit %d; stdout %s; stderr %s", r.code, r.stdout, r.stderr)
				}
			})
			t.Run("a restart keeps it", func(t *testing.T) {
				t.Parallel()
				marker := filepath.Join(t.TempDir(), "hung-once")
				r := runWrapper(t, []string{steps("args", "line", initLine, "hang-once", marker, "line", resultLine)}, nil,
					"--agent", tc.agent, "--idle-timeout", "1s", "--restarts", "1", "--restart-prompt", "go on", "--", tc.flag, tc.value, "fix the tests")
				if r.code != 0 {
					t.Fatalf("exit %d; stderr %s", r.code, r.stderr)
				}
				var argvs [][]string
				for line := range strings.Lines(string(r.stdout)) {
					var rec struct {
						Type string
						Argv []string
					}
					if json.Unmarshal([]byte(line), &rec) == nil && rec.Type == "args" {
						argvs = append(argvs, rec.Argv)
					}
				}
				if len(argvs) != 2 {
					t.Fatalf("%d attempts' args in stdout, want 2: %s", len(argvs), r.stdout)
				}
				second := argvs[1]
				i := slices.Index(second, tc.flag)
				if i < 0 || i+1 >= len(second) || second[i+1] != tc.value || !strings.HasSuffix(strings.Join(second, " "), "--resume s-1 -- go on") {
					t.Errorf("second attempt's argv %q: want %s %s kept, then --resume s-1 -- go on", second, tc.flag, tc.value)
				}
			})
		})
	}
}
