package transcribe

import (
	"context"
	"slices"
	"testing"
)

// script is a fake decoder step that says ids in order, then </s>; it
// records how many steps ran and checks that the first step is flagged
// and each step is fed the token before.
func script(t *testing.T, ids ...int) (func(prev int64, first bool) (token, error), *int) {
	t.Helper()
	steps := 0
	return func(prev int64, first bool) (token, error) {
		if first != (steps == 0) {
			t.Errorf("step %d: first = %v", steps, first)
		}
		want := int64(moonshineStart)
		if steps > 0 {
			want = int64(ids[steps-1])
		}
		if prev != want {
			t.Errorf("step %d fed %d, want %d", steps, prev, want)
		}
		id := moonshineEOS
		if steps < len(ids) {
			id = ids[steps]
		}
		steps++
		return token{id: id, prob: 0.9}, nil
	}, &steps
}

func ids(toks []token) []int {
	out := make([]int, len(toks))
	for i, t := range toks {
		out[i] = t.id
	}
	return out
}

func TestDecodeCutsLoops(t *testing.T) {
	loop := func(phrase []int, times int) []int {
		var out []int
		for range times {
			out = append(out, phrase...)
		}
		return out
	}
	cat := func(parts ...[]int) []int { return slices.Concat(parts...) }
	for _, c := range []struct {
		name      string
		said      []int
		want      []int
		wantSteps int // decoder steps run: where decoding stopped
	}{
		{"ends at </s>", []int{10, 11, 12}, []int{10, 11, 12}, 4},
		{"a word said four times stays", cat([]int{5}, loop([]int{7}, 4), []int{8}), cat([]int{5}, loop([]int{7}, 4), []int{8}), 7},
		{"a token looping", cat([]int{5}, loop([]int{7}, 50)), []int{5, 7}, 6},
		{"a phrase said three times stays", cat(loop([]int{20, 21, 22}, 3), []int{9}), cat(loop([]int{20, 21, 22}, 3), []int{9}), 11},
		{"a phrase looping", cat([]int{4}, loop([]int{20, 21, 22}, 30)), []int{4, 20, 21, 22}, 13},
		{"a twelve-token sentence looping", cat([]int{3}, loop([]int{30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41}, 9)), cat([]int{3}, []int{30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41}), 49},
		{"the limit", loop([]int{50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62}, 9), loop([]int{50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62}, 9)[:100], 100},
	} {
		t.Run(c.name, func(t *testing.T) {
			next, steps := script(t, c.said...)
			got, err := decode(context.Background(), 100, next)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(ids(got), c.want) || *steps != c.wantSteps {
				t.Errorf("decoded %v in %d steps, want %v in %d", ids(got), *steps, c.want, c.wantSteps)
			}
		})
	}
}

func TestDecodeStopsWhenCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	next, steps := script(t, 1, 2, 3)
	if _, err := decode(ctx, 100, next); err == nil || *steps != 0 {
		t.Errorf("cancelled decode: %v after %d steps", err, *steps)
	}
}

func TestTokenLimitFollowsTheAudio(t *testing.T) {
	for _, c := range []struct {
		seconds float64
		want    int
	}{{0.3, moonshineMinTokens}, {10, 65}, {20, 130}} {
		if got := tokenLimit(int(c.seconds * moonshineRate)); got != c.want {
			t.Errorf("%.1f s: limit %d, want %d", c.seconds, got, c.want)
		}
	}
}
