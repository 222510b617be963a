//go:build linux

package e2e

import (
	"bufio"
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"cursor-wrap/scripts/testenv"
)

// frozenDisk mounts a small ext4 image in a temporary directory and returns
// its mount point and functions that freeze and thaw it (fsfreeze: every
// write, create, rename and fsync on it blocks until it thaws, as on a hung
// NFS mount). It is thawed and unmounted in cleanup, even on failure. It
// needs root, mkfs.ext4 and fsfreeze: outside CI it skips without them.
func frozenDisk(t *testing.T) (mount string, freeze, thaw func()) {
	t.Helper()
	if os.Geteuid() != 0 {
		testenv.SkipOutsideCI(t, "freezing a filesystem needs root")
	}
	for _, tool := range []string{"mkfs.ext4", "fsfreeze", "mount", "umount"} {
		if _, err := exec.LookPath(tool); err != nil {
			testenv.SkipOutsideCI(t, "%s: %v", tool, err)
		}
	}
	dir := t.TempDir()
	image, mount := filepath.Join(dir, "disk.img"), filepath.Join(dir, "mnt")
	run := func(name string, args ...string) error {
		out, err := exec.Command(name, args...).CombinedOutput()
		if err != nil {
			t.Logf("%s %s: %v: %s", name, strings.Join(args, " "), err, out)
		}
		return err
	}
	if err := os.Mkdir(mount, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(image, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(image, 16<<20); err != nil {
		t.Fatal(err)
	}
	if run("mkfs.ext4", "-q", "-F", image) != nil || run("mount", "-o", "loop", image, mount) != nil {
		testenv.SkipOutsideCI(t, "cannot mount a loop filesystem (see the log above)")
	}
	frozen := false
	thaw = func() {
		if frozen && run("fsfreeze", "-u", mount) == nil {
			frozen = false
		}
	}
	t.Cleanup(func() {
		thaw()
		if run("umount", mount) != nil {
			_ = run("umount", "-l", mount) // A writer still on its way out.
		}
	})
	return mount, func() {
		if run("fsfreeze", "-f", mount) != nil {
			t.Fatal("cannot freeze the filesystem")
		}
		frozen = true
	}, thaw
}

// TestFaultStuckDisk: a log dir on a disk that stops answering stands
// between no deadline and its kill (25.8): at the hard timeout the agent's
// group is stopped and the verdict is on stderr while the disk is still
// frozen; the wrapper exits once it thaws. Before, the first event's
// rename ran on the session loop and waited for the disk: the agent lived
// on, and so did the wrapper, through SIGTERM.
func TestFaultStuckDisk(t *testing.T) {
	t.Parallel()
	for _, when := range []string{"before the start", "after the log is created"} {
		t.Run("frozen "+when, func(t *testing.T) {
			t.Parallel()
			mount, freeze, thaw := frozenDisk(t)
			logDir := filepath.Join(mount, "logs")
			if when == "before the start" {
				freeze()
			}
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, wrapperBin, "--agent-bin", agentBin, "--log-dir", logDir,
				"--hard-timeout", "3s", "--idle-timeout", "1m", "--",
				"group-child", "sleep", "1s", "line", initLine, "hang")
			cmd.Env = testEnv()
			stdout, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			stderr, err := cmd.StderrPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			exited := make(chan error, 1)
			verdict := make(chan string, 2)
			children := make(chan int, 1)
			go func() {
				sc := bufio.NewScanner(stdout)
				for sc.Scan() {
					if bytes.Contains(sc.Bytes(), []byte(`"child"`)) {
						children <- childOf(t, sc.Bytes())
					}
				}
			}()
			go func() {
				var all strings.Builder
				seen := false
				sc := bufio.NewScanner(stderr)
				for sc.Scan() {
					all.WriteString(sc.Text() + "\n")
					if !seen && strings.Contains(sc.Text(), "timed out at its hard timeout") {
						seen = true
						verdict <- sc.Text()
					}
				}
				verdict <- "stderr closed: " + all.String()
				exited <- cmd.Wait()
			}()
			defer func() { // On failure too: thawed, the wrapper ends its run.
				thaw()
				select {
				case <-exited:
				case <-time.After(30 * time.Second):
				}
			}()
			if when != "before the start" {
				waitForFile(t, logDir)
				freeze()
			}
			start := time.Now()
			select {
			case line := <-verdict:
				if !strings.Contains(line, "timed out at its hard timeout") {
					t.Fatalf("no verdict: %s", line)
				}
			case <-time.After(60 * time.Second):
				t.Fatalf("no verdict on stderr %v after the disk froze", time.Since(start).Round(time.Millisecond))
			}
			// The verdict comes just before the kill: give the agent's
			// group a moment to go (the disk stays frozen meanwhile).
			child := <-children
			for deadline := time.Now().Add(10 * time.Second); alive(child) && time.Now().Before(deadline); {
				time.Sleep(50 * time.Millisecond)
			}
			if alive(child) {
				t.Errorf("the agent's group is alive %v after the verdict, the disk frozen", time.Since(start).Round(time.Millisecond))
			}
			thaw()
			select {
			case err = <-exited:
				if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 124 {
					t.Errorf("the wrapper ended with %v, want exit 124", err)
				}
				exited <- err // for the deferred wait
			case <-ctx.Done():
				t.Fatal("the wrapper did not exit after the disk thawed")
			}
			if hang := firstRecord(t, logDir, "hang_detected"); hang == nil {
				t.Errorf("no hang record once the disk thawed: %s", logText(t, logDir))
			}
		})
	}
}
