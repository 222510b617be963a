package watchdog

import "time"

// defaultIdleTimeout is fast on a dead wait: Linux tells a model that
// thinks (its connection still receives) from a dead stream (see Conn), so
// the idle timeout need not cover a thinking pause. See docs/hang-rules.md.
const defaultIdleTimeout = 60 * time.Second
