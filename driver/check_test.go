package driver

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// badWalk is a sortedIndex whose Walk is replaced, its Rank and Key staying
// right.
type badWalk struct {
	*sortedIndex
	walk func(x *sortedIndex, from, to int, f func(int, float64))
}

func (x badWalk) Walk(from, to int, f func(int, float64)) { x.walk(x.sortedIndex, from, to, f) }

// The driver's Check itself: an index whose Walk leaves the canonical
// order, or covers the wrong ranks, on the whole range or a range inside, is
// reported, naming the Walk and the rank where it goes wrong.
func TestCheckCatchesWalk(t *testing.T) {
	// Canonical order: item = rank − 1; a tie at rank 3 and 4.
	keys := []float64{9, 5, 2, 2, 1, 0}
	n := len(keys)
	cases := []struct {
		name string
		walk func(x *sortedIndex, from, to int, f func(int, float64))
		want string
	}{
		{"out of order", func(x *sortedIndex, from, to int, f func(int, float64)) {
			// Ranks 3 and 4 hold a tie: swapping them breaks only the
			// order among equal keys.
			for r := from; r <= to; r++ {
				i := r - 1
				if i == 2 || i == 3 {
					i = 5 - i
				}
				f(i, x.keys[i])
			}
		}, "driver: Walk gives item 3, key 2 at rank 3; Rank 4, Key 2"},
		{"wrong key", func(x *sortedIndex, from, to int, f func(int, float64)) {
			for i := from - 1; i < to; i++ {
				f(i, x.keys[i]+1)
			}
		}, "driver: Walk gives item 0, key 10 at rank 1; Rank 1, Key 9"},
		{"stops early", func(x *sortedIndex, from, to int, f func(int, float64)) {
			x.Walk(from, min(to, n-1), f)
		}, "driver: Walk(1, 6) visits 5 items"},
		{"inner range from the start", func(x *sortedIndex, from, to int, f func(int, float64)) {
			x.Walk(1, to, f)
		}, "driver: Walk(2, 6) gives item 0 at rank 2"},
		{"inner range too long", func(x *sortedIndex, from, to int, f func(int, float64)) {
			x.Walk(from, min(to+1, n), f)
		}, "driver: Walk(2, 4) gives item 4 at rank 5"},
		{"inner range too short", func(x *sortedIndex, from, to int, f func(int, float64)) {
			if from > 1 {
				to--
			}
			x.Walk(from, to, f)
		}, "driver: Walk(2, 6) visits 4 items"},
		{"empty range not empty", func(x *sortedIndex, from, to int, f func(int, float64)) {
			x.Walk(from, max(to, from), f)
		}, "driver: Walk(6, 5) gives item 5 at rank 6"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ix := &sortedIndex{keys: keys}
			good := New(ix)
			require.NoError(t, good.Check(), "before the corruption")
			d := New(badWalk{ix, c.walk})
			require.EqualError(t, d.Check(), c.want)
		})
	}
}
