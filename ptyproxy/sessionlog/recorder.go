package sessionlog

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"time"
	"unicode/utf8"

	"golang.org/x/sys/unix"

	"cursor-wrap/ptyproxy/redact"
)

// A Sink takes records, whole and masked: a session log's File, or
// another reader of them (a job's tap). It takes only what a Redactor
// masked.
type Sink interface{ Write(redact.Masked) }

// SinkTo makes w a Sink, for a reader of records that is not a log.
func SinkTo(w io.Writer) Sink { return writerSink{w} }

type writerSink struct{ w io.Writer }

func (s writerSink) Write(m redact.Masked) { _, _ = s.w.Write(m.Bytes()) }

// A Recorder writes records to sinks, each with one Write, with every
// secret the redactor knows masked. A nil Recorder writes nothing.
type Recorder struct {
	sinks   []Sink
	secrets *redact.Redactor
}

// NewRecorder returns a Recorder writing to sinks, masking secrets (nil:
// only those of a known shape).
func NewRecorder(secrets *redact.Redactor, sinks ...Sink) *Recorder {
	return &Recorder{sinks: sinks, secrets: secrets}
}

// Write writes one record, stamped now.
func (r *Recorder) Write(rec Record) {
	if r == nil {
		return
	}
	r.write(r.secrets.Mask(encode(time.Now(), rec)))
}

// write gives a record to every sink. The log reports its own failures.
func (r *Recorder) write(m redact.Masked) {
	for _, s := range r.sinks {
		s.Write(m)
	}
}

// AppendEvent appends an event record, as the package's AppendEvent does,
// to be written with Events. A line that must be kept in base64 is masked
// first: masking looks for secrets in text, which base64 hides.
func (r *Recorder) AppendEvent(b []byte, e Event) []byte {
	valid := utf8.Valid(e.Raw)
	if !valid {
		e.Raw = r.secrets.Mask(e.Raw).Bytes()
		valid = utf8.Valid(e.Raw) // The mask may have taken the invalid bytes.
	}
	return appendEvent(b, e, valid)
}

// encode makes one record's line.
func encode(t time.Time, rec Record) []byte {
	k := kindOf(rec)
	if k == nil {
		panic(fmt.Sprintf("sessionlog: %T has no row in kinds", rec)) // TestEveryRecordTypeHasARow.
	}
	b := appendHeader(nil, t, k.level, k.msg)
	var body bytes.Buffer
	enc := json.NewEncoder(&body)
	// As slog writes strings: the redactor looks for secrets in that form.
	enc.SetEscapeHTML(false)
	if err := enc.Encode(rec); err != nil {
		return fmt.Appendf(b, `,"encode_error":%q}`+"\n", err.Error())
	}
	if fields := bytes.TrimSpace(body.Bytes()); len(fields) > 2 {
		b = append(b, ',')
		b = append(b, fields[1:]...)
		return append(b, '\n')
	}
	return append(b, "}\n"...)
}

// Append writes one record, stamped now and redacted, at the end of the
// log at path, which an attempt wrote and may still write: for records
// that come after it ended. It never creates the file.
func Append(path string, r *redact.Redactor, rec Record) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return err // The path is in it.
	}
	// One write with O_APPEND: whole, after whatever the attempt wrote.
	_, err = f.Write(r.Mask(encode(time.Now(), rec)).Bytes())
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("appending to %s: %w", path, err)
	}
	return nil
}

// Events writes event records that AppendEvent built, many at once.
func (r *Recorder) Events(p []byte) {
	if r == nil || len(p) == 0 {
		return
	}
	r.write(r.secrets.Mask(p))
}

// appendHeader starts a record as slog's JSON handler does.
func appendHeader(b []byte, t time.Time, level slog.Level, msg string) []byte {
	b = append(b, `{"time":"`...)
	b = t.AppendFormat(b, time.RFC3339Nano)
	b = append(b, `","level":"`...)
	b = append(b, level.String()...)
	b = append(b, `","msg":"`...)
	b = append(b, msg...)
	return append(b, '"')
}
