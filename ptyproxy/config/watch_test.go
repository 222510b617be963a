package config

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// watched starts Watch on a config file in a fresh directory and returns
// a channel that receives the file's content at each reload.
func watched(t *testing.T, initial string) (path string, reloads <-chan string) {
	t.Helper()
	dir := t.TempDir()
	path = filepath.Join(dir, "config.toml")
	if initial != "" {
		os.WriteFile(path, []byte(initial), 0o600)
	}
	ch := make(chan string, 16)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	w, err := NewWatcher(path, func(string) {})
	if err != nil {
		t.Fatal(err)
	}
	go w.Run(ctx, func() {
		b, _ := os.ReadFile(path)
		ch <- string(b)
	})
	return path, ch
}

// expectReload waits for the next reload, which must read want. A burst
// that gave two reloads shows at the next one, which then reads the
// previous save; expectQuiet checks the last.
func expectReload(t *testing.T, reloads <-chan string, want string) {
	t.Helper()
	expectReloadOf(t, reloads, want, false)
}

// expectReloadOf is expectReload where, if split, a reload of the file cut
// short (a beginning of want) may come first.
func expectReloadOf(t *testing.T, reloads <-chan string, want string, split bool) {
	t.Helper()
	for {
		select {
		case got := <-reloads:
			if split && got != want && strings.HasPrefix(want, got) {
				split = false
				continue
			}
			if got != want {
				t.Errorf("reloaded %q, want %q", got, want)
			}
		case <-time.After(2 * time.Second):
			t.Fatalf("no reload (want %q)", want)
		}
		return
	}
}

// expectQuiet checks that no reload follows the last one: a burst must
// give one reload.
func expectQuiet(t *testing.T, reloads <-chan string) {
	t.Helper()
	select {
	case extra := <-reloads:
		t.Errorf("reloaded again: %q (a burst must give one reload)", extra)
	case <-time.After(3 * Debounce):
	}
}

func TestWatchSaves(t *testing.T) {
	t.Parallel()
	// Each save says whether it paused a whole Debounce mid-way: 20 ms
	// asked for, a loaded machine can make it more, and then the file is
	// rightly read at the pause, and again once whole.
	paused := func(d time.Duration) bool {
		start := time.Now()
		time.Sleep(d)
		return time.Since(start) >= Debounce
	}
	for _, tc := range []struct {
		name string
		save func(path, text string) (split bool)
	}{
		{"atomic rename", func(path, text string) bool {
			tmp := path + ".tmp"
			os.WriteFile(tmp, []byte(text), 0o600)
			os.Rename(tmp, path)
			return false
		}},
		{"truncate and write in place", func(path, text string) bool {
			f, _ := os.OpenFile(path, os.O_WRONLY|os.O_TRUNC, 0)
			f.WriteString(text[:3])
			split := paused(20 * time.Millisecond) // a writer pausing mid-file
			f.WriteString(text[3:])
			f.Close()
			return split
		}},
		{"vim backup and rename", func(path, text string) bool {
			os.Rename(path, path+"~")
			os.WriteFile(path, []byte(text), 0o600)
			os.Chmod(path, 0o600)
			os.Remove(path + "~")
			return false
		}},
		{"delete and re-create", func(path, text string) bool {
			os.Remove(path)
			split := paused(20 * time.Millisecond)
			os.WriteFile(path, []byte(text), 0o600)
			return split
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			path, reloads := watched(t, `idle_timeout = "30s"`)
			for _, text := range []string{`idle_timeout = "1s"`, `idle_timeout = "2s"`} {
				// A second save by the same method is still seen.
				if tc.save(path, text) {
					t.Logf("the save paused past %v: the file may be read at the pause", Debounce)
					expectReloadOf(t, reloads, text, true)
				} else {
					expectReload(t, reloads, text)
				}
			}
			expectQuiet(t, reloads)
		})
	}
}

func TestWatchIgnoresChmodAndOthers(t *testing.T) {
	t.Parallel()
	path, reloads := watched(t, `idle_timeout = "30s"`)
	os.Chmod(path, 0o644)
	os.WriteFile(filepath.Join(filepath.Dir(path), "other.toml"), []byte("x"), 0o600)
	select {
	case got := <-reloads:
		t.Errorf("reloaded on chmod or another file: %q", got)
	case <-time.After(4 * Debounce):
	}
}

// watchAt is watched for a config file at path, which need not exist.
func watchAt(t *testing.T, path string) <-chan string {
	t.Helper()
	ch := make(chan string, 16)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	w, err := NewWatcher(path, func(string) {})
	if err != nil {
		t.Fatal(err)
	}
	go w.Run(ctx, func() {
		b, _ := os.ReadFile(path)
		ch <- string(b)
	})
	return ch
}

// TestWatchMissingDir: a config directory made after the start, two
// levels of it, is watched once it exists.
func TestWatchMissingDir(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "a", "b", "config.toml")
	reloads := watchAt(t, path)
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(path, []byte(`idle_timeout = "1s"`), 0o600)
	expectReload(t, reloads, `idle_timeout = "1s"`)
	os.WriteFile(path, []byte(`idle_timeout = "2s"`), 0o600)
	expectReload(t, reloads, `idle_timeout = "2s"`)
	expectQuiet(t, reloads)
}

// TestWatchDirMadeAgain: the config directory removed (or moved away) and
// made again is watched again, for every later change too.
func TestWatchDirMadeAgain(t *testing.T) {
	t.Parallel()
	for name, remove := range map[string]func(dir string) error{
		"removed":    os.RemoveAll,
		"moved away": func(dir string) error { return os.Rename(dir, dir+".old") },
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			path, reloads := watched(t, `idle_timeout = "30s"`)
			dir := filepath.Dir(path)
			if err := remove(dir); err != nil {
				t.Fatal(err)
			}
			expectReload(t, reloads, "") // The file went with its directory.
			os.Mkdir(dir, 0o700)
			os.WriteFile(path, []byte(`idle_timeout = "1s"`), 0o600)
			expectReload(t, reloads, `idle_timeout = "1s"`)
			os.WriteFile(path, []byte(`idle_timeout = "2s"`), 0o600)
			expectReload(t, reloads, `idle_timeout = "2s"`)
			expectQuiet(t, reloads)
		})
	}
}

// TestWatchSymlinkedConfig: a config file that is a symlink (a dotfile
// manager's) is reloaded when its target, in another directory, is saved.
func TestWatchSymlinkedConfig(t *testing.T) {
	t.Parallel()
	target := filepath.Join(t.TempDir(), "dotfiles.toml")
	if err := os.WriteFile(target, []byte(`idle_timeout = "30s"`), 0o600); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "config.toml")
	if err := os.Symlink(target, path); err != nil {
		t.Fatal(err)
	}
	reloads := watchAt(t, path)
	tmp := target + ".tmp"
	os.WriteFile(tmp, []byte(`idle_timeout = "1s"`), 0o600)
	os.Rename(tmp, target)
	expectReload(t, reloads, `idle_timeout = "1s"`)
	expectQuiet(t, reloads)
}

// TestWatchDirMadeDuringTheLook: a directory made between the watcher's
// look for the nearest one that exists and its watch on the parent (mkdir
// -p making a/b a moment after a) sends that watch no event; saves in it
// are still seen. The watch on a's parent saw a made; a/b is made, and the
// file written, once the watcher has looked and found only a.
func TestWatchDirMadeDuringTheLook(t *testing.T) {
	t.Parallel()
	top := t.TempDir()
	path := filepath.Join(top, "a", "b", "config.toml")
	w, err := NewWatcher(path, func(string) {})
	if err != nil {
		t.Fatal(err)
	}
	made := false
	w.nearest = func(dir string) string {
		found := nearestDir(dir)
		if !made && found == filepath.Join(top, "a") {
			made = true
			os.Mkdir(filepath.Dir(path), 0o700)
			os.WriteFile(path, []byte(`idle_timeout = "1s"`), 0o600)
		}
		return found
	}
	reloads := make(chan string, 16)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	if err := os.Mkdir(filepath.Join(top, "a"), 0o700); err != nil {
		t.Fatal(err)
	}
	go w.Run(ctx, func() {
		b, _ := os.ReadFile(path)
		reloads <- string(b)
	})
	expectReload(t, reloads, `idle_timeout = "1s"`)
	os.WriteFile(path, []byte(`idle_timeout = "2s"`), 0o600)
	expectReload(t, reloads, `idle_timeout = "2s"`)
	expectQuiet(t, reloads)
}
