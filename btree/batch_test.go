package btree_test

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/reweighted/reweighted/btree"
	"github.com/reweighted/reweighted/samplertest"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// TestUpdateBatchIsUpdateEach checks the property "UpdateBatch leaves the
// tree node for node as Update of each change in turn": the same leaves,
// inner nodes, free lists, item → leaf map, counts and sums, bit for bit,
// on trees of one to four levels, with batches that split, borrow and
// merge, and keys with ties.
func TestUpdateBatchIsUpdateEach(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.SampledFrom([]int{1, 5, 17, 40, 300, 3000}).Draw(t, "n")
		seed := rapid.Uint64().Draw(t, "seed")
		rng := rand.New(rand.NewPCG(seed, 1))
		pool := []float64{1, 2, 0, 0.5}
		key := func() float64 {
			if rng.IntN(3) == 0 {
				return pool[rng.IntN(len(pool))]
			}
			return samplertest.KeyFromBits(byte(rng.IntN(6)), rng.Uint64(), 4*n)
		}
		s := btree.New(n)
		for i := range n {
			require.NoError(t, s.Set(i, key()))
		}
		for range rapid.IntRange(1, 4).Draw(t, "batches") {
			m := rapid.IntRange(1, min(n, 200)).Draw(t, "m")
			items := rng.Perm(n)[:m]
			slices.Sort(items)
			keys := make([]float64, m)
			for k, i := range items {
				// A key different from the item's own, as the driver hands.
				for keys[k] = key(); keys[k] == s.Key(i); keys[k] = key() {
				}
			}
			each := s.Clone()
			each.UpdateEach(items, keys)
			s.UpdateBatch(items, keys)
			// Clone recounts the zeros the raw updates leave stale.
			require.Equal(t, each.Clone(), s.Clone(), "UpdateBatch of %d changes at n = %d", m, n)
			require.NoError(t, s.CheckIndex())
		}
	})
}

// TestSetBatchIsSetEach checks the same through the driver, on a tree of
// four levels whose batches of 128 move items between most leaves: the
// sampler after SetBatch equals, node for node, the sampler after Set of
// each distinct change in increasing order of items.
func TestSetBatchIsSetEach(t *testing.T) {
	const n, m = 50_000, 128
	rng := rand.New(rand.NewPCG(3, 3))
	s := btree.New(n)
	for i := range n {
		require.NoError(t, s.Set(i, math.Abs(rng.NormFloat64())))
	}
	for range 50 {
		items := rng.Perm(n)[:m]
		keys := make([]float64, m)
		for k := range keys {
			keys[k] = math.Abs(rng.NormFloat64())
		}
		each := s.Clone()
		order := slices.Clone(items)
		slices.Sort(order)
		for _, i := range order {
			require.NoError(t, each.Set(i, keys[slices.Index(items, i)]))
		}
		require.NoError(t, s.SetBatch(items, keys))
		require.Equal(t, each, s)
	}
	require.NoError(t, s.Check())
}
