package samplertest

import (
	"math"
	"math/big"
	"math/rand/v2"
	"sync/atomic"
	"testing"

	"github.com/reweighted/reweighted"
	"github.com/stretchr/testify/require"
)

// lawRef is a law-exact sampler for testing the law mode of the kit: the
// brute backend's keys, ρ and p*, with draws by rejection from a uniform
// proposal (accept item i with probability p_i/max p). Its switches plant
// the bug class of rejection samplers of p*: items of the tail (p = ε)
// accepted with too high a probability, as when a group lying wholly in
// the tail is accepted without its test; or so accepted only in the draws
// after the first of a batch without replacement, as when a batch draws
// its first item as Draw does and the rest by attempts of its own; or,
// in those draws, items of p* = 0 accepted at all, as when a head row
// whose p* rounds to 0 is accepted for its weight.
type lawRef struct {
	*brute
	overdraw float64      // > 0: tail items accepted with overdraw times their probability
	hidden   bool         // the over-draw is in the draws only, not in AttemptProbs
	rest     float64      // > 0: as overdraw, by rest, in the draws after the first of a batch without replacement only
	leak     float64      // > 0: in those draws, items of p* = 0 accepted with probability leak
	outside  bool         // Draw returns item n, out of range
	batches  atomic.Int64 // DrawBatch calls, counted
}

func newLawRef(n int) *lawRef { return &lawRef{brute: newBrute(n)} }

// Sample hides the brute backend's map: lawRef draws only by its law.
func (*lawRef) Sample() {}

// accept returns the probability that an attempt that proposed an item of
// probability p accepts it; draws tells whether a draw asks (the hidden
// bug lies only there), rest whether it is a draw after the first of a
// batch without replacement (the bug of rest lies only there).
func (l *lawRef) accept(p, eps, top float64, draws, rest bool) float64 {
	a := p / top
	if l.overdraw > 0 && eps > 0 && p == eps && (draws || !l.hidden) {
		a = min(1, a*l.overdraw)
	}
	if l.rest > 0 && rest && eps > 0 && p == eps {
		a = min(1, a*l.rest)
	}
	if l.leak > 0 && rest && p == 0 {
		a = l.leak
	}
	return a
}

func (l *lawRef) top(eps float64) (float64, []float64, error) {
	ps, err := l.Probs(eps, nil)
	if err != nil {
		return 0, nil, err
	}
	top := 0.0
	for _, p := range ps {
		top = max(top, p)
	}
	return top, ps, nil
}

func (l *lawRef) AttemptProbs(eps float64, dst []float64) ([]float64, error) {
	top, ps, err := l.top(eps)
	if err != nil {
		return dst, err
	}
	dst = dst[:0]
	for _, p := range ps {
		dst = append(dst, l.accept(p, eps, top, false, false)/float64(len(ps)))
	}
	return dst, nil
}

func (l *lawRef) Draw(eps float64, src rand.Source) (int, float64, error) {
	top, ps, err := l.top(eps)
	if err != nil {
		return 0, 0, err
	}
	i, p := l.draw(ps, eps, top, rand.New(src), false)
	return i, p, nil
}

// draw draws an item of probabilities ps, the largest top, by rejection
// from the uniform proposal; rest tells whether it is a draw after the
// first of a batch without replacement.
func (l *lawRef) draw(ps []float64, eps, top float64, r *rand.Rand, rest bool) (int, float64) {
	if l.outside {
		return len(ps), ps[0]
	}
	for {
		i := r.IntN(len(ps))
		if r.Float64() < l.accept(ps[i], eps, top, true, rest) {
			return i, ps[i]
		}
	}
}

// DrawBatch makes its draws as Draw does, from one computation of p*.
// Without replacement they repeat until a new item comes: the first
// distinct items of an i.i.d. stream, ordered successive sampling exactly,
// unless rest is set.
func (l *lawRef) DrawBatch(eps float64, src rand.Source, replace bool, items []int, probs []float64) error {
	l.batches.Add(1)
	top, ps, err := l.top(eps)
	if err != nil {
		return err
	}
	r := rand.New(src)
	seen := map[int]bool{}
	for k := range items {
		for {
			i, p := l.draw(ps, eps, top, r, !replace && k > 0)
			if replace || !seen[i] {
				seen[i] = true
				items[k], probs[k] = i, p
				break
			}
		}
	}
	return nil
}

var _ reweighted.LawSampler = (*lawRef)(nil)

// tailEdge is the boundary class where that bug shows: a group
// [1 − 2^-6, 1) lying wholly in the tail, its upper edge 1 at the cutoff.
var tailEdge = Instance{Keys: []float64{4, 4, 0.99, 0.985, 0.9999, 0.99, 0.98, 0.5}, Eps: 1.0 / 14}

// The law mode passes a correct law-exact sampler on every boundary class.
func TestVerifyLawPassesReference(t *testing.T) {
	for _, c := range lawCases() {
		s := newLawRef(len(c.keys))
		for i, a := range c.keys {
			require.NoError(t, s.Set(i, a))
		}
		for _, eps := range c.eps {
			require.NoError(t, VerifyLaw(s, c.keys, eps), "%s at ε = %v", c.name, eps)
		}
	}
}

// The white-box check catches an over-draw of the tail that the draws and
// AttemptProbs share, of 33%, of 1% and of 10^-8 (ten times
// RelAttempt), on that boundary class, by the item.
func TestVerifyLawCatchesOverdraw(t *testing.T) {
	for _, over := range []float64{1.33, 1.01, 1 + 1e-8} {
		s := newLawRef(len(tailEdge.Keys))
		s.overdraw = over
		for i, a := range tailEdge.Keys {
			require.NoError(t, s.Set(i, a))
		}
		err := VerifyLaw(s, tailEdge.Keys, tailEdge.Eps)
		require.ErrorContains(t, err, "per draw, exact p*", "over-draw ×%v", over)
	}
}

// The χ² tests have the power the default -samplertest.draws promises: at
// 10^5 draws BatchChiSquare catches an over-draw of 5% of the items at ε
// hidden from AttemptProbs, and ChiSquare (a tenth of the draws) one of
// 10%; both pass the same sampler without the bug.
func TestLawChiSquareHasPower(t *testing.T) {
	old := *drawsFlag
	*drawsFlag = 100_000
	defer func() { *drawsFlag = old }()
	hidden := func(over float64) NewDist {
		return refWith(func(s *lawRef) { s.overdraw, s.hidden = over, true })
	}
	failed := lawFailures("BatchChiSquare", lawBatchChiSquare, hidden(1.05))
	require.NotEmpty(t, failed)
	require.Regexp(t, `keys \[.*\], ρ = \d+; the items most off: item \d+ \(rank \d+, key .*\): \d+ draws, [\d.]+ expected \(z = `, failed[0])
	require.NotEmpty(t, lawFailures("ChiSquare", lawChiSquare, hidden(1.1)))
	require.Empty(t, lawFailures("ChiSquare", lawChiSquare, refWith(func(*lawRef) {})))
}

// OrderedPairs has the power the default -samplertest.draws promises on a
// bug that only the pairs show: at 10^5 draws (1.5·10^5 batches) it
// catches a batch without replacement whose draws after the first accept
// the items at ε 1.06 times as often as they should, which raises the
// second item's conditional probability of each of them by 4 to 5%. On
// the check's first case, three of seven items at ε = 1/14, that is a
// noncentrality of 100 on 41 degrees of freedom (the 42 ordered pairs,
// each expected at least 824 times), an expected p-value near 10^-12
// (χ² = 129.8, p = 4·10^-11 at the check's seed) against minPValue 10^-5.
// BatchChiSquare passes the same bug, the first item of each batch still
// following p*, and OrderedPairs passes lawRef without it, drawing 1.5·10^5
// batches on each of its three cases.
func TestLawOrderedPairsHasPower(t *testing.T) {
	old := *drawsFlag
	*drawsFlag = 100_000
	defer func() { *drawsFlag = old }()
	rest := refWith(func(s *lawRef) { s.rest = 1.06 })
	failed := lawFailures("OrderedPairs", lawOrderedPairs, rest)
	require.NotEmpty(t, failed, "an over-draw of 6% of the tail after the first draw")
	require.Contains(t, failed[0], "at ε = 0.07142857142857142: χ²", "failed by the χ² of the first case")
	require.Contains(t, failed[0], "on 41 degrees of freedom", "the 42 ordered pairs of 7 items, less one")
	require.Regexp(t, `the ordered pairs most off: \(\d, \d\): \d+ batches, [\d.]+ expected \(z = `, failed[0])
	require.Empty(t, lawFailures("BatchChiSquare", lawBatchChiSquare, rest), "the first items follow p*")
	var made []*lawRef
	require.Empty(t, lawFailures("OrderedPairs", lawOrderedPairs, refWith(func(s *lawRef) { made = append(made, s) })))
	require.Len(t, made, 3, "a sampler for each case")
	for _, s := range made {
		require.EqualValues(t, 150_000, s.batches.Load())
	}
}

// OrderedPairs refuses a pair of probability 0 by name, which its χ² could
// not see: at ε = 0 an item of key 0 drawn second, some 100 times in the
// 1.5·10^5 batches of its second case (leak 10^-3), where it is expected
// no times at all.
func TestLawOrderedPairsRefusesAPairOfProbabilityZero(t *testing.T) {
	old := *drawsFlag
	*drawsFlag = 100_000
	defer func() { *drawsFlag = old }()
	failed := lawFailures("OrderedPairs", lawOrderedPairs, refWith(func(s *lawRef) { s.leak = 1e-3 }))
	require.NotEmpty(t, failed, "items of p* = 0 drawn second")
	require.Regexp(t, `pair \(\d, 4\) has probability 0`, failed[0], "item 4, of key 0, drawn second at ε = 0")
}

// refWith returns the NewDist of lawRefs with the bugs that plant sets.
func refWith(plant func(*lawRef)) NewDist {
	return func(n int) reweighted.Distribution {
		s := newLawRef(n)
		plant(s)
		return s
	}
}

// GroupEdge puts the cutoff ε·λ on a power of two, or within 3 ulps of it
// once ε is moved: checked against the exact λ of the instance.
func TestGroupEdgeHitsTheEdge(t *testing.T) {
	hits := 0
	for seed := range uint64(200) {
		r := rand.New(rand.NewPCG(seed, 1))
		in := GroupEdgeFromBits(2+int(seed%20), r.Uint64)
		ex := Oracle(in.Keys, in.Eps)
		if ex.AllZero || in.Eps == 0 || ex.Uniform {
			continue
		}
		cut := new(big.Rat).Mul(ex.Lambda, ex.Eps)
		m, _ := math.Frexp(ratFloat(cut))
		if min(m-0.5, 1-m) < 1e-12 {
			hits++
		}
	}
	require.Greater(t, hits, 50, "instances whose cutoff lies within 1e-12 of a power of two")
}

// chiSquared's p-value is the survival function of the χ² law at the
// statistic Σ (c − e)²/e over the cells expected 5 times or more, the
// others pooled into one cell, with one degree of freedom fewer than the
// cells: checked against the closed form for 3 degrees of freedom,
// Q(3/2, x/2) = erfc(√(x/2)) + √(2x/π)·e^(−x/2).
func TestChiSquaredStatisticAndFreedom(t *testing.T) {
	// p = a/Σa at ε = 0: 0.5, 0.3, 0.193 and two cells pooled (4 and 3
	// expected in 1,000 draws).
	ex := Oracle([]float64{500, 300, 193, 4, 3}, 0)
	counts := []float64{520, 290, 180, 6, 4}
	x := 20.0*20/500 + 10.0*10/300 + 13.0*13/193 + 3.0*3/7
	want := math.Erfc(math.Sqrt(x/2)) + math.Sqrt(2*x/math.Pi)*math.Exp(-x/2)
	require.InDelta(t, want, chiSquared(t, ex, counts, 1000, "five cells"), 1e-12)
	// Two cells are one degree of freedom, a test like any other: its
	// survival function is erfc(√(x/2)), here 2.5·10^-10, not the 1 of no
	// degree of freedom.
	ex2 := Oracle([]float64{1, 1}, 0)
	x = 2 * 100.0 * 100 / 500
	require.InEpsilon(t, math.Erfc(math.Sqrt(x/2)), chiSquared(t, ex2, []float64{600, 400}, 1000, "two cells"), 1e-12)
	// Cells expected fewer than 5 times in all (here 0.5) are held to
	// 5 + 10·0.5 draws together: 10 pass, 15 fail.
	ex = Oracle([]float64{999.5, 0.3, 0.2}, 0)
	pooled := func(counts []float64) []string {
		return failures("pooled", func(tb TB, _ New) { chiSquared(tb, ex, counts, 1000, "pooled") }, nil)
	}
	require.Empty(t, pooled([]float64{990, 6, 4}))
	require.NotEmpty(t, pooled([]float64{985, 10, 5}), "15 draws of items expected 0.5 times")
}

// The boundary classes of the χ² tests are what their names say: the
// near-ties lie a few ulps either side of 1.5, and the group wholly in the
// tail has its upper edge exactly at the cutoff at its own ε, with the two
// keys of 4 the head.
func TestLawCasesHitTheirClasses(t *testing.T) {
	seen := map[string]bool{}
	for _, c := range lawCases() {
		seen[c.name] = true
		switch c.name {
		case "near-ties":
			below, above := 0, 0
			for _, a := range c.keys {
				require.InDelta(t, 1.5, a, 16*0x1p-52, "a near-tie of 1.5")
				if a < 1.5 {
					below++
				} else if a > 1.5 {
					above++
				}
			}
			require.Positive(t, below, "near-ties below 1.5")
			require.Positive(t, above, "near-ties above 1.5")
		case "tail group below the edge":
			e := c.eps[3] // the case's own bound, after 0, 1/(2n), 1/n
			ex := Oracle(c.keys, e)
			require.Equal(t, 2, ex.Rho)
			cut := new(big.Rat).Mul(ex.Lambda, ex.Eps)
			require.Zero(t, cut.Cmp(big.NewRat(1, 1)), "ε·λ = 1, the tail group's upper edge, not %v", cut.FloatString(20))
			// The bounds an ulp either side put the cutoff a hair below
			// and a hair above the edge.
			for k, side := range map[int]int{4: -1, 5: 1} {
				ex := Oracle(c.keys, c.eps[k])
				cut := new(big.Rat).Mul(ex.Lambda, ex.Eps)
				require.Equal(t, side, cut.Cmp(big.NewRat(1, 1)), "ε = %v", c.eps[k])
				require.InDelta(t, 1, ratFloat(cut), 1e-15, "ε = %v", c.eps[k])
			}
		}
	}
	require.True(t, seen["near-ties"] && seen["tail group below the edge"], "both classes present")
}

// GroupEdge makes valid instances (keys in [0, MaxSum], ε in [0, 1/n]) with
// tail keys 1 to 3 ulps below the power of two at the cutoff, as well as
// head keys at it and above: over 200 seeds, keys just
// below the edge appear (in the head or the tail, as ε's nudge of a few
// ulps moves the cutoff).
func TestGroupEdgeHasKeysJustBelowTheEdge(t *testing.T) {
	justBelow := 0
	for seed := range uint64(200) {
		r := rand.New(rand.NewPCG(seed, 1))
		in := GroupEdgeFromBits(2+int(seed%20), r.Uint64)
		for _, a := range in.Keys {
			require.True(t, a >= 0 && a <= reweighted.MaxSum, "seed %d: key %v", seed, a)
		}
		require.True(t, in.Eps >= 0 && in.Eps <= 1/float64(len(in.Keys)), "seed %d: ε = %v", seed, in.Eps)
		ex := Oracle(in.Keys, in.Eps)
		if ex.AllZero || in.Eps == 0 || ex.Uniform {
			continue
		}
		c := ratFloat(new(big.Rat).Mul(ex.Lambda, ex.Eps))
		m, e := math.Frexp(c)
		edge := math.Ldexp(1, e-1)
		if 1-m < m-0.5 {
			edge = math.Ldexp(1, e)
		}
		if min(m-0.5, 1-m) >= 1e-12 || edge < 0x1p-1022 {
			continue // not on an edge, or on the subnormal grid, where an ulp is not relative
		}
		low := edge
		for range 3 {
			low = math.Nextafter(low, 0)
		}
		for _, a := range in.Keys {
			if a >= low && a < edge {
				justBelow++
			}
		}
	}
	require.Greater(t, justBelow, 20, "keys 1 to 3 ulps below the edge")
}

// VerifyLaw refuses a draw of an item out of range, by name, rather than
// reading past the end of its probabilities.
func TestVerifyLawRefusesAnItemOutOfRange(t *testing.T) {
	keys := []float64{3, 1, 0.5, 0.25}
	l := newLawRef(len(keys))
	require.NoError(t, l.Load(keys))
	require.NoError(t, VerifyLaw(l, keys, 0.1))
	l.outside = true
	require.ErrorContains(t, VerifyLaw(l, keys, 0.1), "item 4 out of range")
}
