package reweighted_test

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/reweighted/reweighted"
	"github.com/reweighted/reweighted/naive"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/stat/distuv"
	"pgregory.net/rapid"
)

// newSampler returns a naive sampler holding keys.
func newSampler(t testing.TB, keys []float64) reweighted.Sampler {
	t.Helper()
	s := naive.New(len(keys))
	for i, a := range keys {
		require.NoError(t, s.Set(i, a))
	}
	return s
}

// probs returns p*_i of every item.
func probs(t testing.TB, s reweighted.Sampler, eps float64) []float64 {
	t.Helper()
	ps := make([]float64, s.Len())
	for i := range ps {
		p, err := s.Prob(i, eps)
		require.NoError(t, err)
		ps[i] = p
	}
	return ps
}

// orderedProb is the probability of drawing the ordered tuple items by
// successive sampling from p without replacement:
// Π_k p_{i_k}/(1 − Σ_{j<k} p_{i_j}).
//
// The mass left, 1 − Σ_{j<k} p_{i_j}, is summed over the items left rather
// than subtracted from 1, which would cancel when the items drawn hold
// almost all of it.
func orderedProb(p []float64, items []int) float64 {
	prob := 1.0
	for k, i := range items {
		var left float64
		for j, pj := range p {
			if !slices.Contains(items[:k], j) {
				left += pj
			}
		}
		prob *= p[i] / left
	}
	return prob
}

// tuples lists every ordered tuple of m distinct items of n.
func tuples(n, m int) [][]int {
	var out [][]int
	var rec func(cur []int)
	rec = func(cur []int) {
		if len(cur) == m {
			out = append(out, append([]int(nil), cur...))
			return
		}
		for i := range n {
			if !slices.Contains(cur, i) {
				rec(append(cur, i))
			}
		}
	}
	rec(nil)
	return out
}

// code numbers a tuple of items of n in base n.
func code(items []int, n int) int {
	c := 0
	for _, i := range items {
		c = c*n + i
	}
	return c
}

// chiSquare returns the p-value of observed counts against expected cell
// probabilities, with the cells expecting fewer than 5 counts pooled.
func chiSquare(t *testing.T, expected []float64, observed []int, draws int) float64 {
	t.Helper()
	var stat, poolE float64
	var poolO, cells int
	for c, p := range expected {
		e := p * float64(draws)
		if e < 5 {
			poolE += e
			poolO += observed[c]
			continue
		}
		d := float64(observed[c]) - e
		stat += d * d / e
		cells++
	}
	if poolE >= 5 {
		d := float64(poolO) - poolE
		stat += d * d / poolE
		cells++
	} else {
		require.LessOrEqual(t, poolO, 5+int(20*poolE), "pooled rare cells drawn too often")
	}
	require.Greater(t, cells, 1)
	return distuv.ChiSquared{K: float64(cells - 1)}.Survival(stat)
}

// TestDrawBatchOrderedTuples checks, by a χ² goodness-of-fit test, that
// DrawBatch without replacement draws each ordered tuple (i_1, …, i_m) with
// the probability of ordered successive sampling, Π p_{i_k}/(1 − Σ_{j<k} p_{i_j}):
// for pairs (m = 2, p_i·p_j/(1 − p_i)) and triples, on the rejection path and
// on the path through the explicit conditional distribution (ε = 0 and a key
// holding almost all the mass).
func TestDrawBatchOrderedTuples(t *testing.T) {
	cases := []struct {
		name string
		keys []float64
		eps  float64
		m    int
	}{
		{"pairs", []float64{5, 3, 1, 1, 0}, 1.0 / 10, 2},
		{"pairs at eps 0", []float64{4, 3, 2, 1}, 0, 2},
		{"triples", []float64{8, 4, 2, 1, 1, 0}, 1.0 / 12, 3},
		{"heavy key at eps 0 (fallback)", []float64{1e12, 1, 2, 3, 4}, 0, 3},
	}
	const draws = 200_000
	for ci, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := newSampler(t, c.keys)
			p := probs(t, s, c.eps)
			all := tuples(len(c.keys), c.m)
			index := map[int]int{}
			expected := make([]float64, len(all))
			var total float64
			for k, tu := range all {
				index[code(tu, len(c.keys))] = k
				expected[k] = orderedProb(p, tu)
				total += expected[k]
			}
			require.InDelta(t, 1, total, 1e-12, "the tuple probabilities sum to 1")
			observed := make([]int, len(all))
			src := rand.NewPCG(uint64(ci), 7)
			items, ps := make([]int, c.m), make([]float64, c.m)
			for d := range draws {
				if err := reweighted.DrawBatch(s, c.eps, src, false, items, ps); err != nil {
					require.NoError(t, err)
				}
				k, ok := index[code(items, len(c.keys))]
				if !ok {
					require.Fail(t, "items are not distinct", "%v", items)
				}
				observed[k]++
				if d < 1000 {
					for j, i := range items {
						require.Equal(t, p[i], ps[j], "probs[%d] is p*_%d", j, i)
					}
				}
			}
			pv := chiSquare(t, expected, observed, draws)
			require.Greater(t, pv, 1e-6, "χ² p-value %g", pv)
		})
	}
}

// TestDrawBatchWithReplacement checks, by a χ² test on the ordered pairs,
// that with replacement the draws are independent: (i, j) has probability
// p_i·p_j.
func TestDrawBatchWithReplacement(t *testing.T) {
	keys, eps := []float64{5, 3, 1, 1, 0}, 0.1
	s := newSampler(t, keys)
	p := probs(t, s, eps)
	n := len(keys)
	expected := make([]float64, n*n)
	for i := range n {
		for j := range n {
			expected[i*n+j] = p[i] * p[j]
		}
	}
	const draws = 200_000
	observed := make([]int, n*n)
	src := rand.NewPCG(3, 4)
	items, ps := make([]int, 2), make([]float64, 2)
	for range draws {
		require.NoError(t, reweighted.DrawBatch(s, eps, src, true, items, ps))
		observed[items[0]*n+items[1]]++
	}
	pv := chiSquare(t, expected, observed, draws)
	require.Greater(t, pv, 1e-6, "χ² p-value %g", pv)
}

// TestDrawBatchDistinct checks the property "without replacement, the m
// items are distinct, in [0, n), and probs[k] = Prob(items[k])" on random
// keys (zeros and ties included), bounds and batch sizes up to n.
func TestDrawBatchDistinct(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(1, 40).Draw(t, "n")
		s := naive.New(n)
		for i := range n {
			a := float64(rapid.IntRange(0, 4).Draw(t, "key")) * math.Pow(10, float64(rapid.IntRange(-3, 9).Draw(t, "exp")))
			require.NoError(t, s.Set(i, a))
		}
		eps := rapid.SampledFrom([]float64{0, 1 / float64(2*n), 1 / float64(n)}).Draw(t, "eps")
		m := rapid.IntRange(0, n).Draw(t, "m")
		items, ps := make([]int, m), make([]float64, m)
		src := rand.NewPCG(rapid.Uint64().Draw(t, "seed"), 1)
		require.NoError(t, reweighted.DrawBatch(s, eps, src, false, items, ps))
		seen := map[int]bool{}
		for k, i := range items {
			require.True(t, i >= 0 && i < n, "item %d out of range", i)
			require.False(t, seen[i], "item %d drawn twice in %v", i, items)
			seen[i] = true
			p, err := s.Prob(i, eps)
			require.NoError(t, err)
			require.Equal(t, p, ps[k])
		}
	})
}

// countingSource counts the numbers drawn from it.
type countingSource struct {
	rand.Source
	calls int
}

func (c *countingSource) Uint64() uint64 { c.calls++; return c.Source.Uint64() }

// TestDrawErrors checks that a rejected Draw or DrawBatch returns the
// documented sentinel, uses no randomness and changes neither the sampler
// nor items and probs.
func TestDrawErrors(t *testing.T) {
	keys := []float64{3, 1, 0}
	cases := []struct {
		name    string
		s       reweighted.Sampler
		eps     float64
		replace bool
		m, np   int
		want    error
	}{
		{"empty", naive.New(0), 0, true, 1, 1, reweighted.ErrEmpty},
		{"eps NaN", newSampler(t, keys), math.NaN(), false, 1, 1, reweighted.ErrEpsilon},
		{"eps negative", newSampler(t, keys), -1e-300, false, 1, 1, reweighted.ErrEpsilon},
		{"eps above 1/n", newSampler(t, keys), 0.34, true, 1, 1, reweighted.ErrEpsilon},
		{"lengths differ", newSampler(t, keys), 0.1, true, 2, 1, reweighted.ErrBatch},
		{"m > n without replacement", newSampler(t, keys), 0.1, false, 4, 4, reweighted.ErrBatch},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			n := c.s.Len()
			before := make([]float64, n)
			for i := range n {
				before[i] = c.s.Key(i)
			}
			items, ps := make([]int, c.m), make([]float64, c.np)
			for k := range items {
				items[k] = -7
			}
			for k := range ps {
				ps[k] = -7
			}
			src := &countingSource{Source: rand.NewPCG(1, 2)}
			err := reweighted.DrawBatch(c.s, c.eps, src, c.replace, items, ps)
			require.True(t, errors.Is(err, c.want), "got %v, want %v", err, c.want)
			if !errors.Is(c.want, reweighted.ErrBatch) {
				_, _, err = reweighted.Draw(c.s, c.eps, src)
				require.True(t, errors.Is(err, c.want), "Draw: got %v, want %v", err, c.want)
			}
			require.Zero(t, src.calls, "a rejected call used randomness")
			for k := range items {
				require.Equal(t, -7, items[k])
			}
			for k := range ps {
				require.Equal(t, -7.0, ps[k])
			}
			for i := range n {
				require.Equal(t, before[i], c.s.Key(i))
			}
		})
	}
	t.Run("m = n without replacement is every item", func(t *testing.T) {
		s := newSampler(t, keys)
		items, ps := make([]int, 3), make([]float64, 3)
		require.NoError(t, reweighted.DrawBatch(s, 0, rand.NewPCG(1, 2), false, items, ps))
		require.ElementsMatch(t, []int{0, 1, 2}, items)
	})
}

// TestDrawUsesOneNumberPerItem checks that Draw maps one number u of src
// to s.Sample(eps, u), and that a batch with replacement uses m numbers.
func TestDrawUsesOneNumberPerItem(t *testing.T) {
	s := newSampler(t, []float64{5, 3, 1, 1, 0})
	a, b := rand.NewPCG(9, 9), rand.NewPCG(9, 9)
	for range 100 {
		i, p, err := reweighted.Draw(s, 0.1, a)
		require.NoError(t, err)
		u := float64(b.Uint64()>>11) * 0x1p-53
		j, q, err := s.Sample(0.1, u)
		require.NoError(t, err)
		require.Equal(t, j, i)
		require.Equal(t, q, p)
	}
	src := &countingSource{Source: rand.NewPCG(1, 1)}
	require.NoError(t, reweighted.DrawBatch(s, 0.1, src, true, make([]int, 7), make([]float64, 7)))
	require.Equal(t, 7, src.calls)
}

// TestDrawBatchAllocs checks that a batch draw allocates nothing.
func TestDrawBatchAllocs(t *testing.T) {
	keys := make([]float64, 1000)
	for i := range keys {
		keys[i] = float64(i % 17)
	}
	s := newSampler(t, keys)
	src := rand.NewPCG(1, 2)
	items, ps := make([]int, 128), make([]float64, 128)
	for _, replace := range []bool{false, true} {
		allocs := testing.AllocsPerRun(20, func() {
			if err := reweighted.DrawBatch(s, 1.0/2000, src, replace, items, ps); err != nil {
				panic(err)
			}
		})
		require.Zero(t, allocs, "replace = %v", replace)
	}
	heavy := newSampler(t, []float64{1e12, 1, 2, 3, 0, 0})
	allocs := testing.AllocsPerRun(20, func() {
		if err := reweighted.DrawBatch(heavy, 0, src, false, items[:6], ps[:6]); err != nil {
			panic(err)
		}
	})
	require.Zero(t, allocs, "fallback path")
}

// scripted is a Sampler whose Sample returns the items of first in turn,
// then first[0] for ever: a batch without replacement of len(first) + 1
// items draws first, rejects first[0] 64 times and draws its last item by
// the fallback over the items left, from the next u.
type scripted struct {
	reweighted.Sampler
	first []int
	calls int
}

func (s *scripted) Sample(eps, u float64) (int, float64, error) {
	i := s.first[0]
	if s.calls < len(s.first) {
		i = s.first[s.calls]
	}
	s.calls++
	return i, 1, nil
}

// atU is a source whose every number is u·2^64 (u a multiple of 2^-53):
// every uniform number DrawBatch takes from it is u.
type atU float64

func (u atU) Uint64() uint64 { return uint64(float64(u)*0x1p53) << 11 }

// The fallback of DrawBatch without replacement, after every proper subset
// of the items drawn, u at the midpoints of a grid of 60 (a multiple of
// every count of items left): each item left gets its share of the grid,
// p_i/Σ_{j left} p_j of the p of Prob, exact in rational arithmetic,
// within 2 points (the two edges of its interval), with that p; if every
// item left has p = 0, exactly 60/(n − k) points each, with p = 0. The
// keys and bounds give the items left subnormal totals of p (two items
// of 2^-1074 each: u·total on the grid of subnormals drew the first for a
// quarter of u, not half), near-ties of 3 and 4 units of 2^-1074, totals
// on both sides of the least normal float, p that round on the grid of
// subnormals, and zero keys of p = ε at ε = 2^-1074 and 3·2^-1074.
func TestDrawBatchRestAtEveryScale(t *testing.T) {
	const grid = 60
	const unit = 0x1p-1074
	for _, c := range []struct {
		keys []float64
		eps  []float64
	}{
		{[]float64{0, 2, 0, 1, 4, 0}, []float64{0, unit, 3 * unit, 1.0 / 12}},
		{[]float64{1, unit, unit, 3 * unit, 4 * unit, 2 * unit}, []float64{0}},
		{[]float64{1, 0x1p-1023, 0x1p-1023, 0x1.ffffffffffffep-1023, 0x1p-1022, 0x1.8p-1022}, []float64{0}},
		{[]float64{0x1p800, 0x1p-274, 0x1.8p-274, 0x1p-280, 3 * 0x1p-280}, []float64{0, unit}},
	} {
		n := len(c.keys)
		s := newSampler(t, c.keys)
		for _, eps := range c.eps {
			t.Run(fmt.Sprintf("keys=%v/ε=%v", c.keys, eps), func(t *testing.T) {
				p := probs(t, s, eps)
				for set := range 1<<n - 1 {
					at := fmt.Sprintf("keys %v, ε = %v, drawn %0*b", c.keys, eps, n, set)
					var first []int
					left := new(big.Rat)
					for i := range n {
						if set&(1<<i) != 0 {
							first = append(first, i)
						} else {
							left.Add(left, new(big.Rat).SetFloat64(p[i]))
						}
					}
					if len(first) == 0 {
						continue // no rejections: the first u maps through Sample
					}
					sc := &scripted{Sampler: s, first: first}
					m := len(first) + 1
					items, ps := make([]int, m), make([]float64, m)
					counts := make([]int, n)
					for j := range grid {
						u := (float64(j) + 0.5) / grid
						sc.calls = 0
						require.NoError(t, reweighted.DrawBatch(sc, eps, atU(u), false, items, ps))
						require.Equal(t, first, items[:m-1], "%s, u = %v", at, u)
						i := items[m-1]
						require.True(t, i >= 0 && i < n && set&(1<<i) == 0, "%s, u = %v: item %d", at, u, i)
						require.Equal(t, p[i], ps[m-1], "%s, u = %v: p of item %d", at, u, i)
						counts[i]++
					}
					for i := range n {
						switch {
						case set&(1<<i) != 0:
						case left.Sign() == 0:
							require.Equal(t, grid/(n-len(first)), counts[i], "%s: item %d", at, i)
						default:
							share, _ := new(big.Rat).Quo(new(big.Rat).SetFloat64(p[i]), left).Float64()
							require.InDelta(t, grid*share, counts[i], 2, "%s: item %d of %d points", at, i, grid)
						}
					}
				}
			})
		}
	}
}
