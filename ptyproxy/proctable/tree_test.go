package proctable

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestScripts walks the snapshot sequences in testdata, one subtest per
// file. A script says:
//
//	root PID START   the agent (0 0: gone before the first snapshot)
//	since START      the attempt's start, if not the agent's
//	ours PID...      the processes whose environment holds the marker
//	table            a snapshot follows, one process a line:
//	                 PID PPID PGID UID START STATE (Z for a zombie)
//	want PID...      the attempt's live processes in that snapshot
//	asked PID...     the orphans whose marker was looked for in it
func TestScripts(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("testdata/*.txt")
	if err != nil || len(files) == 0 {
		t.Fatalf("no scripts: %v", err)
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txt"), func(t *testing.T) {
			t.Parallel()
			runScript(t, file)
		})
	}
}

func runScript(t *testing.T, file string) {
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var (
		root   ID
		since  int64
		hasSin bool
		ours   = map[int]bool{}
		tree   *Tree
		table  []Proc
		inTab  bool
		asked  []int
		out    []Proc
	)
	ints := func(fields []string, n int) []int64 {
		var v []int64
		for _, s := range fields {
			x, err := strconv.ParseInt(s, 10, 64)
			if err != nil {
				t.Fatalf("%s: %q is not a number", file, s)
			}
			v = append(v, x)
		}
		if n >= 0 && len(v) != n {
			t.Fatalf("%s: want %d numbers in %q", file, n, fields)
		}
		return v
	}
	pids := func(fields []string) []int {
		var v []int
		for _, x := range ints(fields, -1) {
			v = append(v, int(x))
		}
		slices.Sort(v)
		return v
	}
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		fields := strings.Fields(line)
		where := fmt.Sprintf("%s:%d", filepath.Base(file), n)
		switch fields[0] {
		case "root":
			v := ints(fields[1:], 2)
			root = ID{int(v[0]), v[1]}
		case "since":
			since, hasSin = ints(fields[1:], 1)[0], true
		case "ours":
			for _, p := range pids(fields[1:]) {
				ours[p] = true
			}
		case "table":
			table, inTab = nil, true
		case "want":
			if tree == nil {
				if !hasSin {
					since = root.Start
				}
				tree = New(root, since)
			}
			asked = nil
			out = tree.Snapshot(table, func(p Proc) bool {
				asked = append(asked, p.PID)
				return ours[p.PID]
			})
			inTab = false
			var got []int
			for _, p := range out {
				got = append(got, p.PID)
			}
			if len(out) > 0 && slices.Contains(got, root.PID) && got[0] != root.PID {
				t.Errorf("%s: the agent is not first in %v", where, got)
			}
			slices.Sort(got)
			if want := pids(fields[1:]); !slices.Equal(got, want) {
				t.Errorf("%s: the attempt's processes are %v, want %v", where, got, want)
			}
		case "asked":
			slices.Sort(asked)
			if want := pids(fields[1:]); !slices.Equal(asked, want) {
				t.Errorf("%s: asked about %v, want %v", where, asked, want)
			}
		default:
			if !inTab {
				t.Fatalf("%s: unknown line %q", where, line)
			}
			if len(fields) != 6 {
				t.Fatalf("%s: a process is PID PPID PGID UID START STATE: %q", where, line)
			}
			v := ints(fields[:5], 5)
			table = append(table, Proc{PID: int(v[0]), PPID: int(v[1]), PGID: int(v[2]), UID: int(v[3]), Start: v[4], Zombie: fields[5] == "Z"})
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if tree == nil {
		t.Fatalf("%s: no snapshot taken", file)
	}
}

// TestSame checks the rule applied right before each signal.
func TestSame(t *testing.T) {
	t.Parallel()
	id := ID{PID: 42, Start: 1000}
	for _, tc := range []struct {
		cur  Proc
		want bool
	}{
		{Proc{PID: 42, Start: 1000}, true},
		{Proc{PID: 42, Start: 1001}, false}, // the pid was recycled
		{Proc{PID: 42, Start: 1000, Zombie: true}, false},
		{Proc{PID: 43, Start: 1000}, false},
	} {
		if got := Same(id, tc.cur); got != tc.want {
			t.Errorf("Same(%v, %+v) = %v, want %v", id, tc.cur, got, tc.want)
		}
	}
}

// TestForgetsTheDead checks the memory holds live processes only, so a
// long attempt with many short tools does not grow it.
func TestForgetsTheDead(t *testing.T) {
	t.Parallel()
	tr := New(ID{100, 1}, 1)
	none := func(Proc) bool { return false }
	for i := range 1000 {
		tool := Proc{PID: 200 + i, PPID: 100, PGID: 200 + i, Start: int64(2 + i)}
		tr.Snapshot([]Proc{{PID: 100, PPID: 50, PGID: 100, Start: 1}, tool}, none)
	}
	tr.Snapshot([]Proc{{PID: 100, PPID: 50, PGID: 100, Start: 1}}, none)
	if len(tr.known) != 1 || len(tr.checked) != 0 {
		t.Errorf("remembers %d processes and %d orphans, want the agent alone", len(tr.known), len(tr.checked))
	}
}
