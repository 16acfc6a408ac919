package btree_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/reweighted/reweighted"
	"github.com/reweighted/reweighted/btree"
	"github.com/reweighted/reweighted/samplertest"
)

// TestBadInputChangesNothing checks that every rejected call leaves the
// tree bit for bit as it was (compared with a deep clone), on a tree of two
// inner levels.
func TestBadInputChangesNothing(t *testing.T) {
	const n = 300
	s := btree.New(n)
	rng := rand.New(rand.NewPCG(3, 4))
	for i := range n {
		require.NoError(t, s.Set(i, randomKey(rng, n)))
	}
	require.NoError(t, s.Set(1, reweighted.MaxSum/2))
	require.Equal(t, 2, s.Height())
	// Every bad call, Load included, leaves the tree identical, slot for
	// slot.
	samplertest.RejectsBadInput(t, s, func() any { return s.Clone() })
	before := s.Clone()
	require.ErrorIs(t, s.Set(3, reweighted.MaxSum), reweighted.ErrKey, "MaxSum beside MaxSum/2")
	require.Equal(t, before, s)
	require.NoError(t, s.Check())
}

// Property: after Load(keys) the sampler holds keys, passes Check, and
// gives the distribution of a sampler that reached the same keys by Set
// calls from a random history (same ρ, total variation of Prob within
// 1e-12, the same λ up to rounding), and both pass the exact oracle.
func TestLoadMatchesSets(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(1, 700).Draw(t, "n")
		gen := samplertest.Key(n)
		keys := make([]float64, n)
		for i := range keys {
			keys[i] = gen.Draw(t, "key")
		}
		loaded := btree.New(n)
		// Start from other keys, so that Load replaces a used tree.
		for i := range n {
			require.NoError(t, loaded.Set(i, float64(i%5)))
		}
		if err := loaded.Load(keys); err != nil {
			// Only a sum over MaxSum is refused; then nothing changed.
			require.ErrorIs(t, err, reweighted.ErrKey)
			return
		}
		require.NoError(t, loaded.Check())
		set := btree.New(n)
		for _, i := range rand.New(rand.NewPCG(uint64(n), 9)).Perm(n) {
			require.NoError(t, set.Set(i, keys[i]))
		}
		require.NoError(t, set.Check())
		for i, a := range keys {
			require.Equal(t, math.Float64bits(a+0), math.Float64bits(loaded.Key(i)))
		}
		for _, eps := range samplertest.EdgeEps(n) {
			rho1, lam1, err := loaded.Solve(eps)
			require.NoError(t, err)
			rho2, lam2, err := set.Solve(eps)
			require.NoError(t, err)
			require.Equal(t, rho2, rho1, "ρ at ε = %v", eps)
			require.InDelta(t, lam2, lam1, 1e-12*lam2+math.SmallestNonzeroFloat64, "λ at ε = %v", eps)
			tv := 0.0
			for i := range n {
				p1, err := loaded.Prob(i, eps)
				require.NoError(t, err)
				p2, err := set.Prob(i, eps)
				require.NoError(t, err)
				tv += math.Abs(p1 - p2)
			}
			require.LessOrEqual(t, tv/2, 1e-12, "total variation at ε = %v", eps)
		}
		eps := samplertest.Eps(n).Draw(t, "eps")
		u := samplertest.U().Draw(t, "u")
		require.NoError(t, samplertest.Verify(loaded, keys, eps, []float64{u}))
	})
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

func TestZeroAllocs(t *testing.T) {
	const n = 5000
	s := filled(n, rand.New(rand.NewPCG(7, 8)))
	rng := rand.New(rand.NewPCG(9, 10))
	// Steady state: the node slices have grown to what the history needs.
	for range 20 * n {
		x := rng.NormFloat64()
		require.NoError(t, s.Set(rng.IntN(n), max(x, -x)))
	}
	eps := 0.5 / n
	require.Zero(t, testing.AllocsPerRun(1000, func() {
		x := rng.NormFloat64()
		_ = s.Set(rng.IntN(n), max(x, -x))
	}), "Set")
	require.Zero(t, testing.AllocsPerRun(100, func() { _, _, _ = s.Solve(eps) }), "Solve")
	require.Zero(t, testing.AllocsPerRun(100, func() { _, _, _ = s.Sample(eps, rng.Float64()) }), "Sample")
	require.Zero(t, testing.AllocsPerRun(100, func() { _, _ = s.Prob(rng.IntN(n), eps) }), "Prob")
}

// TestMemory checks the memory bound: at most 40 bytes per item, node
// slices at their capacity, after 10·n SRG steps from a random fill.
func TestMemory(t *testing.T) {
	for _, n := range []int{1 << 10, 1 << 16} {
		rng := rand.New(rand.NewPCG(11, uint64(n)))
		s := filled(n, rng)
		srgSteps(s, 10*n, rng)
		require.NoError(t, s.Check())
		perItem := float64(s.Bytes()) / float64(n)
		t.Logf("n=%d: %.1f bytes per item, %.1f items per leaf", n, perItem, s.Fill())
		require.LessOrEqual(t, perItem, 40.0, "n=%d", n)
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

// TestConcurrentReads runs the read methods from several goroutines at
// once, as the contract allows; under -race it checks that they write
// nothing. The exact fallback (Walk) runs too: at ε = 1/(2n) with keys
// 1, 2, …, the predicate is tight at some rank.
func TestConcurrentReads(t *testing.T) {
	const n = 3000
	s := btree.New(n)
	keys := make([]float64, n)
	for i := range n {
		keys[i] = float64(i%40 + 1)
		require.NoError(t, s.Set(i, keys[i]))
	}
	done := make(chan error, 4)
	for g := range 4 {
		go func() {
			rng := rand.New(rand.NewPCG(uint64(g), 1))
			var probs []float64
			for range 300 {
				eps := samplertest.EpsFromBits(byte(rng.IntN(6)), rng.Uint64(), n)
				if _, _, err := s.Solve(eps); err != nil {
					done <- err
					return
				}
				if _, _, err := s.Sample(eps, rng.Float64()); err != nil {
					done <- err
					return
				}
				if _, err := s.Prob(rng.IntN(n), eps); err != nil {
					done <- err
					return
				}
				var err error
				if probs, err = s.Probs(eps, probs); err != nil {
					done <- err
					return
				}
				_ = s.Key(rng.IntN(n))
			}
			done <- nil
		}()
	}
	for range 4 {
		require.NoError(t, <-done)
	}
	require.NoError(t, s.Check())
	require.NoError(t, samplertest.Verify(s, keys, 1/float64(2*n), []float64{0.5}))
}
