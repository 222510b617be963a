package cli

import (
	"regexp"
	"runtime"
	"runtime/debug"
)

// Version is the version line of program (cursor-wrap, cursor-wrap-mcp):
// its release, or "devel" for a build from a checkout that is not at a
// tag, with the commit and whether the tree had changes in it, and the Go
// that built it.
func Version(program string) string {
	bi, _ := debug.ReadBuildInfo()
	return versionLine(program, bi)
}

// Release is the version alone: a release's, or "devel".
func Release() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "devel"
	}
	return release(bi)
}

// pseudoVersion matches the version Go makes up for a build that is not
// at a tag: v0.0.0-20251126063100-fc58e00c1234.
var pseudoVersion = regexp.MustCompile(`-\d{14}-[0-9a-f]{12}`)

func release(bi *debug.BuildInfo) string {
	v := bi.Main.Version
	if v == "" || v == "(devel)" || pseudoVersion.MatchString(v) {
		return "devel"
	}
	return v
}

func versionLine(program string, bi *debug.BuildInfo) string {
	if bi == nil {
		return program + " (no build information), " + runtime.Version()
	}
	settings := map[string]string{}
	for _, s := range bi.Settings {
		settings[s.Key] = s.Value
	}
	s := program + " " + release(bi)
	if rev := settings["vcs.revision"]; rev != "" {
		s += ", commit " + rev[:min(12, len(rev))]
		if settings["vcs.modified"] == "true" {
			s += " with uncommitted changes"
		}
		if t := settings["vcs.time"]; t != "" {
			s += " (" + t + ")"
		}
	}
	return s + ", " + bi.GoVersion + " " + runtime.GOOS + "/" + runtime.GOARCH
}
