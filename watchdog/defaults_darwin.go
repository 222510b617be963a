package watchdog

import "time"

// defaultIdleTimeout covers the longest single model request on macOS,
// where the wrapper cannot see the model connection (no cgo, so no
// proc_pidfdinfo, which would give a socket's TCP state and unread bytes
// but no time of last receipt nor byte counts): a thinking pause is as
// quiet as a dead stream there, and Claude's client gives one request up
// to 600 s. The cost: a dead wait is stopped after 10 minutes, not one.
// See docs/hang-rules.md.
const defaultIdleTimeout = 10 * time.Minute
