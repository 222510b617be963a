package sessionlog

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"reflect"
)

// A kind is one row of kinds: what the log knows of one record type.
type kind struct {
	msg   string
	level slog.Level
	typ   reflect.Type
	new   func() Record       // an empty record, for Decode
	note  func(Record) string // nil: not a note on the run
	// beside: written beside the run (a notification's delivery), so it
	// may come after the exit record and does not move the run's end.
	beside bool
}

// of makes the row of record type R.
func of[R any, P interface {
	*R
	Record
}](msg string, level slog.Level, note func(*R) string) kind {
	k := kind{msg: msg, level: level, typ: reflect.TypeFor[R](), new: func() Record { return P(new(R)) }}
	if note != nil {
		k.note = func(rec Record) string { // rec is an R or an *R: kindOf found this row for it.
			if r, ok := rec.(P); ok {
				return note(r)
			}
			r := any(rec).(R)
			return note(&r)
		}
	}
	return k
}

// besideRun marks a row's records as written beside the run.
func besideRun(k kind) kind {
	k.beside = true
	return k
}

var byMsg, byType = func() (map[string]*kind, map[reflect.Type]*kind) {
	msgs, types := map[string]*kind{}, map[reflect.Type]*kind{}
	for i := range kinds {
		k := &kinds[i]
		msgs[k.msg], types[k.typ] = k, k
	}
	return msgs, types
}()

// kindOf returns the row of rec, a record or a pointer to one; nil for
// none (rec nil: a record Decode did not know).
func kindOf(rec Record) *kind {
	t := reflect.TypeOf(rec)
	if t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return byType[t]
}

// Note returns the detail inspect shows for rec when it is a note on the
// run: a warning, a config change, a notification, an on_hang command.
// The records that make the run itself (the command, output, the verdict,
// kills, the exit) are no notes.
func Note(rec Record) (string, bool) {
	if k := kindOf(rec); k != nil && k.note != nil {
		return k.note(rec), true
	}
	return "", false
}

// BesideRun reports whether rec was written beside the run, as a
// notification's delivery is: it may come after the exit record.
func BesideRun(rec Record) bool {
	k := kindOf(rec)
	return k != nil && k.beside
}

// Decode reads one line of a session log: its header and its record, a
// pointer to one of the record types (nil for a record it does not know,
// from a newer version).
func Decode(line []byte) (Header, Record, error) {
	var h Header
	if err := json.Unmarshal(line, &h); err != nil {
		return h, nil, err
	}
	k, ok := byMsg[h.Msg]
	if !ok {
		return h, nil, nil
	}
	rec := k.new()
	if err := json.Unmarshal(line, rec); err != nil {
		return h, nil, fmt.Errorf("a %s record that does not read: %w", h.Msg, err)
	}
	return h, rec, nil
}
