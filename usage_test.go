package main

import (
	"path/filepath"
	"testing"
)

// usageFixture is a Claude run whose first message spans three
// content-block events, each repeating the message's usage.
var usageFixture = filepath.Join("stream", "testdata", "usage", "claude-blocks.jsonl")

// TestUsageRecords: the log keeps the running total of what the agent
// reported, a usage record each time it changes (a message repeated over
// its blocks counted once, the result's totals last), and the exit record
// holds the attempt's total.
func TestUsageRecords(t *testing.T) {
	t.Parallel()
	r := runWrapper(t, []string{steps("replay", usageFixture, "exit", "0")}, nil, "--agent", "claude", "--", "fix it")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	want := []map[string]any{
		{"input_tokens": 3.0, "output_tokens": 8.0, "cache_read_tokens": 15000.0, "cache_write_tokens": 1200.0},
		{"input_tokens": 8.0, "output_tokens": 10.0, "cache_read_tokens": 31200.0, "cache_write_tokens": 1500.0},
		{"input_tokens": 8.0, "output_tokens": 410.0, "cache_read_tokens": 31200.0, "cache_write_tokens": 1500.0, "cost_usd": 0.0187},
	}
	recs := logRecords(t, r.logDir, "usage")
	if len(recs) != len(want) {
		t.Fatalf("usage records %v, want %v", recs, want)
	}
	for i, rec := range recs {
		delete(rec, "time")
		delete(rec, "level")
		delete(rec, "msg")
		if !sameFields(rec, want[i]) {
			t.Errorf("usage record %d: %v, want %v", i, rec, want[i])
		}
	}
	exit := firstRecord(t, r.logDir, "exit")
	if u, _ := exit["usage"].(map[string]any); !sameFields(u, want[2]) {
		t.Errorf("exit record's usage %v, want %v", exit["usage"], want[2])
	}
}

// TestUsageNotReported: an agent that reports no usage (a cursor-agent
// build before 2026.08) leaves no usage record, and the exit record says
// nothing of usage rather than 0.
func TestUsageNotReported(t *testing.T) {
	t.Parallel()
	r := runWrapper(t, []string{steps("replay", filepath.Join("stream", "testdata", "normal.jsonl"), "exit", "0")}, nil, "--", "fix it")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if recs := logRecords(t, r.logDir, "usage"); len(recs) != 0 {
		t.Errorf("usage records %v", recs)
	}
	if exit := firstRecord(t, r.logDir, "exit"); exit == nil || exit["usage"] != nil {
		t.Errorf("exit record %v", exit)
	}
}

// sameFields compares two decoded JSON objects of numbers.
func sameFields(a, b map[string]any) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range b {
		if a[k] != v {
			return false
		}
	}
	return true
}
