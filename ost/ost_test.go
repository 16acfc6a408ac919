package ost_test

import (
	"math/bits"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/reweighted/reweighted/ost"
	"github.com/reweighted/reweighted/samplertest"
)

func TestNodeSize(t *testing.T) {
	require.LessOrEqual(t, ost.BytesPerItem(), 32, "bytes per item")
}

func TestNewIsValid(t *testing.T) {
	for n := range 300 {
		tr := ost.New(n)
		require.NoError(t, tr.Check(), "n=%d", n)
		require.Equal(t, n, tr.Len())
		// Perfectly balanced: height ⌈log2(n+1)⌉.
		require.Equal(t, bits.Len(uint(n)), tr.Height(), "n=%d", n)
		for i := range n {
			require.Zero(t, tr.Key(i))
		}
	}
	for _, n := range []int{511, 512, 513, 1023, 1 << 12, 1<<12 + 1, 100_000} {
		require.NoError(t, ost.New(n).Check(), "n=%d", n)
	}
}

// TestBadInputChangesNothing: every rejected call leaves the tree
// identical, node for node.
func TestBadInputChangesNothing(t *testing.T) {
	tr := ost.New(40)
	samplertest.RejectsBadInput(t, tr, tr.Clone)
}

// TestBadBatchChangesNothing checks that every batch SetBatch rejects
// leaves the structure identical, node for node.
func TestBadBatchChangesNothing(t *testing.T) {
	tr := ost.New(40)
	samplertest.RejectsBadBatch(t, tr, tr.Clone)
}

// TestSelectSumFallsOffSubtree is a regression test for a boundary case of
// the descent that maps u to an item: the sum of a subtree exceeds the
// target but, associated differently, no partial sum inside it does. u lies
// 1.8e-16 below the exact boundary between ranks 4 and 5 (items 3 and 1), so
// either is right within the contract's tolerance; the bug returned the last
// item of the head (item 5, rank 6).
func TestSelectSumFallsOffSubtree(t *testing.T) {
	keys := []float64{89.43920161489537, 33.5207752887485, 96.24596545649742, 59.12714710218479,
		82.52143795367127, 6.321246508133516}
	tr := ost.New(len(keys))
	for i, a := range keys {
		require.NoError(t, tr.Set(i, a))
	}
	const u = 0.8914906030670896
	i, _, err := tr.Sample(0, u)
	require.NoError(t, err)
	require.NotEqual(t, 5, i, "not the last item of the head")
	require.Contains(t, []int{3, 1}, i, "rank 4 or 5, whose intervals meet at u up to rounding")
	require.NoError(t, samplertest.Verify(tr, keys, 0, []float64{u}))
}

// TestCheckReportsCorruption tests the checker itself: each broken
// invariant is reported, by name.
func TestCheckReportsCorruption(t *testing.T) {
	samplertest.CheckCatches(t, map[string]string{
		"root red":     "is red",
		"red red":      "has red child",
		"black height": "black height",
		"size":         "size",
		"sum":          "sum",
		"parent":       "has parent",
		"order":        "in-order",
		"cycle":        "has parent", // caught by the parent link before the repeat
		"unreachable":  "tree reaches",

		"infinite key":      "invalid key +Inf",
		"NaN key":           "invalid key NaN",
		"link out of range": "link 15 out of range",
		"root out of range": "root 15 out of range with 15 items",
		"root parent":       "want nil",
	}, func(what string) (samplertest.Checker, func()) {
		tr := ost.New(15)
		if what == "unreachable" {
			tr = ost.New(16)
		}
		return tr, func() { tr.Corrupt(what) }
	})
}
