package ptyproxy

import (
	"go/ast"
	"go/token"
	"strings"
	"testing"
	"time"

	"cursor-wrap/scripts/sourcetest"
)

// TestMomentKeepsTheMonotonicClock: a moment read back is the time set,
// monotonic reading and all (time.Time's String shows it as "m=+"), so
// the stalls measured from it ignore steps of the wall clock; a Unix-ns
// stamp, which the reader and the consoles kept before, loses it.
func TestMomentKeepsTheMonotonicClock(t *testing.T) {
	var m moment
	if _, ok := m.get(); ok {
		t.Fatal("a moment never set reads as set")
	}
	now := time.Now()
	m.set(now)
	got, ok := m.get()
	if !ok || !got.Equal(now) || got.Sub(now) != 0 {
		t.Fatalf("set %v, got %v (%v)", now, got, ok)
	}
	if !strings.Contains(got.String(), "m=+") {
		t.Errorf("%v has no monotonic reading", got)
	}
	if strings.Contains(time.Unix(0, now.UnixNano()).String(), "m=+") {
		t.Errorf("a Unix-ns stamp kept the monotonic reading: this test proves nothing")
	}
	// A fake clock's time, far from the process's start, reads back too.
	fake := time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC)
	m.set(fake)
	if got, ok := m.get(); !ok || !got.Equal(fake) {
		t.Errorf("set %v, got %v", fake, got)
	}
	m.clear()
	if _, ok := m.get(); ok {
		t.Error("a cleared moment reads as set")
	}
	if e := earlier(fake, now); !e.Equal(fake) {
		t.Errorf("earlier(%v, %v) = %v", fake, now, e)
	}
}

// TestNoWallClockStamps reads the module's code: a time shared through an
// atomic is a moment, never a Unix-ns stamp (x.Store(t.UnixNano())),
// which would measure a stall on the wall clock.
func TestNoWallClockStamps(t *testing.T) {
	t.Parallel()
	sourcetest.Walk(t, "", func(rel string, fset *token.FileSet, f *ast.File) {
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			if sel, ok := call.Fun.(*ast.SelectorExpr); !ok || sel.Sel.Name != "Store" || len(call.Args) != 1 {
				return true
			}
			ast.Inspect(call.Args[0], func(m ast.Node) bool {
				if sel, ok := m.(*ast.SelectorExpr); ok && (sel.Sel.Name == "UnixNano" || sel.Sel.Name == "UnixMilli") {
					t.Errorf("%s: %s stores a wall-clock stamp in an atomic: keep the time in a moment (ptyproxy/moment.go)", rel, fset.Position(call.Pos()))
				}
				return true
			})
			return true
		})
	})
}
