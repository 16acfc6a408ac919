package srg_test

import (
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/reweighted/reweighted"
	"github.com/reweighted/reweighted/naive"
	"github.com/reweighted/reweighted/srg"
)

// successiveBatches calls f with every ordered batch of m distinct items of
// n and its exact probability under ordered successive sampling from p as
// reweighted.DrawBatch performs it: the next item is i with probability
// p_i/Σ_{left} p_j while the items left have mass, and uniformly among the
// items left once they all have p = 0.
func successiveBatches(p []*big.Rat, m int, f func(items []int, prob *big.Rat)) {
	n := len(p)
	used := make([]bool, n)
	items := make([]int, 0, m)
	var rec func(prob *big.Rat)
	rec = func(prob *big.Rat) {
		if len(items) == m {
			f(items, prob)
			return
		}
		mass := new(big.Rat)
		for i := range p {
			if !used[i] {
				mass.Add(mass, p[i])
			}
		}
		for i := range p {
			if used[i] {
				continue
			}
			var q *big.Rat
			switch {
			case mass.Sign() == 0:
				q = big.NewRat(1, int64(n-len(items)))
			case p[i].Sign() == 0:
				continue
			default:
				q = new(big.Rat).Quo(p[i], mass)
			}
			used[i] = true
			items = append(items, i)
			rec(new(big.Rat).Mul(prob, q))
			items = items[:len(items)-1]
			used[i] = false
		}
	}
	rec(big.NewRat(1, 1))
}

func rat(x float64) *big.Rat { return new(big.Rat).SetFloat64(x) }

// desRajExpectation returns, in exact arithmetic over every ordered batch,
// E[(1/m) Σ_k w[k]·y_{i_k}] with w from DesRajWeights, the total probability
// of the batches, and E[(1/m) Σ_k |w[k]·y_{i_k}|], the size of the terms
// whose float weights carry rounding.
func desRajExpectation(p, y []float64, m int) (mean, total, scale *big.Rat) {
	n := len(p)
	pr := make([]*big.Rat, n)
	for i, v := range p {
		pr[i] = rat(v)
	}
	mean, total, scale = new(big.Rat), new(big.Rat), new(big.Rat)
	probs, w := make([]float64, m), make([]float64, m)
	mr := big.NewRat(int64(m), 1)
	successiveBatches(pr, m, func(items []int, prob *big.Rat) {
		for k, i := range items {
			probs[k] = p[i]
		}
		srg.DesRajWeights(n, probs, w)
		for k, i := range items {
			term := new(big.Rat).Mul(rat(w[k]), rat(y[i]))
			term.Quo(term, mr).Mul(term, prob)
			mean.Add(mean, term)
			scale.Add(scale, term.Abs(term))
		}
		total.Add(total, prob)
	})
	return mean, total, scale
}

// Property: Des Raj's estimator stays unbiased when the batch outgrows the
// items of positive probability. DrawBatch then draws the rest uniformly among
// the items of p = 0 (reported with p = 0), and their values y need not be 0
// (an SRG example whose stored key is 0 may have a nonzero gradient); a
// batch that does not outgrow them is unbiased when those y are 0.
// Enumerating every ordered batch of m of n ≤ 6 items with its exact
// probability (math/big) gives E[(1/m) Σ_k w[k]·y_{i_k}] = (1/n) Σ_i y_i up
// to the rounding of the float weights.
func TestDesRajUnbiasedWithZeroProbabilities(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(2, 6).Draw(t, "n")
		zeros := rapid.IntRange(1, n-1).Draw(t, "zeros")
		m := rapid.IntRange(1, n).Draw(t, "m")
		// The positive p_i = k_i/2^s sum to exactly 1, so that the items
		// left have mass exactly 0 once the positive ones are drawn, in the
		// enumeration as in DrawBatch.
		pos := n - zeros
		ks := rapid.SliceOfN(rapid.SampledFrom([]int{1, 2, 3, 7, 64, 1000}), pos-1, pos-1).Draw(t, "k")
		sum := 0
		for _, k := range ks {
			sum += k
		}
		pow := 1
		for pow <= sum {
			pow *= 2
		}
		ks = append(ks, pow-sum)
		perm := rapid.Permutation(seqInts(n)).Draw(t, "where")
		p := make([]float64, n)
		for j, k := range ks {
			p[perm[j]] = float64(k) / float64(pow)
		}
		y := rapid.SliceOfN(rapid.Float64Range(-10, 10), n, n).Draw(t, "y")
		if m <= pos {
			// The items of p = 0 are never drawn: only their y = 0, as
			// importance sampling assumes, leaves the mean unbiased.
			for i := range y {
				if p[i] == 0 {
					y[i] = 0
				}
			}
		}
		want := new(big.Rat)
		for _, v := range y {
			want.Add(want, rat(v))
		}
		want.Quo(want, big.NewRat(int64(n), 1))
		got, total, scale := desRajExpectation(p, y, m)
		require.Equal(t, 0, total.Cmp(big.NewRat(1, 1)), "the batch probabilities sum to %v", total)
		diff := new(big.Rat).Sub(got, want)
		tol := new(big.Rat).Mul(scale, rat(0x1p-40))
		require.True(t, diff.Abs(diff).Cmp(tol) <= 0, "E[estimate] = %v, mean = %v (p = %v, m = %d)",
			got.FloatString(15), want.FloatString(15), p, m)
	})
}

func seqInts(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = i
	}
	return s
}

// TestDesRajZeroProbabilityWeights checks the weights of items of p = 0
// on examples worked by hand. With p = (1/2, 1/2, 0, 0) the two positive
// items are drawn first; the m − 2 others are a uniform sample of the two
// items of p = 0, and each gets m·2/((m − 2)·4), the expansion estimate of
// their total counted in all m of Des Raj's terms.
func TestDesRajZeroProbabilityWeights(t *testing.T) {
	for _, c := range []struct {
		probs, want []float64
	}{
		{[]float64{0.5, 0.5, 0}, []float64{1, 0.5, 1.5}},
		{[]float64{0.5, 0.5, 0, 0}, []float64{1.25, 0.75, 1, 1}},
		{[]float64{1, 0}, []float64{0.5, 1.5}},
	} {
		w := make([]float64, len(c.probs))
		srg.DesRajWeights(4, c.probs, w)
		require.Equal(t, c.want, w, "probs %v", c.probs)
	}
	// An exact check that E[estimate] is the mean on the first case.
	y := []float64{1, 2, 3, 4}
	got, _, _ := desRajExpectation([]float64{0.5, 0.5, 0, 0}, y, 3)
	require.Equal(t, 0, got.Cmp(big.NewRat(10, 4)), "E[estimate] = %v, want 5/2", got)
}

// DesRajWeights reads a p of 0 as a draw of DrawBatch's uniform fallback,
// and every item after it as one too. Property: at ε = 0, DrawBatch without
// replacement reports every item of positive p* before the first item with
// p* = 0, and those last ones all with p* = 0.
func TestDrawBatchZeroProbabilitiesLast(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(1, 8).Draw(t, "n")
		keys := rapid.SliceOfN(rapid.SampledFrom([]float64{0, 0, 1, 2.5}), n, n).Draw(t, "keys")
		s := naive.New(n)
		positive := 0
		for i, k := range keys {
			require.NoError(t, s.Set(i, k))
			if k > 0 {
				positive++
			}
		}
		m := rapid.IntRange(1, n).Draw(t, "m")
		items, probs := make([]int, m), make([]float64, m)
		src := rand.NewPCG(rapid.Uint64().Draw(t, "seed"), 1)
		require.NoError(t, reweighted.DrawBatch(s, 0, src, false, items, probs))
		for k, i := range items {
			if positive == 0 {
				break // all keys 0: p* is uniform
			}
			if k < positive {
				require.Positive(t, probs[k], "draw %d of %d with %d positive keys", k, m, positive)
			} else {
				require.Zero(t, probs[k], "draw %d of %d with %d positive keys", k, m, positive)
				require.Zero(t, keys[i], "item %d drawn after the positive ones", i)
			}
		}
	})
}

// constSource returns the same number at every call: a uniform u held
// fixed through the rejections and the fallback of DrawBatch.
type constSource uint64

func (c constSource) Uint64() uint64 { return uint64(c) }

// DesRajWeights relies on DrawBatch drawing uniformly among the items left
// once they all have p* = 0. Property: with keys (1, 0, 0, 0) at ε = 0 the
// second draw of a batch is one of items 1, 2, 3, each for exactly a third
// of a grid of uniform numbers u, held fixed through every draw.
func TestDrawBatchFallbackIsUniform(t *testing.T) {
	s := naive.New(4)
	require.NoError(t, s.Set(0, 1))
	const grid = 300
	counts := map[int]int{}
	items, probs := make([]int, 2), make([]float64, 2)
	for k := range grid {
		u := (float64(k) + 0.5) / grid
		require.NoError(t, reweighted.DrawBatch(s, 0, constSource(uint64(u*0x1p53)<<11), false, items, probs))
		require.Equal(t, []int{0}, items[:1])
		require.Equal(t, []float64{1, 0}, probs)
		counts[items[1]]++
	}
	require.Equal(t, map[int]int{1: grid / 3, 2: grid / 3, 3: grid / 3}, counts)
}
