package cli

import (
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
)

func TestVersionLine(t *testing.T) {
	t.Parallel()
	platform := ", go1.26.0 " + runtime.GOOS + "/" + runtime.GOARCH
	vcs := []debug.BuildSetting{{Key: "vcs.revision", Value: "fc58e00c1234abcdef"}, {Key: "vcs.time", Value: "2026-11-26T06:31:00Z"}}
	for _, c := range []struct {
		version  string
		settings []debug.BuildSetting
		want     string
	}{
		{"v1.2.3", nil, "cursor-wrap-mcp v1.2.3" + platform},
		{"(devel)", nil, "cursor-wrap-mcp devel" + platform},
		{"v0.0.0-20261126063100-fc58e00c1234+dirty", append(vcs, debug.BuildSetting{Key: "vcs.modified", Value: "true"}),
			"cursor-wrap-mcp devel, commit fc58e00c1234 with uncommitted changes (2026-11-26T06:31:00Z)" + platform},
		{"v0.0.0-20261126063100-fc58e00c1234", vcs, "cursor-wrap-mcp devel, commit fc58e00c1234 (2026-11-26T06:31:00Z)" + platform},
	} {
		bi := &debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Version: c.version}, Settings: c.settings}
		if got := versionLine("cursor-wrap-mcp", bi); got != c.want {
			t.Errorf("%s: %q, want %q", c.version, got, c.want)
		}
	}
	if got := versionLine("cursor-wrap", nil); !strings.HasPrefix(got, "cursor-wrap (no build information), go") {
		t.Errorf("no build info: %q", got)
	}
}

func TestList(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	Table{
		{Name: "demo", Summary: "watch a normal run and a hang"},
		{Name: "shell-init", Args: "bash|zsh|fish [--agents cursor,…]", Summary: "print shell functions"},
	}.List(&b)
	want := "  cursor-wrap demo                            watch a normal run and a hang\n" +
		"  cursor-wrap shell-init bash|zsh|fish [--agents cursor,…]\n" +
		"                                              print shell functions\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}
