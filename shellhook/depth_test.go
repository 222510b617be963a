package shellhook

import (
	"errors"
	"slices"
	"strconv"
	"strings"
	"testing"
)

func TestDepth(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		env  []string
		want int
	}{
		{nil, 0},
		{[]string{"HOME=/h"}, 0},
		{[]string{DepthEnv + "=2"}, 2},
		{[]string{DepthEnv + "=1", "X=y", DepthEnv + "=3"}, 3}, // The last one counts, as in os/exec.
		{[]string{DepthEnv + "=abc"}, 0},
		{[]string{DepthEnv + "=-5"}, 0},
		{[]string{DepthEnv + "="}, 0},
		{[]string{DepthEnv + "X=7"}, 0},
	} {
		if got := Depth(c.env); got != c.want {
			t.Errorf("Depth(%q) = %d, want %d", c.env, got, c.want)
		}
	}
}

func TestChildEnv(t *testing.T) {
	t.Parallel()
	in := []string{"HOME=/h", DepthEnv + "=1", FuncEnv + "=agent", "A=b=c", DepthEnv + "=2"}
	orig := slices.Clone(in)
	got, err := ChildEnv(in)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"HOME=/h", "A=b=c", DepthEnv + "=3"}; !slices.Equal(got, want) {
		t.Errorf("ChildEnv = %q, want %q", got, want)
	}
	if !slices.Equal(in, orig) {
		t.Errorf("ChildEnv changed its input: %q", in)
	}

	// Each generation goes one deeper until MaxDepth refuses.
	env := []string{"PATH=/bin"}
	for range MaxDepth {
		if env, err = ChildEnv(env); err != nil {
			t.Fatalf("depth %d refused: %v", Depth(env), err)
		}
	}
	if Depth(env) != MaxDepth {
		t.Fatalf("after %d generations depth is %d", MaxDepth, Depth(env))
	}
	_, err = ChildEnv(env)
	if !errors.Is(err, ErrIsWrapper) || !strings.Contains(err.Error(), "agent_bin") ||
		!strings.Contains(err.Error(), DepthEnv+"="+strconv.Itoa(MaxDepth)) {
		t.Errorf("ChildEnv at MaxDepth: %v, want ErrIsWrapper naming the depth and agent_bin", err)
	}
}
