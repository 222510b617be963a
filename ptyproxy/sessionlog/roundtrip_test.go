package sessionlog_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"
	"time"

	"cursor-wrap/ptyproxy/sessionlog"
	"cursor-wrap/ptyproxy/sessionlog/timeline"
)

// shown says how inspect shows each kind of record that is not a note: a
// new kind is a note (its row says what inspect shows) unless it is added
// here, with the change it makes to the timeline.
var shown = map[string]func(*timeline.Timeline, sessionlog.Record) bool{
	"command": func(t *timeline.Timeline, r sessionlog.Record) bool {
		c := r.(*sessionlog.Command)
		return t.Agent == c.AgentName() && slices.Equal(t.Argv, c.Argv)
	},
	"start": func(t *timeline.Timeline, r sessionlog.Record) bool { return t.Pid == r.(*sessionlog.Start).Pid },
	"event": func(t *timeline.Timeline, r sessionlog.Record) bool { return len(t.Entries) == 1 },
	"stderr": func(t *timeline.Timeline, r sessionlog.Record) bool {
		return t.Exit != nil && t.Exit.StderrLine == 1
	},
	"hang_detected": func(t *timeline.Timeline, r sessionlog.Record) bool {
		return t.Verdict != nil && t.Verdict.Kind == "hang_detected" && t.Verdict.Reason.Kind == r.(*sessionlog.HangDetected).Reason.Kind
	},
	"exit_overdue": func(t *timeline.Timeline, r sessionlog.Record) bool {
		return t.Verdict != nil && t.Verdict.Kind == "exit_overdue" && t.Verdict.Reason.Kind == r.(*sessionlog.ExitOverdue).Reason.Kind
	},
	"kill": func(t *timeline.Timeline, r sessionlog.Record) bool {
		return len(t.Kills) == 1 && t.Kills[0].What == r.(*sessionlog.Kill).Signal
	},
	"agent_exited": func(t *timeline.Timeline, r sessionlog.Record) bool {
		e := r.(*sessionlog.AgentExited)
		return t.Exit != nil && t.Exit.AgentCode != nil && *t.Exit.AgentCode == e.Code && t.Exit.Signal == e.Signal
	},
	"exit": func(t *timeline.Timeline, r sessionlog.Record) bool {
		e := r.(*sessionlog.Exit)
		return t.Exit != nil && t.Exit.Status != nil && *t.Exit.Status == e.Status && t.Exit.Cause == e.Cause
	},
	"usage": func(t *timeline.Timeline, r sessionlog.Record) bool {
		return len(t.Usage) == 1 && t.Usage[0].Usage() == r.(*sessionlog.UsageRecord).Usage()
	},
	// The verdict's changes drive the status line; inspect shows the one
	// that ended the attempt, from hang_detected or exit_overdue.
	"verdict": nil,
}

// TestEveryKindRoundTrips writes a record of every kind, every field set,
// and reads it back: Decode gives the same record (written again, the same
// bytes), with its name and level, and inspect's timeline shows it.
func TestEveryKindRoundTrips(t *testing.T) {
	t.Parallel()
	for _, row := range sessionlog.Rows() {
		t.Run(row.Msg, func(t *testing.T) {
			t.Parallel()
			rec := row.New()
			fill(reflect.ValueOf(rec).Elem(), row.Msg)
			line := write(rec)
			h, got, err := sessionlog.Decode(line)
			if err != nil || h.Msg != row.Msg || h.Level != row.Level.String() {
				t.Fatalf("%s read back as %+v, %v", line, h, err)
			}
			if again := write(got); !bytes.Equal(body(again), body(line)) {
				t.Errorf("written\n%s\nread back and written again\n%s", line, again)
			}

			log := []sessionlog.Record{sessionlog.Command{Attempt: 1, Agent: "cursor"}, rec, sessionlog.Exit{End: sessionlog.End{Cause: "exited"}}}
			switch row.Msg {
			case "command":
				log = log[1:]
			case "exit":
				log = log[:2]
			}
			tl := inspect(t, log)
			detail, note := sessionlog.Note(rec)
			check, listed := shown[row.Msg]
			switch {
			case note && listed:
				t.Errorf("a note, yet listed in shown")
			case note:
				if !slices.ContainsFunc(tl.Notes, func(e timeline.Entry) bool { return e.What == row.Msg && e.Detail == detail }) {
					t.Errorf("notes %+v, want %s: %s", tl.Notes, row.Msg, detail)
				}
			case !listed:
				t.Errorf("neither a note nor listed in shown: how does inspect show it?")
			case check != nil && !check(tl, got):
				timeline, _ := json.Marshal(tl)
				t.Errorf("timeline does not show %s:\n%s", line, timeline)
			}
		})
	}
}

func write(rec sessionlog.Record) []byte {
	var b bytes.Buffer
	sessionlog.NewRecorder(nil, sessionlog.SinkTo(&b)).Write(rec)
	return b.Bytes()
}

// body is a record without its time.
func body(line []byte) []byte {
	_, after, _ := bytes.Cut(line, []byte(`"level"`))
	return after
}

func inspect(t *testing.T, recs []sessionlog.Record) *timeline.Timeline {
	t.Helper()
	var log []byte
	for _, r := range recs {
		log = append(log, write(r)...)
	}
	path := filepath.Join(t.TempDir(), "log.jsonl")
	if err := os.WriteFile(path, log, 0o600); err != nil {
		t.Fatal(err)
	}
	tl, err := timeline.Read(path, time.Second)
	if err != nil || tl.Stopped != nil {
		t.Fatalf("%v, stopped at %+v:\n%s", err, tl.Stopped, log)
	}
	return tl
}

// fill sets every exported field of v to a value that is not zero and
// survives the log's JSON (durations in whole milliseconds).
func fill(v reflect.Value, name string) {
	switch {
	case v.Type() == reflect.TypeFor[json.RawMessage]():
		v.SetBytes([]byte(`"raw ` + name + `"`))
		return
	case v.Type() == reflect.TypeFor[time.Duration]():
		v.SetInt(int64(7 * time.Second))
		return
	}
	switch v.Kind() {
	case reflect.String:
		v.SetString(name + " text")
	case reflect.Int, reflect.Int64:
		v.SetInt(7)
	case reflect.Uint8:
		v.SetUint('b')
	case reflect.Float64:
		v.SetFloat(1.5)
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Slice:
		v.Set(reflect.MakeSlice(v.Type(), 1, 1))
		fill(v.Index(0), name)
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		fill(v.Elem(), name)
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				fill(v.Field(i), v.Type().Field(i).Name)
			}
		}
	default:
		panic("fill: a " + v.Type().String())
	}
}
