package ptyproxy

// connsVisible reports whether the agent's connections are read: never on
// macOS (see tree.activity), which the defaults allow for, so there is
// nothing to say at each run.
func connsVisible(int) (ok bool, why string) { return false, "" }

// ConnCheck says, for doctor, that macOS does not tell the agent's
// connections, and what that costs.
func ConnCheck() (ok bool, what, fix string) {
	return false, "macOS does not tell the wrapper the agent's TCP connections (no sock_diag)",
		"nothing to fix: idle_timeout is 10m here by default, to cover a model that thinks in silence"
}
