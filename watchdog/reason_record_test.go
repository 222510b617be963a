package watchdog

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"
)

// full is a reason with every field the hang record keeps set, each to a
// value of its own, so that a field written or read as another shows.
func full() Reason {
	ms := time.Millisecond
	return Reason{
		Kind: KindIdle, Silence: 61234 * ms, Elapsed: 95001 * ms, Threshold: 60 * time.Second,
		LastEventType: "assistant/delta", SessionID: "sess-9", OpenCount: 4,
		OpenCalls: []OpenCall{
			{ID: "c1", Kind: "shell", Command: "make test", Elapsed: 7001 * ms, Timeout: 3002 * ms, Budget: 5003 * ms},
			{ID: "c2", Kind: "read", Command: "a.go", Elapsed: 6004 * ms, Timeout: 0, Budget: 4005 * ms},
		},
		Evidence: Evidence{Windows: 9, ActiveWindows: 7, CPUPercent: 12.36, ReadPerSec: 2048.04, Tool: true, Extended: 30006 * ms,
			Worked: WorkedTool, Pid: 4242, Process: "go", CallID: "c1", Conn: "10.0.0.1:443", Earned: EarnedKeepAlive,
			ConnQuiet: 2007 * ms, Content: 812, Period: 15008 * ms, ModelWait: 80009 * ms},
		StdinOpen: true, Question: "Apply? [y/N]", Fix: "--force", WaitingOn: "terminal",
		Budget: BudgetCost, Limit: 2.5, Total: 2.75, SilenceDue: 1010 * ms,
	}
}

// TestReasonRecord checks the hang_detected record a reason writes, field
// by field, and that reading it back gives the reason again (its figures
// as the record keeps them: milliseconds, a percent to one decimal).
func TestReasonRecord(t *testing.T) {
	t.Parallel()
	r := full()
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"kind":"idle","idle_silence_ms":61234,"elapsed_ms":95001,"threshold_ms":60000,"open_call_count":4,` +
		`"last_event_type":"assistant/delta","session_id":"sess-9","open_calls":[` +
		`{"call_id":"c1","kind":"shell","command":"make test","elapsed_ms":7001,"timeout_ms":3002,"budget_ms":5003},` +
		`{"call_id":"c2","kind":"read","command":"a.go","elapsed_ms":6004,"timeout_ms":0,"budget_ms":4005}],` +
		`"activity":{"windows":9,"active_windows":7,"last_cpu_percent":12.4,"last_read_bytes_per_sec":2048,"tool_running":true,` +
		`"extended_ms":30006,"worked":"tool","pid":4242,"process":"go","call_id":"c1","connection":"10.0.0.1:443",` +
		`"connection_earned":"keep-alives","connection_received_ms_ago":2007,"content_bytes":812,"keepalive_period_ms":15008,` +
		`"model_wait_ms":80009},"stdin_open":true,"question":"Apply? [y/N]","fix":"--force","waiting_on":"terminal",` +
		`"budget":"max_cost_usd","budget_limit":2.5,"budget_total":2.75,"silence_due_ms_ago":1010}`
	if string(b) != want {
		t.Errorf("the record:\n%s\nwant\n%s", b, want)
	}
	var back Reason
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	r.Evidence.CPUPercent, r.Evidence.ReadPerSec = 12.4, 2048
	if !reflect.DeepEqual(back, r) {
		t.Errorf("read back:\n%+v\nwant\n%+v", back, r)
	}
	if err := back.UnmarshalJSON([]byte(`{"kind":`)); err == nil {
		t.Error("a cut record read without an error")
	}

	// What a record leaves out: no activity without windows or a
	// connection, open calls written as an empty list.
	for _, tc := range []struct {
		r    Reason
		want string
	}{
		{Reason{Kind: KindExit}, `{"kind":"exit","idle_silence_ms":0,"elapsed_ms":0,"open_call_count":0,"last_event_type":"","open_calls":[]}`},
		{Reason{Kind: KindIdle, Evidence: Evidence{Conn: "h:1"}}, `"activity":{"windows":0,"active_windows":0,"last_cpu_percent":0,"last_read_bytes_per_sec":0,"extended_ms":0,"connection":"h:1"}`},
		{Reason{Kind: KindIdle, Evidence: Evidence{Windows: 1, CPUPercent: 0.04}}, `"activity":{"windows":1,"active_windows":0,"last_cpu_percent":0,"last_read_bytes_per_sec":0,"extended_ms":0}`},
	} {
		b, err := json.Marshal(tc.r)
		if err != nil || !strings.Contains(string(b), tc.want) {
			t.Errorf("%+v written as %s, want %s in it", tc.r, b, tc.want)
		}
	}
}

// TestReasonWords checks the sentence each kind of verdict is told in,
// and the words of what excused a silence.
func TestReasonWords(t *testing.T) {
	t.Parallel()
	s := time.Second
	idle := Reason{Kind: KindIdle, Silence: 75 * s, Threshold: 60 * s}
	keepAlives := full().Evidence
	content := Evidence{Conn: "10.0.0.2:443", Earned: EarnedContent, Content: 4096, ConnQuiet: 3 * s}
	calls := []OpenCall{
		{Kind: "shell", Command: "make", Elapsed: 90 * s, Budget: 60 * s},
		{Kind: "shell", Command: "go test", Elapsed: 80 * s, Budget: 70 * s},
		{Kind: "read", Command: "a", Elapsed: 70 * s, Budget: 65 * s},
		{Kind: "read", Command: "b", Elapsed: 61 * s, Budget: 59 * s},
	}
	for _, tc := range []struct {
		name string
		r    Reason
		want string
	}{
		{"idle", idle, "no output for 1m15s with no tool call running (idle timeout 1m0s)"},
		{"idle, stdin open", Reason{Kind: KindIdle, Silence: 75 * s, Threshold: 60 * s, StdinOpen: true},
			"no output for 1m15s with no tool call running (idle timeout 1m0s); its stdin was still open, so it may have been waiting for input that never ended (--stdin=close gives it none)"},
		{"idle, evidence", Reason{Kind: KindIdle, Silence: 75 * s, Threshold: 60 * s, Evidence: Evidence{Windows: 3, Extended: 15 * s, CPUPercent: 1.25, ReadPerSec: 10.5}},
			"no output for 1m15s with no tool call running (idle timeout 1m0s); evidence excused 15s of it, until it ran out or max_silence was reached; in the last window the agent's processes used 1.2% CPU and read 10 B/s"},
		{"keep-alives", Reason{Kind: KindIdle, Silence: 75 * s, Threshold: 60 * s, Evidence: keepAlives},
			"no output for 1m15s with no tool call running (idle timeout 1m0s); evidence excused 30s of it, until it ran out or max_silence was reached; in the last window the agent's processes used 12.4% CPU and read 2048 B/s; the connection to 10.0.0.1:443 received data 2s before (keep-alives every 15s, the model waited on for 1m20s)"},
		{"keep-alives, no period, no model call", Reason{Kind: KindIdle, Silence: 75 * s, Threshold: 60 * s, Evidence: Evidence{Conn: "h:1", Earned: EarnedKeepAlive, ConnQuiet: -s}},
			"no output for 1m15s with no tool call running (idle timeout 1m0s); the connection to h:1 received data 0s before (keep-alives)"},
		{"content", Reason{Kind: KindIdle, Silence: 75 * s, Threshold: 60 * s, Evidence: content},
			"no output for 1m15s with no tool call running (idle timeout 1m0s); the connection to 10.0.0.2:443 received 4096 B of a response, the last 3s before"},
		{"content, quiet below zero", Reason{Kind: KindIdle, Silence: 75 * s, Threshold: 60 * s, Evidence: Evidence{Conn: "h:1", Earned: EarnedContent, ConnQuiet: -s}},
			"no output for 1m15s with no tool call running (idle timeout 1m0s); the connection to h:1 received 0 B of a response, the last 0s before"},
		{"deadline", Reason{Kind: KindDeadline, Threshold: 5 * time.Minute, StdinOpen: true},
			"the attempt timed out at its hard timeout of 5m0s, a cap on its time whatever it was doing; its stdin was still open, so it may have been waiting for input that never ended (--stdin=close gives it none)"},
		{"exit", Reason{Kind: KindExit, Threshold: 10 * s}, "the agent printed its result but did not exit within 10s"},
		{"person, stdin open", Reason{Kind: KindPerson, Question: "Apply? [y/N]", Fix: "pass --force", StdinOpen: true}, ""},
		{"tool, four calls", Reason{Kind: KindTool, Silence: 70 * s, Threshold: 60 * s, OpenCount: 4, OpenCalls: calls, SilenceDue: 10 * s},
			`no output for 1m10s and every open tool call is past its deadline (shell "make" ran 1m30s of 1m0s; shell "go test" ran 1m20s of 1m10s; read "a" ran 1m10s of 1m5s; and 1 more); the tool rule needs both: the deadlines passed at the verdict, and the silence reached the idle timeout of 1m0s 10s before the verdict`},
		{"tool, more open than listed", Reason{Kind: KindTool, Silence: 70 * s, Threshold: 60 * s, OpenCount: 9, OpenCalls: calls[:1], SilenceDue: 40 * s},
			`no output for 1m10s and every open tool call is past its deadline (shell "make" ran 1m30s of 1m0s; and 8 more); the tool rule needs both: the deadlines passed at the verdict, and the silence reached the idle timeout of 1m0s 40s before the verdict`},
		{"tool, the deadlines passed last", Reason{Kind: KindTool, Silence: 70 * s, Threshold: 60 * s, OpenCount: 2, OpenCalls: []OpenCall{calls[0], calls[2]}, SilenceDue: 3 * s},
			`no output for 1m10s and every open tool call is past its deadline (shell "make" ran 1m30s of 1m0s; read "a" ran 1m10s of 1m5s); the tool rule needs both: the deadlines passed 5s before the verdict, and the silence reached the idle timeout of 1m0s at the verdict`},
		{"tool, one call at its deadline", Reason{Kind: KindTool, Silence: 70 * s, Threshold: 60 * s, OpenCount: 2, OpenCalls: []OpenCall{{Kind: "shell", Command: "x", Elapsed: 60 * s, Budget: 60 * s}, calls[2]}, SilenceDue: 3 * s},
			`no output for 1m10s and every open tool call is past its deadline (shell "x" ran 1m0s of 1m0s; read "a" ran 1m10s of 1m5s); the tool rule needs both: the deadlines passed at the verdict, and the silence reached the idle timeout of 1m0s 3s before the verdict`},
		{"tool, no call in the record", Reason{Kind: KindTool, Silence: 70 * s, Threshold: 60 * s, SilenceDue: 3 * s},
			`no output for 1m10s and every open tool call is past its deadline (); the tool rule needs both: the deadlines passed at the verdict, and the silence reached the idle timeout of 1m0s 3s before the verdict`},
		{"tool, a record from before the rule's parts", Reason{Kind: KindTool, Silence: 70 * s, OpenCount: 1, OpenCalls: calls[:1]},
			`no output for 1m10s and every open tool call is past its deadline (shell "make" ran 1m30s of 1m0s)`},
		{"tool, both parts due together: the deadlines are said last", Reason{Kind: KindTool, Silence: 70 * s, Threshold: 60 * s, OpenCount: 1, OpenCalls: calls[1:2], SilenceDue: 10 * s},
			`no output for 1m10s and every open tool call is past its deadline (shell "go test" ran 1m20s of 1m10s); the tool rule needs both: the deadlines passed at the verdict, and the silence reached the idle timeout of 1m0s 10s before the verdict`},
	} {
		got := tc.r.Describe()
		if tc.r.Kind == KindPerson {
			if strings.Contains(got, "stdin was still open") || !strings.Contains(got, tc.r.Question) {
				t.Errorf("%s: %q", tc.name, got)
			}
			continue
		}
		if got != tc.want {
			t.Errorf("%s:\n%q\nwant\n%q", tc.name, got, tc.want)
		}
	}
	if got := (Reason{Kind: KindBudget, Budget: BudgetTokens, Limit: 50000, Total: 61000}).Describe(); !strings.Contains(got, "50,000") || !strings.Contains(got, "61,000") {
		t.Errorf("budget: %q", got)
	}
}

// TestImminentAndMovedOn checks the warning's words, and that a reason
// moved on runs its times on without changing the one it came from.
func TestImminentAndMovedOn(t *testing.T) {
	t.Parallel()
	s := time.Second
	r := Reason{Kind: KindIdle, Silence: 50 * s, Elapsed: 70 * s, DueIn: 10 * s, OpenCalls: []OpenCall{{ID: "c", Elapsed: 5 * s}}}
	if got, want := r.Imminent(), "no output for 50s; the agent will be stopped in 10s unless it speaks"; got != want {
		t.Errorf("%q, want %q", got, want)
	}
	later := r.MovedOn(15 * s)
	if later.Silence != 65*s || later.Elapsed != 85*s || later.DueIn != -5*s || later.OpenCalls[0].Elapsed != 20*s {
		t.Errorf("moved on 15s: %+v", later)
	}
	if r.OpenCalls[0].Elapsed != 5*s {
		t.Errorf("moving on changed the reason it came from: %+v", r.OpenCalls)
	}
	if got, want := later.Imminent(), "no output for 1m5s; the agent will be stopped in 0s unless it speaks"; got != want {
		t.Errorf("%q, want %q", got, want)
	}
	if got, want := (Reason{Kind: KindIdle, Silence: -s, DueIn: s}).Imminent(), "no output for 0s; the agent will be stopped in 1s unless it speaks"; got != want {
		t.Errorf("%q, want %q", got, want)
	}
	d := Reason{Kind: KindDeadline, Threshold: 5 * time.Minute, DueIn: 30 * s}
	if got, want := d.Imminent(), "the hard timeout of 5m0s stops the agent in 30s"; got != want {
		t.Errorf("%q, want %q", got, want)
	}
}
