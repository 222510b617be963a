// Package testenv decides what a test does when the machine lacks
// something it needs (a program, a device, the npm registry): on a
// developer's machine it skips, saying why; in CI on Linux, where
// everything the suite needs is installed, it fails, saying why, so that a
// green CI run means every check ran.
package testenv

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// InCI reports whether the tests run in CI on Linux: CI is set (GitHub
// Actions and .ci/run set it) and not "0" or "false". GitHub sets CI on
// macOS too, where the Linux-only checks skip by design.
func InCI() bool {
	ci := os.Getenv("CI")
	return runtime.GOOS == "linux" && ci != "" && ci != "0" && ci != "false"
}

// SkipOutsideCI skips t with the message, or fails it with the message in
// CI on Linux (see InCI).
func SkipOutsideCI(t testing.TB, format string, args ...any) {
	t.Helper()
	if InCI() {
		t.Fatalf("in CI on Linux this check must run: "+format, args...)
	} else {
		t.Skipf(format, args...)
	}
}

// IsolateHome gives the test process, and every program it starts, a HOME
// of its own, so that a test run never writes to the user's: fish keeps
// its history and universal variables under HOME, npm and npx their cache.
// Go's caches are pinned where they are first, so builds stay warm; npm's
// goes to a directory of the suite's own outside any HOME, kept between
// runs so that npx does not fetch again each time. Call it from TestMain
// before anything runs; remove the returned HOME when the tests are done.
func IsolateHome() (home string, err error) {
	out, err := exec.Command("go", "env", "GOCACHE", "GOMODCACHE", "GOPATH").Output()
	if err != nil {
		return "", fmt.Errorf("go env: %w", err)
	}
	vals := strings.Split(strings.TrimSpace(string(out)), "\n")
	for i, name := range []string{"GOCACHE", "GOMODCACHE", "GOPATH"} {
		if i < len(vals) && vals[i] != "" {
			os.Setenv(name, vals[i])
		}
	}
	// The user's npm and git settings (a registry, safe.directory) still
	// apply; they are read, never written.
	if real := os.Getenv("HOME"); real != "" {
		for name, file := range map[string]string{"npm_config_userconfig": ".npmrc", "GIT_CONFIG_GLOBAL": ".gitconfig"} {
			if _, err := os.Stat(filepath.Join(real, file)); err == nil && os.Getenv(name) == "" {
				os.Setenv(name, filepath.Join(real, file))
			}
		}
	}
	if os.Getenv("npm_config_cache") == "" {
		os.Setenv("npm_config_cache", filepath.Join(os.TempDir(), "cursor-wrap-test-npm-cache"))
	}
	if home, err = os.MkdirTemp("", "cursor-wrap-test-home-"); err != nil {
		return "", err
	}
	os.Setenv("HOME", home)
	for _, name := range []string{"XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME", "ZDOTDIR"} {
		os.Unsetenv(name)
	}
	return home, nil
}

// IsolateConfig keeps a developer's settings out of commands run in the
// test process: it unsets every CURSOR_WRAP_ variable and points the
// config file at one that does not exist, so that each command reads the
// defaults and what the test gives it. Call it from TestMain, after
// IsolateHome.
func IsolateConfig() {
	for _, kv := range os.Environ() {
		if name, _, _ := strings.Cut(kv, "="); strings.HasPrefix(name, "CURSOR_WRAP_") {
			os.Unsetenv(name)
		}
	}
	os.Setenv("CURSOR_WRAP_CONFIG", "/nonexistent/config.toml")
}
