package reweighted_test

import (
	"math/rand/v2"
	"testing"

	"github.com/reweighted/reweighted"
	"github.com/reweighted/reweighted/btree"
	"github.com/reweighted/reweighted/naive"
	"github.com/reweighted/reweighted/samplertest"
	"github.com/stretchr/testify/require"
)

// plain hides every method of a backend but those of Sampler: neither
// BatchSampler nor BatchSetter, so DrawBatch and SetBatch take their
// fallbacks.
type plain struct{ reweighted.Sampler }

// TestFallbacks runs the kit's batch checks over backends without their
// fast paths: DrawBatch calling Sample once per number, and SetBatch by Set,
// decreases first, with undo on refusal.
func TestFallbacks(t *testing.T) {
	var s reweighted.Sampler = plain{naive.New(1)}
	_, fast := s.(reweighted.BatchSampler)
	require.False(t, fast, "plain hides SampleBatch")
	_, fast = s.(reweighted.BatchSetter)
	require.False(t, fast, "plain hides SetBatch")
	t.Run("naive", func(t *testing.T) {
		samplertest.RunBatch(t, func(n int) reweighted.Sampler { return plain{naive.New(n)} })
	})
	t.Run("btree", func(t *testing.T) {
		samplertest.RunBatch(t, func(n int) reweighted.Sampler { return plain{btree.New(n)} })
	})
}

// TestFallbackDrawsAsFastPath: DrawBatch over a sampler without the fast
// path returns what it returns with it, item for item, from the same seed.
func TestFallbackDrawsAsFastPath(t *testing.T) {
	const n = 500
	rng := rand.New(rand.NewPCG(1, 1))
	s := btree.New(n)
	for i := range n {
		require.NoError(t, s.Set(i, float64(rng.IntN(4))*rng.ExpFloat64()))
	}
	for _, eps := range []float64{0, 1.0 / (2 * n), 1.0 / n} {
		for _, replace := range []bool{false, true} {
			for seed := range uint64(5) {
				a, pa := make([]int, 200), make([]float64, 200)
				b, pb := make([]int, 200), make([]float64, 200)
				require.NoError(t, reweighted.DrawBatch(s, eps, rand.NewPCG(seed, 2), replace, a, pa))
				require.NoError(t, reweighted.DrawBatch(plain{s}, eps, rand.NewPCG(seed, 2), replace, b, pb))
				require.Equal(t, a, b, "ε = %v, replace = %v", eps, replace)
				require.Equal(t, pa, pb, "ε = %v, replace = %v", eps, replace)
			}
		}
	}
}

// On a sampler with no items every batch call returns ErrEmpty first, an
// empty batch included, with or without the sampler's own fast path: ErrEmpty
// comes before the arguments, as for DrawBatch.
func TestEmptySamplerBatchCalls(t *testing.T) {
	for name, s := range map[string]reweighted.Sampler{"btree": btree.New(0), "plain": plain{naive.New(0)}} {
		t.Run(name, func(t *testing.T) {
			require.ErrorIs(t, reweighted.SetBatch(s, nil, nil), reweighted.ErrEmpty)
			require.ErrorIs(t, reweighted.SetBatch(s, []int{0}, nil), reweighted.ErrEmpty, "ErrEmpty before ErrBatch")
			require.ErrorIs(t, reweighted.DrawBatch(s, 0, rand.NewPCG(1, 2), false, nil, nil), reweighted.ErrEmpty)
		})
	}
	require.ErrorIs(t, btree.New(0).SetBatch(nil, nil), reweighted.ErrEmpty, "the driver's own SetBatch")
}

// Prob and Draw word a bad ε the same way.
func TestEpsilonWording(t *testing.T) {
	s := btree.New(4)
	_, perr := s.Prob(0, 0.5)
	_, _, derr := reweighted.Draw(s, 0.5, rand.NewPCG(1, 2))
	require.ErrorIs(t, perr, reweighted.ErrEpsilon)
	require.ErrorIs(t, derr, reweighted.ErrEpsilon)
	require.Equal(t, perr.Error(), derr.Error())
	require.Contains(t, derr.Error(), "ε = 0.5 not in [0, 1/4]")
}

// Load with a key count other than n is a length mismatch, ErrBatch, and
// changes nothing.
func TestLoadLengthMismatch(t *testing.T) {
	s := btree.New(3)
	require.NoError(t, s.Load([]float64{1, 2, 3}))
	err := s.Load([]float64{1, 2})
	require.ErrorIs(t, err, reweighted.ErrBatch)
	require.NotErrorIs(t, err, reweighted.ErrIndex)
	require.Equal(t, []float64{1, 2, 3}, []float64{s.Key(0), s.Key(1), s.Key(2)})
}

// A batch refused for MaxSum by SetBatch's fallback leaves the sampler as
// it was, bit for bit, on btree, whose sums depend on its shape: the case
// rapid found (seed 5428673470182884144), where one item was set and then
// restored before the refusal, and Solve's λ moved by an ulp.
func TestFallbackMaxSumRefusalChangesNothing(t *testing.T) {
	s := plain{btree.New(17)}
	for i, a := range map[int]float64{0: 1, 1: 1, 2: 1, 3: 1, 4: 7.15972597961874e+249, 5: 3.57986298980937e+249,
		6: 7.159725979618741e+248, 16: 0.05 * reweighted.MaxSum} {
		require.NoError(t, s.Set(i, a))
	}
	before := samplertest.Observe(s)
	err := reweighted.SetBatch(s, []int{0, 0, 0, 7, 0}, []float64{0, 0, 1, 1, 7.15972597961874e+249})
	require.ErrorIs(t, err, reweighted.ErrKey)
	require.Equal(t, before, samplertest.Observe(s))
}

// setCounter is a plain sampler that counts the calls of Set.
type setCounter struct {
	reweighted.Sampler
	sets int
}

func (c *setCounter) Set(i int, a float64) error {
	c.sets++
	return c.Sampler.Set(i, a)
}

// SetBatch's fallback refuses a batch past MaxSum before it calls Set,
// also when the sum after it exceeds MaxSum by a relative 2^-30 only, far
// inside any rounding that a float total, with its slack of 2^-16, could
// wave through; a batch that lands exactly on MaxSum is taken. A refusal
// found only by Set, then undone, would change the order of btree's sums.
func TestFallbackRefusesPastMaxSumBeforeAnySet(t *testing.T) {
	for _, tc := range []struct {
		name string
		last float64 // the new key of item 1, the others summing to MaxSum/2
		ok   bool
	}{
		{"over by 2^-30", reweighted.MaxSum / 2 * (1 + 0x1p-29), false},
		{"over by 2^-20", reweighted.MaxSum / 2 * (1 + 0x1p-19), false},
		{"at MaxSum", reweighted.MaxSum / 2, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &setCounter{Sampler: plain{btree.New(4)}}
			require.NoError(t, s.Sampler.Set(0, reweighted.MaxSum/4))
			require.NoError(t, s.Sampler.Set(2, reweighted.MaxSum/4))
			before := samplertest.Observe(s)
			err := reweighted.SetBatch(s, []int{3, 1}, []float64{0, tc.last})
			if tc.ok {
				require.NoError(t, err)
				require.Equal(t, tc.last, s.Key(1))
				return
			}
			require.ErrorIs(t, err, reweighted.ErrKey)
			require.ErrorContains(t, err, "would sum to more than MaxSum")
			require.Zero(t, s.sets, "Set called before the refusal")
			require.Equal(t, before, samplertest.Observe(s))
		})
	}
}
