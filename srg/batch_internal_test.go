package srg

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/reweighted/reweighted/libsvm"
)

// orderedBatches calls f with every ordered batch of m distinct items of n
// and its probability under ordered successive sampling from p,
// Π_k p_{i_k}/(1 − Σ_{j<k} p_{i_j}). The mass left is summed over the items
// left, not subtracted from 1, so that it does not cancel.
func orderedBatches(p []float64, m int, f func(items []int, prob float64)) {
	n := len(p)
	used := make([]bool, n)
	items := make([]int, 0, m)
	var rec func(prob float64)
	rec = func(prob float64) {
		if len(items) == m {
			f(items, prob)
			return
		}
		var left float64
		for i, pi := range p {
			if !used[i] {
				left += pi
			}
		}
		for i, pi := range p {
			if used[i] || pi == 0 {
				continue
			}
			used[i] = true
			items = append(items, i)
			rec(prob * pi / left)
			items = items[:len(items)-1]
			used[i] = false
		}
	}
	rec(1)
}

// genProbs draws a distribution over n items whose every partial sum is
// exact in float64: p_i = k_i/2^s with integers k_i ≥ 1 summing to 2^s,
// some of them tiny next to the others. Then 1 − Σ_{j<k} p_{i_j}, which the
// estimator computes, and the mass left, which the enumeration sums, agree
// exactly, and only the estimator's own rounding is measured.
func genProbs(t *rapid.T, n int) []float64 {
	ks := make([]int, n)
	sum := 0
	for i := range n - 1 {
		ks[i] = rapid.SampledFrom([]int{1, 2, 3, 7, 64, 1000, 1 << 20}).Draw(t, "k")
		sum += ks[i]
	}
	total := 1
	for total <= sum {
		total *= 2
	}
	ks[n-1] = total - sum
	p := make([]float64, n)
	for i, k := range ks {
		p[i] = float64(k) / float64(total)
	}
	return p
}

// Property: Des Raj's estimator is unbiased under ordered successive
// sampling. Summing (1/m) Σ_k w[k]·y_{i_k} over every ordered batch of m of
// n ≤ 6 items, each with its exact probability, gives the mean (1/n) Σ y_i,
// for any p > 0 and any values y.
func TestDesRajUnbiasedByEnumeration(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(1, 6).Draw(t, "n")
		m := rapid.IntRange(1, n).Draw(t, "m")
		p := genProbs(t, n)
		y := rapid.SliceOfN(rapid.Float64Range(-10, 10), n, n).Draw(t, "y")
		var want float64
		for _, v := range y {
			want += v / float64(n)
		}
		w := make([]float64, m)
		probs := make([]float64, m)
		// scale is E[(1/m) Σ_k |w[k]·y_{i_k}|], the size of the terms whose
		// rounding errors the sum accumulates.
		var got, total, scale float64
		orderedBatches(p, m, func(items []int, prob float64) {
			for k, i := range items {
				probs[k] = p[i]
			}
			DesRajWeights(n, probs, w)
			var est, abs float64
			for k, i := range items {
				est += w[k] * y[i] / float64(m)
				abs += math.Abs(w[k] * y[i] / float64(m))
			}
			got += prob * est
			scale += prob * abs
			total += prob
		})
		require.InDelta(t, 1, total, 1e-12, "the batch probabilities sum to 1")
		require.InDelta(t, want, got, 1e-12*(1+scale), "E[estimate] vs the mean of y")
	})
}

// TestDesRajBiasOfPlainWeights shows that the correction matters: on the
// same enumeration, the plain importance weights 1/(n p) are biased without
// replacement (here by more than 1e-3 of the mean) where Des Raj's are not.
func TestDesRajBiasOfPlainWeights(t *testing.T) {
	p := []float64{0.5, 0.2, 0.1, 0.1, 0.1}
	y := []float64{1, 1, 1, 1, 1}
	n, m := len(p), 3
	var want float64
	for _, v := range y {
		want += v / float64(n)
	}
	var plain float64
	orderedBatches(p, m, func(items []int, prob float64) {
		var est float64
		for _, i := range items {
			est += y[i] / (float64(n) * p[i]) / float64(m)
		}
		plain += prob * est
	})
	require.Greater(t, math.Abs(plain-want), 1e-3*want, "plain weights: E = %v, mean = %v", plain, want)
}

// Property: an SRG step on a batch drawn without replacement and weighted
// by DesRajWeights is unbiased: the expectation of x_{k+1} over every
// ordered batch of m ≤ 3 distinct examples, with its exact probability, is
// the gradient step x − α∇F(x).
func TestSRGWithoutReplacementStepUnbiased(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		p := genProblem(t)
		n := p.Len()
		if n > 7 {
			t.Skip("enumeration of ordered batches kept small")
		}
		m := rapid.IntRange(1, min(n, 3)).Draw(t, "m")
		x := genVec(t, p.Dim(), "x")
		keys := genKeys(t, n)
		// ε ≥ 1/(4n) keeps the mass left after any batch above 1/4, so
		// that 1 − Σ p, computed from the sampler's rounded p, is accurate
		// to a few ulps (TestDesRajUnbiasedByEnumeration covers tiny masses).
		eps := rapid.SampledFrom([]float64{1, 0.5, 0.25}).Draw(t, "epsScale") / float64(n)
		_, ps := loaded(t, keys, eps)
		mean := make([]float64, p.Dim())
		w := make([]float64, m)
		probs := make([]float64, m)
		orderedBatches(ps, m, func(items []int, prob float64) {
			for k, i := range items {
				probs[k] = ps[i]
			}
			DesRajWeights(n, probs, w)
			draws := make([]draw, m)
			for k, i := range items {
				draws[k] = draw{i: i, w: w[k], p: ps[i]}
			}
			xi := stepFrom(t, p, SRG, x, keys, 0.5, eps, draws)
			for c := range mean {
				mean[c] += prob * xi[c]
			}
		})
		requireClose(t, gdStep(p, x, 0.5), mean, 1e-12, "batch without replacement")
	})
}

// Property: without replacement, the batches of SGD, SRG and SVRG hold m distinct
// examples, and SRG's weights are DesRajWeights of the probabilities drawn,
// or 1 at ε = 1/n, where p is uniform and the plain mean is unbiased.
func TestWithoutReplacementBatches(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(1, 30).Draw(t, "n")
		m := rapid.IntRange(1, n).Draw(t, "m")
		ds := libsvm.Synthetic(rapid.Uint64().Draw(t, "seed"), n, 3)
		p, err := NewProblem(ds, ds.Labels, Squared, 0)
		require.NoError(t, err)
		// Reshuffled walks a permutation: a batch that spans two epochs may
		// repeat an example, whatever the protocol.
		meth := rapid.SampledFrom([]Method{SGD, SRG, SVRG}).Draw(t, "method")
		eps := rapid.SampledFrom([]float64{1 / (2 * float64(n)), 1 / float64(n)}).Draw(t, "eps")
		opt, err := newOptimizer(p, Options{Method: meth, Schedule: Constant{0.1, eps}, Batch: m,
			Protocol: WithoutReplacement, NewSampler: newNaive, Seed: rapid.Uint64().Draw(t, "run")})
		require.NoError(t, err)
		if meth == SRG {
			for i := range n {
				require.NoError(t, opt.smp.Set(i, float64(i%4)))
			}
		}
		for range 5 {
			require.NoError(t, opt.sampleBatch(eps))
			seen := map[int]bool{}
			for _, dr := range opt.draws {
				require.False(t, seen[dr.i], "example %d twice in one batch", dr.i)
				seen[dr.i] = true
			}
			if meth == SRG {
				probs := make([]float64, m)
				for k, dr := range opt.draws {
					probs[k] = dr.p
				}
				w := make([]float64, m)
				if eps == 1/float64(n) {
					for k := range w {
						w[k] = 1
					}
				} else {
					DesRajWeights(n, probs, w)
				}
				for k, dr := range opt.draws {
					require.Equal(t, w[k], dr.w)
				}
			}
		}
	})
}

// TestWithoutReplacementBatchTooLarge checks that a batch larger than n
// without replacement is refused.
func TestWithoutReplacementBatchTooLarge(t *testing.T) {
	ds := libsvm.Synthetic(1, 5, 2)
	p, err := NewProblem(ds, ds.Labels, Squared, 0)
	require.NoError(t, err)
	_, err = Run(p, Options{Method: SGD, Schedule: Constant{0.1, 0.1}, Batch: 6, Protocol: WithoutReplacement, Epochs: 1})
	require.Error(t, err)
}

// TestNaNInput checks that a NaN or infinite label or feature is refused by
// NewProblem, and that Solve reports a NaN gradient as an error.
func TestNaNInput(t *testing.T) {
	ds := libsvm.Synthetic(1, 5, 2)
	for _, bad := range []float64{math.NaN(), math.Inf(1)} {
		y := append([]float64(nil), ds.Labels...)
		y[2] = bad
		_, err := NewProblem(ds, y, Squared, 0)
		require.Error(t, err, "label %v", bad)

		d2 := *ds
		d2.Val = append([]float64(nil), ds.Val...)
		d2.Val[3] = bad
		_, err = NewProblem(&d2, ds.Labels, Squared, 0)
		require.Error(t, err, "feature %v", bad)
	}
	p, err := NewProblem(ds, append([]float64(nil), ds.Labels...), Squared, 0)
	require.NoError(t, err)
	p.Y[0] = math.NaN() // past validation, as a caller mutating Y would
	_, err = p.Solve(1e-12)
	require.Error(t, err)
}
