package srg

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/reweighted/reweighted"
	"github.com/reweighted/reweighted/btree"
	"github.com/reweighted/reweighted/libsvm"
	"github.com/reweighted/reweighted/naive"
)

func newBtree(n int) reweighted.Distribution { return btree.New(n) }

// loadedOptimizer returns an SRG optimizer at x whose sampler holds keys.
func loadedOptimizer(t require.TestingT, p *Problem, o Options, x, keys []float64) *optimizer {
	o.Method, o.X0 = SRG, x
	opt, err := newOptimizer(p, o)
	require.NoError(t, err)
	for i, a := range keys {
		require.NoError(t, opt.smp.Set(i, a))
	}
	return opt
}

// Property: after one SRG iteration on a batch of m draws, under either
// protocol, the key of every drawn example is ‖∇f_i(x_k)‖ at the iterate the
// batch was drawn at (a dense gradient as the reference), every other key is
// unchanged, and m updates are counted.
func TestSRGBatchKeysAreGradientNorms(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		p := genProblem(t)
		n := p.Len()
		x := genVec(t, p.Dim(), "x")
		keys := genKeys(t, n)
		eps := genEps(t, n)
		proto := rapid.SampledFrom([]Protocol{WithReplacement, WithoutReplacement}).Draw(t, "protocol")
		m := rapid.IntRange(1, min(n, 5)).Draw(t, "m")
		newSampler := rapid.SampledFrom([]func(int) reweighted.Distribution{newNaive, newBtree}).Draw(t, "sampler")
		opt := loadedOptimizer(t, p, Options{Schedule: Constant{0.1, eps}, Batch: m, Protocol: proto,
			NewSampler: newSampler, Seed: rapid.Uint64().Draw(t, "seed")}, x, keys)
		require.NoError(t, opt.step())
		require.NoError(t, opt.flush()) // a batch of 1 leaves its key to the next draw
		want := append([]float64(nil), keys...)
		g := make([]float64, p.Dim())
		for _, dr := range opt.draws {
			p.Grad(dr.i, x, g)
			want[dr.i] = math.Sqrt(dot(g, g))
		}
		for i, w := range want {
			require.InDelta(t, w, opt.smp.Key(i), 1e-12*math.Max(1, w), "key of example %d", i)
		}
		require.Equal(t, m, opt.keyUpdates)
	})
}

// Property: with replacement, SRG's batch is m independent draws from the
// sampler: the k-th example is the one Sample maps the k-th uniform number of
// the run's source to (u = top 53 bits of a Uint64 times 2⁻⁵³, as
// reweighted.Draw documents), with its probability p, and its weight is the
// importance weight 1/(n p) (1 at ε = 1/n, where p is uniform).
func TestSRGWithReplacementDrawsFromSampler(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(1, 20).Draw(t, "n")
		ds := libsvm.Synthetic(1, n, 2)
		p, err := NewProblem(ds, ds.Labels, Squared, 0)
		require.NoError(t, err)
		keys := genKeys(t, n)
		eps := genEps(t, n)
		m := rapid.IntRange(1, 2*n).Draw(t, "m")
		opt := loadedOptimizer(t, p, Options{Schedule: Constant{0.1, eps}, Batch: m, NewSampler: newNaive,
			Seed: rapid.Uint64().Draw(t, "seed")}, make([]float64, 2), keys)
		ref, _ := loaded(t, keys, eps)
		for range 3 {
			twin := *opt.src
			require.NoError(t, opt.sampleBatch(eps))
			for k, dr := range opt.draws {
				u := float64(twin.Uint64()>>11) * 0x1p-53
				i, pi, err := ref.Sample(eps, u)
				require.NoError(t, err)
				require.Equal(t, i, dr.i, "draw %d", k)
				require.Equal(t, pi, dr.p, "draw %d", k)
				w := 1 / (float64(n) * pi)
				if eps == 1/float64(n) {
					w = 1
				}
				require.Equal(t, w, dr.w, "draw %d", k)
			}
		}
	})
}

// A batch of key updates that the sampler refuses (one gradient norm
// overflows to +Inf) is an error, and changes no key, not even those of the
// examples before the bad one in the batch: the sampler is deep-equal to
// its state before the iteration.
func TestSRGRejectedKeyUpdateChangesNoKey(t *testing.T) {
	ds := &libsvm.Dataset{Ptr: []int{0, 1, 2, 3}, Idx: []int32{0, 0, 0}, Val: []float64{1, 1e300, 2}, D: 1,
		Labels: []float64{0, 0, 0}}
	p, err := NewProblem(ds, ds.Labels, Squared, 0)
	require.NoError(t, err)
	keys := []float64{0.5, 1, 2}
	for _, proto := range []Protocol{WithReplacement, WithoutReplacement} {
		opt := loadedOptimizer(t, p, Options{Schedule: Constant{0.1, 1.0 / 6}, Batch: 3, Protocol: proto,
			NewSampler: newNaive}, []float64{1}, keys)
		before := naive.New(3)
		require.NoError(t, before.Load(keys))
		// Example 0 first: a loop of Set would change its key before
		// meeting example 1's infinite one.
		copy(opt.draws, []draw{{i: 0, w: 1, p: 1.0 / 3}, {i: 1, w: 1, p: 1.0 / 3}, {i: 2, w: 1, p: 1.0 / 3}})
		err := opt.apply(0.1, 1.0/6)
		require.ErrorIs(t, err, reweighted.ErrKey, "%v", proto)
		require.Equal(t, before, opt.smp, "%v", proto)
		require.Zero(t, opt.keyUpdates, "%v", proto)
	}
}
