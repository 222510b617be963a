package shellhook

import (
	"cursor-wrap/scripts/testenv"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// The shell tests put symlinks to this test binary on PATH, named cursor-wrap
// and like the real agents. Run through one of them with recordEnv set, it
// records how it was called in that directory and exits with exitEnv.
const (
	recordEnv = "SHELLHOOK_TEST_RECORD"
	exitEnv   = "SHELLHOOK_TEST_EXIT"
)

func TestMain(m *testing.M) {
	if dir := os.Getenv(recordEnv); dir != "" {
		os.Exit(record(dir))
	}
	home, err := testenv.IsolateHome()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	if buildDir != "" {
		os.RemoveAll(buildDir)
	}
	os.RemoveAll(home)
	os.Exit(code)
}

// record writes NAME.argv (each argument NUL-terminated), NAME.stdin and,
// when FuncEnv or DepthEnv is set, NAME.func or NAME.depth, where NAME is the
// command the shell ran. A depth means a real cursor-wrap ran it.
func record(dir string) int {
	name := filepath.Join(dir, filepath.Base(os.Args[0]))
	var argv []byte
	for _, a := range os.Args[1:] {
		argv = append(append(argv, a...), 0)
	}
	stdin, err := io.ReadAll(os.Stdin)
	if err == nil {
		err = os.WriteFile(name+".argv", argv, 0o600)
	}
	if err == nil {
		err = os.WriteFile(name+".stdin", stdin, 0o600)
	}
	if fn, ok := os.LookupEnv(FuncEnv); ok && err == nil {
		err = os.WriteFile(name+".func", []byte(fn), 0o600)
	}
	if depth, ok := os.LookupEnv(DepthEnv); ok && err == nil {
		err = os.WriteFile(name+".depth", []byte(depth), 0o600)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "record:", err)
		return 99
	}
	code, _ := strconv.Atoi(os.Getenv(exitEnv)) // Unset means 0.
	return code
}
