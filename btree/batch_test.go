package btree_test

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/reweighted/reweighted/btree"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// TestSetBatchIsSetEach checks the property "SetBatch leaves the keys and
// the canonical order that Set of each change in turn leaves, with every
// invariant of the tree" on a tree of four inner levels whose batches of 128
// move items between most leaves. The two trees may differ in shape: the
// batch path rebalances once per batch.
func TestSetBatchIsSetEach(t *testing.T) {
	const n, m = 50_000, 128
	rng := rand.New(rand.NewPCG(3, 3))
	s := btree.New(n)
	for i := range n {
		require.NoError(t, s.Set(i, math.Abs(rng.NormFloat64())))
	}
	each := s.Clone()
	for range 50 {
		items := rng.Perm(n)[:m]
		keys := make([]float64, m)
		for k := range keys {
			keys[k] = math.Abs(rng.NormFloat64())
		}
		for k, i := range items {
			require.NoError(t, each.Set(i, keys[k]))
		}
		require.NoError(t, s.SetBatch(items, keys))
		require.Equal(t, order(each), order(s))
		require.NoError(t, s.Check())
	}
	require.Equal(t, 4, s.Height(), "four inner levels")
}

// order returns the items of s in canonical order with their keys' bits.
func order(s *btree.Sampler) [][2]uint64 {
	var o [][2]uint64
	s.WalkKeys(1, s.Len(), func(i int, a float64) { o = append(o, [2]uint64{uint64(i), math.Float64bits(a)}) })
	return o
}

// TestUpdateBatchRestructures checks the same property where a batch
// reshapes the tree most: keys drawn from a few values and their
// neighbours a few ulps off (ties broken by index, near-ties by the key),
// batches from one item to every item (leaves emptied, merged, split, the
// root grown and shrunk), items repeated (the last key wins), and keys set
// to 0.
func TestUpdateBatchRestructures(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.SampledFrom([]int{1, 2, 9, 17, 40, 300, 2000}).Draw(t, "n")
		base := rapid.SampledFrom([]float64{1, 0x1p-40, 3e20}).Draw(t, "base")
		key := func() float64 {
			a := base * float64(rapid.IntRange(0, 4).Draw(t, "value"))
			for range rapid.IntRange(0, 3).Draw(t, "ulps") {
				a = math.Nextafter(a, math.Inf(1))
			}
			return a
		}
		s := btree.New(n)
		each := s.Clone()
		for range rapid.IntRange(1, 4).Draw(t, "batches") {
			m := rapid.IntRange(1, 2*n).Draw(t, "m")
			items, keys := make([]int, m), make([]float64, m)
			for k := range items {
				items[k] = rapid.IntRange(0, n-1).Draw(t, "item")
				keys[k] = key()
			}
			for k, i := range items {
				require.NoError(t, each.Set(i, keys[k]))
			}
			require.NoError(t, s.SetBatch(items, keys))
			require.Equal(t, order(each), order(s))
			require.NoError(t, s.Check())
		}
	})
}

// TestSelectSumsIsSelectSum checks the property "SelectSums answers every
// target as SelectSum does, bit for bit" on trees of one to four levels,
// at targets on and next to every partial sum, summed in rank order (an
// association other than the tree's, so that some fall off a subtree: no
// partial sum inside the child entered exceeds them), past the total, and
// at scales other than 1; sorted, as the driver hands them, and in any
// order, which the tree must serve too.
func TestSelectSumsIsSelectSum(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.SampledFrom([]int{1, 7, 40, 300, 5000}).Draw(t, "n")
		rng := rand.New(rand.NewPCG(rapid.Uint64().Draw(t, "seed"), 2))
		s := btree.New(n)
		for i := range n {
			a := rng.Float64() * math.Ldexp(1, rng.IntN(60)-30)
			if rng.IntN(4) == 0 {
				a = float64(rng.IntN(3))
			}
			require.NoError(t, s.Set(i, a))
		}
		scale := rapid.SampledFrom([]float64{1, 0x1p-3, 0x1p200}).Draw(t, "scale")
		var targets []float64
		sum := 0.0
		s.WalkKeys(1, n, func(_ int, a float64) {
			sum += a
			x := sum * scale
			targets = append(targets, x, math.Nextafter(x, 0), math.Nextafter(x, math.Inf(1)))
		})
		targets = append(targets, 0, math.Inf(1))
		if rapid.Bool().Draw(t, "sorted") {
			slices.Sort(targets)
		} else {
			rng.Shuffle(len(targets), func(i, j int) { targets[i], targets[j] = targets[j], targets[i] })
		}
		m := len(targets)
		items, ranks, keys := make([]int, m), make([]int, m), make([]float64, m)
		s.SelectSums(targets, scale, items, ranks, keys)
		for q, x := range targets {
			i, r, a := s.SelectSum(x, scale)
			require.Equal(t, [3]uint64{uint64(i), uint64(r), math.Float64bits(a)},
				[3]uint64{uint64(items[q]), uint64(ranks[q]), math.Float64bits(keys[q])},
				"target %v (scale %v): SelectSum (%d, %d, %v), SelectSums (%d, %d, %v)", x, scale, i, r, a, items[q], ranks[q], keys[q])
		}
	})
}
