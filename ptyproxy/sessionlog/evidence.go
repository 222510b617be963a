package sessionlog

import "cursor-wrap/watchdog"

// Evidence is a silence the model connection excused, written when a
// connection is first seen to stream a response in during a silence: which
// one, and how long before its data arrived.
type Evidence struct {
	record
	Connection string `json:"connection"`
	ReceivedMS int64  `json:"received_ms_ago"`
	SilenceMS  int64  `json:"idle_silence_ms"`
}

// NewEvidence is the record of r's connection evidence.
func NewEvidence(r watchdog.Reason) Evidence {
	return Evidence{Connection: r.Evidence.Conn, ReceivedMS: r.Evidence.ConnQuiet.Milliseconds(), SilenceMS: r.Silence.Milliseconds()}
}
