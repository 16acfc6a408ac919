package btree_test

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/reweighted/reweighted"
	"github.com/reweighted/reweighted/btree"
	"github.com/reweighted/reweighted/samplertest"
)

// TestNewIsValid: a new tree of any size passes Check and holds zeros.
func TestNewIsValid(t *testing.T) {
	for n := range 600 {
		s := btree.New(n)
		require.NoError(t, s.Check(), "n=%d", n)
		require.Equal(t, n, s.Len())
		for i := range n {
			require.Zero(t, s.Key(i))
		}
	}
	for _, n := range []int{4095, 4096, 4097, 100_000} {
		require.NoError(t, btree.New(n).Check(), "n=%d", n)
	}
}

// TestBadInputChangesNothing checks that every rejected call leaves the
// tree bit for bit as it was (compared with a deep clone), on a tree of two
// inner levels.
func TestBadInputChangesNothing(t *testing.T) {
	s := btree.New(300)
	samplertest.RejectsBadInput(t, s, s.Clone)
	require.Equal(t, 2, s.Height())
}

// TestBadBatchChangesNothing checks that every batch SetBatch rejects
// leaves the structure identical, node for node.
func TestBadBatchChangesNothing(t *testing.T) {
	s := btree.New(300)
	samplertest.RejectsBadBatch(t, s, s.Clone)
}

// TestLoadReusesNodes checks that Load of the same size reuses the node
// slices: a steady stream of Loads does not grow the tree.
func TestLoadReusesNodes(t *testing.T) {
	const n = 5000
	s := btree.New(n)
	rng := rand.New(rand.NewPCG(5, 6))
	keys := make([]float64, n)
	for range 5 {
		for i := range keys {
			keys[i] = rng.Float64()
		}
		require.NoError(t, s.Load(keys))
		require.NoError(t, s.Check())
	}
	b := s.Bytes()
	require.NoError(t, s.Load(keys))
	require.Equal(t, b, s.Bytes())
}

// TestMemory checks the memory bound: at most 40 bytes per item, node
// slices at their capacity, after 10·n SRG steps from a random fill, and
// at 2^16 holds Bytes, on which that bound rests, against the heap.
func TestMemory(t *testing.T) {
	for _, batch := range []bool{false, true} {
		for _, n := range []int{1 << 10, 1 << 16} {
			if batch && n < 1<<16 {
				// A batch's scratch grows with its size m (about 70 bytes
				// per entry): only at n ≫ m is it a few bytes per item.
				continue
			}
			rng := rand.New(rand.NewPCG(11, uint64(n)))
			s := filled(n, rng)
			if batch {
				srgBatches(s, 10*n, rng)
			} else {
				srgSteps(s, 10*n, rng)
			}
			require.NoError(t, s.Check())
			perItem := float64(s.Bytes()) / float64(n)
			t.Logf("n=%d, batches %v: %.1f bytes per item, %.1f items per leaf", n, batch, perItem, s.Fill())
			require.LessOrEqual(t, perItem, 40.0, "n=%d, batches %v", n, batch)
			// And no less than what the items themselves hold: a key (8
			// bytes) and an item number (4) in a leaf, and a leaf number (4)
			// in the item → leaf map, so that Bytes cannot under-count.
			require.GreaterOrEqual(t, perItem, 16.0, "n=%d, batches %v", n, batch)
			if n < 1<<16 || samplertest.RaceEnabled {
				// At 2^10 the sampler's fixed structures and the
				// allocator's rounding of its small blocks are 7% of the
				// heap it holds; the race detector adds heap of its own.
				continue
			}
			// Bytes is what the memory target rests on: the heap that
			// dropping the sampler frees lies within [0.995, 1.02]·Bytes
			// (measured: 0.6% above, the allocator's rounding of large
			// blocks to whole pages and the fixed structures).
			b := float64(s.Bytes())
			heap := float64(samplertest.HeldBy(&s))
			t.Logf("n=%d, batches %v: heap/Bytes %.4f", n, batch, heap/b)
			require.GreaterOrEqual(t, heap, 0.995*b, "n=%d, batches %v: Bytes counts more than the heap holds", n, batch)
			require.LessOrEqual(t, heap, 1.02*b, "n=%d, batches %v: the heap holds more than Bytes counts", n, batch)
		}
	}
}

// srgBatches runs about steps SRG steps in batches of 128, as srg does:
// DrawBatch without replacement at ε = 1/(2n), then SetBatch of the items
// drawn to fresh |N(0,1)| keys.
func srgBatches(s *btree.Sampler, steps int, rng *rand.Rand) {
	const m = 128
	eps := 1 / float64(2*s.Len())
	items, probs, keys := make([]int, m), make([]float64, m), make([]float64, m)
	for range steps / m {
		if err := reweighted.DrawBatch(s, eps, rng, false, items, probs); err != nil {
			panic(err)
		}
		for k := range keys {
			x := rng.NormFloat64()
			keys[k] = max(x, -x)
		}
		if err := s.SetBatch(items, keys); err != nil {
			panic(err)
		}
	}
}

// srgSteps runs steps SRG steps (Sample at ε = 1/(2n), then Set of the
// drawn item to a fresh |N(0,1)| key), as the bench package does.
func srgSteps(s *btree.Sampler, steps int, rng *rand.Rand) {
	eps := 1 / float64(2*s.Len())
	for range steps {
		i, _, err := s.Sample(eps, rng.Float64())
		if err != nil {
			panic(err)
		}
		x := rng.NormFloat64()
		if err := s.Set(i, max(x, -x)); err != nil {
			panic(err)
		}
	}
}
