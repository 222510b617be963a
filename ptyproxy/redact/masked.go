package redact

// Masked is text a Redactor has masked: the only text the wrapper's
// writers take (the session log, the console, notifications, on_hang's
// input, MCP results), so that text that did not pass a Redactor cannot
// reach them: the code does not compile. The agent's own stdout and stderr
// are not the wrapper's text: they are forwarded byte for byte, unmasked.
// The zero Masked is empty.
type Masked struct{ b []byte }

// Mask returns b with every secret masked: those the Redactor learned and
// those of a known shape. A nil Redactor masks the known shapes only. The
// Masked may share b's bytes: b is not changed after.
func (r *Redactor) Mask(b []byte) Masked { return Masked{r.redact(b)} }

// MaskString is Mask for a string.
func (r *Redactor) MaskString(s string) Masked { return Masked{r.redact([]byte(s))} }

// Bytes returns the masked text, for the writer to write: not to be
// changed.
func (m Masked) Bytes() []byte { return m.b }

// String returns the masked text.
func (m Masked) String() string { return string(m.b) }

// Len is the length of the masked text in bytes.
func (m Masked) Len() int { return len(m.b) }
