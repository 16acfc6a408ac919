package samplertest

import (
	"errors"
	"flag"
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/reweighted/reweighted"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/stat/distuv"
	"pgregory.net/rapid"
)

// NewDist makes a sampler of either kind, a Sampler or a LawSampler, of n
// items, all keys 0.
type NewDist func(n int) reweighted.Distribution

// Attempter is the white-box hook of a law-exact sampler that draws by
// rejection: AttemptProbs appends to dst[:0], for every item i, the
// probability that one attempt of Draw(eps, ·) proposes item i and accepts
// it, computed from the same proposal tables and acceptance rule that its
// draws use. The law of a draw is then q/Σq exactly, and Σq is the
// acceptance rate of an attempt.
type Attempter interface {
	AttemptProbs(eps float64, dst []float64) ([]float64, error)
}

// Tolerances of the law checks.
const (
	// RelAttempt is the largest relative error allowed between an item's
	// normalised per-attempt probability and its exact p* (items with p* of
	// at least MinAttemptP). Rounding of the acceptance ratios costs a few
	// units in the last place; an over-draw of any size fails.
	RelAttempt = 1e-9
	// MinAttemptP is the smallest exact p* whose per-attempt probability
	// is checked item by item: below it, p* itself is not a normal float
	// once multiplied by a rate.
	MinAttemptP = 1e-290
)

// lawChecks is everything in the contract that does not need the map from
// u to an item, one named check each.
var lawChecks = []struct {
	name string
	run  func(TB, NewDist)
}{
	{"Empty", lawEmpty},
	{"NewIsUniform", lawNewIsUniform},
	{"Edges", lawEdges},
	{"GroupEdges", lawProperty(groupEdgeProperty)},
	{"NearCutoff", lawProperty(lawNearCutoffProperty)},
	{"TinyKeys", lawProperty(lawTinyKeysProperty)},
	{"ExactMaxSum", lawExactMaxSum},
	{"NegativeZero", lawNegativeZero},
	{"BadInput", lawBadInput},
	{"ErrorOrder", lawErrorOrder},
	{"StateMachine", lawProperty(LawStateMachine)},
	{"Load", lawProperty(lawLoadProperty)},
	{"ChiSquare", lawChiSquare},
	{"BatchChiSquare", lawBatchChiSquare},
	{"OrderedPairs", lawOrderedPairs},
	{"Masses", lawMasses},
	{"BatchFallback", lawBatchFallback},
	{"ConcurrentReads", lawConcurrentReads},
	{"ZeroAllocs", lawZeroAllocs},
	{"SaveRestore", lawSaveRestore},
	{"Clone", lawClone},
	{"BadState", lawBadState},
}

func lawProperty(p func(NewDist) func(*rapid.T)) func(TB, NewDist) {
	return func(t TB, nd NewDist) { rapid.Check(t, p(nd)) }
}

// RunLaw checks the sampler that newDist makes, of either kind, against
// everything in the contract that does not need Sample's map from u to an
// item: Solve, Prob and Probs against the exact oracle over every boundary
// class, errors and their order, rejected calls, exact MaxSum, Load and
// batch updates, and the law of Draw and DrawBatch (with and without
// replacement) against the exact p* by χ² tests at high power and by
// tests of the masses of the tail, of each binade and of the ranks 1 to r
// (Masses, -samplertest.massdraws). A sampler
// with AttemptProbs (Attempter) also has each item's per-attempt
// probability checked against the exact p*, on every state the checks
// make: the white-box test that a χ² test of a million draws can miss.
func RunLaw(t *testing.T, newDist NewDist) {
	for _, c := range lawChecks {
		t.Run(c.name, func(t *testing.T) { c.run(t, newDist) })
	}
}

// CheckLaw runs the checks of RunLaw outside a test and returns an error
// naming every check that failed, with its first message; nil if all pass.
func CheckLaw(newDist NewDist) error {
	testing.Init()
	if !flag.Parsed() {
		_ = flag.CommandLine.Parse(nil)
	}
	var errs []error
	for _, c := range lawChecks {
		if failed := lawFailures("samplertest/"+c.name, c.run, newDist); len(failed) > 0 {
			errs = append(errs, fmt.Errorf("%s: %s", c.name, strings.Join(strings.Fields(failed[0]), " ")))
		}
	}
	return errors.Join(errs...)
}

// lawFailures is failures for a check of the law mode.
func lawFailures(name string, check func(TB, NewDist), newDist NewDist) []string {
	return failures(name, func(t TB, _ New) { check(t, newDist) }, nil)
}

// fillDist returns a sampler of len(keys) items holding keys, set in index
// order.
func fillDist(t require.TestingT, newDist NewDist, keys []float64) reweighted.Distribution {
	s := newDist(len(keys))
	for i, a := range keys {
		require.NoError(t, s.Set(i, a), "Set(%d, %v)", i, a)
	}
	return s
}

// drawsChecked is how many draws VerifyLaw makes at each bound.
const drawsChecked = 64

// VerifyLaw checks a sampler of either kind holding keys against the exact
// oracle at the bound eps, without Sample: Key, Solve (ρ equal to the exact
// ρ, λ within RelLambda, or one subnormal step), Prob (total variation
// within TV, and the KKT certificate), Probs bit for bit as Prob where the
// sampler has it, 64 draws of Draw and a batch of DrawBatch with
// replacement (every item drawn has exact p* > 0, p > 0 and the p that Prob
// returns), and, for an Attempter, the per-attempt probability of every
// item against the exact p* (within RelAttempt, relative, for p* ≥
// MinAttemptP, and within TV in total variation). The acceptance rate, a
// matter of speed, is the backend's own to bound.
func VerifyLaw(s reweighted.Distribution, keys []float64, eps float64) error {
	n := len(keys)
	ex, probs, err := verifyValues(s, keys, eps)
	if err != nil || n == 0 {
		return err
	}
	if pr, ok := s.(prober); ok {
		all, err := pr.Probs(eps, nil)
		if err != nil {
			return fmt.Errorf("Probs(%v): %w", eps, err)
		}
		for i, p := range all {
			if math.Float64bits(p) != math.Float64bits(probs[i]) {
				return fmt.Errorf("Probs(%v)[%d] = %v but Prob = %v", eps, i, p, probs[i])
			}
		}
	}
	drawn := func(what string, i int, p float64) error {
		if i < 0 || i >= n {
			return fmt.Errorf("%s at ε = %v: item %d out of range", what, eps, i)
		}
		if !(p > 0) || ex.P[i].Sign() == 0 {
			return fmt.Errorf("%s at ε = %v: item %d (rank %d) with p = %v, exact p* = %v", what, eps, i, ex.Rank[i], p, ratFloat(ex.P[i]))
		}
		if math.Float64bits(p) != math.Float64bits(probs[i]) {
			return fmt.Errorf("%s at ε = %v: item %d with p = %v but Prob = %v", what, eps, i, p, probs[i])
		}
		return nil
	}
	src := rand.NewPCG(uint64(n), math.Float64bits(eps))
	for range drawsChecked {
		i, p, err := reweighted.Draw(s, eps, src)
		if err != nil {
			return fmt.Errorf("Draw(%v): %w", eps, err)
		}
		if err := drawn("Draw", i, p); err != nil {
			return err
		}
	}
	items, ps := make([]int, drawsChecked), make([]float64, drawsChecked)
	if err := reweighted.DrawBatch(s, eps, src, true, items, ps); err != nil {
		return fmt.Errorf("DrawBatch(%v): %w", eps, err)
	}
	for k, i := range items {
		if err := drawn("DrawBatch", i, ps[k]); err != nil {
			return err
		}
	}
	if a, ok := s.(Attempter); ok {
		if err := verifyAttempts(a, ex, eps); err != nil {
			return err
		}
	}
	return nil
}

// verifyAttempts is the white-box part of VerifyLaw.
func verifyAttempts(a Attempter, ex *Exact, eps float64) error {
	q, err := a.AttemptProbs(eps, nil)
	if err != nil {
		return fmt.Errorf("AttemptProbs(%v): %w", eps, err)
	}
	if len(q) != ex.N {
		return fmt.Errorf("AttemptProbs(%v) has %d entries for %d items", eps, len(q), ex.N)
	}
	acc := 0.0
	for _, x := range q {
		if !(x >= 0) {
			return fmt.Errorf("AttemptProbs(%v) holds %v", eps, x)
		}
		acc += x
	}
	if !(acc > 0) {
		return fmt.Errorf("at ε = %v no attempt accepts", eps)
	}
	tv := 0.0
	for i, x := range q {
		p := ratFloat(ex.P[i])
		got := x / acc
		tv += math.Abs(got - p)
		if ex.P[i].Sign() == 0 && x != 0 {
			return fmt.Errorf("at ε = %v item %d has p* = 0 but is accepted with probability %v per attempt", eps, i, x)
		}
		if p >= MinAttemptP && math.Abs(got-p) > RelAttempt*p {
			return fmt.Errorf("at ε = %v item %d (rank %d of %d, ρ = %d, key %v) is drawn with probability %v per draw, exact p* = %v (%+.3g relative)",
				eps, i, ex.Rank[i], ex.N, ex.Rho, ratFloat(ex.Keys[i]), got, p, got/p-1)
		}
	}
	if tv/2 > TV {
		return fmt.Errorf("at ε = %v the per-attempt law is at total variation %.3g from p*", eps, tv/2)
	}
	return nil
}

// GroupEdge draws instances of 2 to maxN items whose cutoff ε·λ lies on a
// power of two or a few ulps either side of it — where a sampler that
// groups keys by exponent (and leading mantissa bits) has a group edge:
// ρ ends exactly on a group's edge, the last head key is the first key of
// a group, and a group lying wholly in the tail has its upper edge above
// the cutoff. The scale is drawn over the whole float range; the head keys
// are the power of two itself, keys just above it and keys up to 2^8 times
// it; the tail keys are the floats just below it, keys at lower group
// edges (2^k·(1 − j/64)), smaller keys and zeros. ε is solved so that
// ε·λ = 2^k for the head drawn, then moved by −3 to +3 ulps.
func GroupEdge(maxN int) *rapid.Generator[Instance] {
	return rapid.Custom(func(t *rapid.T) Instance {
		n := rapid.IntRange(2, max(2, maxN)).Draw(t, "n")
		d := func(lo, hi int, label string) int { return rapid.IntRange(lo, hi).Draw(t, label) }
		return groupEdge(n, d)
	})
}

// GroupEdgeFromBits is GroupEdge for n ≥ 2 items driven by a source of
// random words, for seeded tests and fuzz decoders.
func GroupEdgeFromBits(n int, next func() uint64) Instance {
	return groupEdge(max(n, 2), func(lo, hi int, _ string) int { return lo + int(next()%uint64(hi-lo+1)) })
}

// wide is 2^52 as an int where an int has 64 bits, and 0 on 32 bits,
// where mantissa draws the bits in two parts: a variable, since the
// constant would not compile there.
var wide = int(uint64(1) << 52 & uint64(^uint(0)))

// mantissa draws a 53-bit significand, 2^52 to 2^53 − 1, with d: in one
// draw where an int holds it, else as 21 high and 32 low bits.
func mantissa(d drawer) float64 {
	if wide != 0 {
		return float64(d(wide, 2*wide-1, "mantissa"))
	}
	return float64(1<<20+d(0, 1<<20-1, "mantissa high"))*0x1p32 + float64(uint32(d(0, math.MaxInt32, "mantissa low")))*2 + float64(d(0, 1, "mantissa last"))
}

func groupEdge(n int, d drawer) Instance {
	k := []int{-1060, -1022, -300, -20, 0, 1, 300, hugeExp(n) - 8}[d(0, 7, "scale")]
	edge := math.Ldexp(1, k)
	head := d(1, n, "head")
	keys := make([]float64, n)
	for i := range keys {
		if i < head {
			switch d(0, 3, "head kind") {
			case 0:
				keys[i] = edge
			case 1:
				keys[i] = nudge(new(big.Rat).SetFloat64(edge), d(1, 3, "ulps above"))
			case 2:
				keys[i] = math.Ldexp(1+float64(d(0, 63, "bits"))/64, k+d(0, 8, "binades above"))
			default:
				keys[i] = math.Ldexp(mantissa(d), k-52+d(0, 3, "binades above"))
			}
			continue
		}
		switch d(0, 4, "tail kind") {
		case 0:
			keys[i] = nudge(new(big.Rat).SetFloat64(edge), -d(1, 3, "ulps below"))
		case 1:
			keys[i] = edge * (1 - float64(d(1, 32, "group below"))/64)
		case 2:
			keys[i] = math.Ldexp(float64(d(1, 1<<20, "mantissa")), k-20-d(1, 40, "binades below"))
		default:
			keys[i] = 0
		}
	}
	// Subnormal scales: the keys above were rounded to the subnormal grid.
	// ε·λ = 2^k with λ = S/(1 − (n − ρ)ε), ρ = head: ε = 2^k/(S + (n − ρ)·2^k).
	s := new(big.Rat)
	for _, a := range keys[:head] {
		s.Add(s, new(big.Rat).SetFloat64(a))
	}
	e := new(big.Rat).SetFloat64(edge)
	den := new(big.Rat).Add(s, new(big.Rat).Mul(e, new(big.Rat).SetInt64(int64(n-head))))
	var eps float64
	if den.Sign() > 0 {
		eps = nudge(new(big.Rat).Quo(e, den), d(-3, 3, "ulps"))
	}
	top := 1 / float64(n)
	eps = math.Max(0, math.Min(eps, top))
	// Shuffle so that the head is not the first items.
	for i := n - 1; i > 0; i-- {
		j := d(0, i, "shuffle")
		keys[i], keys[j] = keys[j], keys[i]
	}
	return Instance{Keys: keys, Eps: eps}
}

// Property: on keys whose cutoff lies on a group edge (GroupEdge), the
// sampler agrees with the exact oracle, draws and per-attempt law
// included (VerifyLaw).
func groupEdgeProperty(newDist NewDist) func(*rapid.T) {
	return func(t *rapid.T) {
		in := GroupEdge(24).Draw(t, "instance")
		s := fillDist(t, newDist, in.Keys)
		require.NoError(t, VerifyLaw(s, in.Keys, in.Eps))
	}
}

// Property: on keys placed on the cutoff of Lemma 1 or a few ulps off it
// (NearCutoff), the sampler returns the exact ρ, p* within TV and draws
// by the exact law (VerifyLaw).
func lawNearCutoffProperty(newDist NewDist) func(*rapid.T) {
	return func(t *rapid.T) {
		in := NearCutoff(24).Draw(t, "instance")
		s := fillDist(t, newDist, in.Keys)
		require.NoError(t, VerifyLaw(s, in.Keys, in.Eps))
	}
}

// Property: with subnormal and tiny keys (TinyKeys), no item whose p
// rounds to 0 is drawn, and the law is p* (VerifyLaw).
func lawTinyKeysProperty(newDist NewDist) func(*rapid.T) {
	return func(t *rapid.T) {
		in := TinyKeys(24).Draw(t, "instance")
		s := fillDist(t, newDist, in.Keys)
		require.NoError(t, VerifyLaw(s, in.Keys, in.Eps))
	}
}

func lawEmpty(t TB, newDist NewDist) {
	s := newDist(0)
	src := rand.NewPCG(1, 2)
	require.Equal(t, 0, s.Len())
	require.ErrorIs(t, errSolve(s.Solve(0)), reweighted.ErrEmpty)
	require.ErrorIs(t, errSolve(s.Solve(math.NaN())), reweighted.ErrEmpty)
	require.ErrorIs(t, errProb(s.Prob(0, 0)), reweighted.ErrEmpty)
	require.ErrorIs(t, errProb(s.Prob(-1, math.NaN())), reweighted.ErrEmpty)
	require.ErrorIs(t, errSolve(reweighted.Draw(s, -1, src)), reweighted.ErrEmpty)
	require.ErrorIs(t, reweighted.DrawBatch(s, math.NaN(), src, false, make([]int, 1), nil), reweighted.ErrEmpty)
	require.ErrorIs(t, s.Set(0, 1), reweighted.ErrEmpty)
	require.ErrorIs(t, s.Set(-1, math.NaN()), reweighted.ErrEmpty)
	require.ErrorIs(t, reweighted.SetBatch(s, nil, nil), reweighted.ErrEmpty)
	if b, ok := s.(reweighted.BatchSetter); ok {
		require.ErrorIs(t, b.SetBatch([]int{0}, nil), reweighted.ErrEmpty)
	}
	if l, ok := s.(reweighted.LawSampler); ok {
		require.ErrorIs(t, errSolve(l.Draw(-1, src)), reweighted.ErrEmpty)
		require.ErrorIs(t, l.DrawBatch(math.NaN(), src, false, make([]int, 1), nil), reweighted.ErrEmpty)
	}
}

// Property: a new sampler holds n zero keys and draws uniformly, with ρ = n
// and λ = 0 at every bound.
func lawNewIsUniform(t TB, newDist NewDist) {
	for _, n := range []int{1, 2, 3, 7, 100} {
		s := newDist(n)
		keys := make([]float64, n)
		for _, eps := range EdgeEps(n) {
			require.NoError(t, VerifyLaw(s, keys, eps), "n = %d", n)
		}
	}
}

// Property: on hard key vectors (the map mode's edge cases) and at every
// edge bound the sampler agrees with the exact oracle.
func lawEdges(t TB, newDist NewDist) {
	for name, keys := range edgeCases() {
		s := fillDist(t, newDist, keys)
		for _, eps := range EdgeEps(len(keys)) {
			require.NoError(t, VerifyLaw(s, keys, eps), "%s at ε = %v", name, eps)
		}
	}
}

// Postcondition: the MaxSum check is exact. Keys 2^830, 2^830 − 2^777 and
// 2^778 sum to 2^831 + 2^777 > MaxSum although the float sum rounds to
// MaxSum; 2^830, 2^830 − 2^778 and 2^778 sum to MaxSum exactly.
func lawExactMaxSum(t TB, newDist NewDist) {
	s := fillDist(t, newDist, []float64{0x1p830, 0x1.fffffffffffffp829, 0})
	before := ObserveLaw(s)
	require.ErrorIs(t, s.Set(2, 0x1p778), reweighted.ErrKey)
	require.Equal(t, before, ObserveLaw(s), "a rejected Set changed the sampler")
	s = fillDist(t, newDist, []float64{0x1p830, 0x1.ffffffffffffep829, 0})
	require.NoError(t, s.Set(2, 0x1p778), "the keys sum to MaxSum exactly")
	require.ErrorIs(t, s.Set(2, math.Nextafter(0x1p778, 1e300)), reweighted.ErrKey)
	// A batch past MaxSum from keys all small: a check that looks only at
	// the largest key the sampler holds, not at the batch's, lets it by.
	// A sampler without a SetBatch of its own gets reweighted.SetBatch's
	// Sets and their restores: its keys come back, not always its draws
	// from a given source.
	s = fillDist(t, newDist, []float64{1, 2, 1})
	before = ObserveLaw(s)
	h := reweighted.MaxSum / 2
	require.ErrorIs(t, reweighted.SetBatch(s, []int{0, 1}, []float64{h, h}), reweighted.ErrKey)
	if _, ok := s.(reweighted.BatchSetter); ok {
		require.Equal(t, before, ObserveLaw(s), "a rejected SetBatch changed the sampler")
	} else {
		require.Equal(t, before.Keys, ObserveLaw(s).Keys, "a rejected SetBatch changed the keys")
	}
	require.NoError(t, reweighted.SetBatch(s, []int{1, 0}, []float64{h, math.Nextafter(h, 0)}), "the keys sum to less than MaxSum")
}

// Postcondition: −0 is stored as +0.
func lawNegativeZero(t TB, newDist NewDist) {
	s := newDist(3)
	require.NoError(t, s.Set(1, 5))
	require.NoError(t, s.Set(1, math.Copysign(0, -1)))
	require.False(t, math.Signbit(s.Key(1)), "−0 must be stored as 0")
	require.NoError(t, VerifyLaw(s, []float64{0, 0, 0}, 0))
	// And by a batch, over keys that were not 0 (a key that is 0 already
	// does not change).
	require.NoError(t, reweighted.SetBatch(s, []int{1, 2}, []float64{5, 3}))
	require.NoError(t, reweighted.SetBatch(s, []int{2, 1}, []float64{math.Copysign(0, -1), math.Copysign(0, -1)}))
	require.False(t, math.Signbit(s.Key(1)), "−0 must be stored as 0 by SetBatch")
	require.False(t, math.Signbit(s.Key(2)), "−0 must be stored as 0 by SetBatch")
	require.NoError(t, VerifyLaw(s, []float64{0, 0, 0}, 0))
}

// ObserveLaw is Observe for a sampler of either kind: its keys, and the
// answers of Solve and Prob at the edge bounds, and of Draw and DrawBatch
// (with and without replacement) from a fixed seed, which a sampler in a
// different state would answer differently.
func ObserveLaw(s reweighted.Distribution) Snapshot {
	return observe(s, func(o *Snapshot, eps float64) {
		src := rand.NewPCG(5, 6)
		for range 8 {
			i, p, err := reweighted.Draw(s, eps, src)
			o.Samples = append(o.Samples, fmt.Sprint(i, math.Float64bits(p), err))
		}
		m := min(s.Len(), 3)
		items, probs := make([]int, m), make([]float64, m)
		for _, replace := range []bool{true, false} {
			err := reweighted.DrawBatch(s, eps, src, replace, items, probs)
			o.Samples = append(o.Samples, fmt.Sprint(items, probs, err))
		}
	})
}

// Property: every error of the contract is reported with its sentinel and
// leaves the sampler exactly as it was, draws from a fixed seed included.
func lawBadInput(t TB, newDist NewDist) {
	s := newDist(5)
	n := s.Len()
	rng := rand.New(rand.NewPCG(uint64(n), 17))
	for i := range n - 1 {
		require.NoError(t, s.Set(i, KeyFromBits(byte(rng.IntN(6)), rng.Uint64(), 4*n)))
	}
	require.NoError(t, s.Set(n-1, reweighted.MaxSum/4))
	before := ObserveLaw(s)
	same := func(what string) {
		require.Equal(t, before, ObserveLaw(s), "%s changed the sampler", what)
	}
	for _, i := range []int{-1, n, math.MaxInt} {
		require.ErrorIs(t, s.Set(i, 1), reweighted.ErrIndex)
		require.ErrorIs(t, errProb(s.Prob(i, 0)), reweighted.ErrIndex)
	}
	for _, a := range []float64{math.NaN(), math.Inf(1), math.Inf(-1), -1, -5e-324, math.MaxFloat64, reweighted.MaxSum, reweighted.MaxSum * 0.8} {
		require.ErrorIs(t, s.Set(0, a), reweighted.ErrKey, "Set(0, %v)", a)
	}
	same("a rejected Set")
	src := rand.NewPCG(1, 1)
	for _, eps := range []float64{math.NaN(), -1, -5e-324, math.Nextafter(1/float64(n), 1), 1, math.Inf(1)} {
		require.ErrorIs(t, errSolve(s.Solve(eps)), reweighted.ErrEpsilon)
		require.ErrorIs(t, errProb(s.Prob(0, eps)), reweighted.ErrEpsilon)
		require.ErrorIs(t, errSolve(reweighted.Draw(s, eps, src)), reweighted.ErrEpsilon)
		require.ErrorIs(t, reweighted.DrawBatch(s, eps, src, true, make([]int, 2), make([]float64, 2)), reweighted.ErrEpsilon)
		if l, ok := s.(reweighted.LawSampler); ok {
			require.ErrorIs(t, errSolve(l.Draw(eps, src)), reweighted.ErrEpsilon)
			require.ErrorIs(t, l.DrawBatch(eps, src, true, make([]int, 2), make([]float64, 2)), reweighted.ErrEpsilon)
		}
	}
	if l, ok := s.(reweighted.LawSampler); ok {
		// A rejected batch uses no randomness and writes nothing.
		items, probs := []int{-7, -7, -7, -7, -7, -7}, make([]float64, 6)
		c := &countSource{Source: rand.NewPCG(3, 3)}
		require.ErrorIs(t, l.DrawBatch(0, c, true, items, probs[:5]), reweighted.ErrBatch)
		require.ErrorIs(t, l.DrawBatch(0, c, false, items, probs), reweighted.ErrBatch, "6 items without replacement from 5")
		require.Equal(t, []int{-7, -7, -7, -7, -7, -7}, items)
		require.Zero(t, c.calls, "a rejected DrawBatch used the source")
	}
	for _, bad := range [][]float64{{1}, make([]float64, n+1), {1, 2, 3, math.NaN(), 4}, {1, 1, 1, 1, reweighted.MaxSum}} {
		if l, ok := s.(loader); ok {
			require.Error(t, l.Load(bad), "Load(%v)", bad)
		}
		if len(bad) == n {
			items := seq(n)
			require.Error(t, reweighted.SetBatch(s, items, bad), "SetBatch(%v)", bad)
		}
	}
	if l, ok := s.(loader); ok {
		require.ErrorIs(t, l.Load(make([]float64, n+1)), reweighted.ErrBatch, "Load of n + 1 keys")
	}
	require.ErrorIs(t, reweighted.SetBatch(s, []int{0, 1}, []float64{1}), reweighted.ErrBatch)
	require.ErrorIs(t, reweighted.SetBatch(s, []int{0, n}, []float64{1, 1}), reweighted.ErrIndex)
	require.ErrorIs(t, reweighted.SetBatch(s, []int{0, 1}, []float64{1, -1}), reweighted.ErrKey)
	// Each key fits alone; together they pass MaxSum.
	require.ErrorIs(t, reweighted.SetBatch(s, []int{0, 1}, []float64{reweighted.MaxSum * 0.4, reweighted.MaxSum * 0.4}), reweighted.ErrKey)
	same("a rejected call")
	if c, ok := s.(Checker); ok {
		require.NoError(t, c.Check())
	}
}

// countSource counts the numbers drawn from it.
type countSource struct {
	rand.Source
	calls int
}

func (c *countSource) Uint64() uint64 { c.calls++; return c.Source.Uint64() }

// Property: errors come in the contract's order: ErrEmpty, then the
// arguments in the order of the signature.
func lawErrorOrder(t TB, newDist NewDist) {
	s := newDist(3)
	src := rand.NewPCG(1, 2)
	require.ErrorIs(t, s.Set(-1, math.NaN()), reweighted.ErrIndex)
	require.ErrorIs(t, errProb(s.Prob(-1, math.NaN())), reweighted.ErrIndex)
	require.ErrorIs(t, errProb(s.Prob(0, math.NaN())), reweighted.ErrEpsilon)
	require.ErrorIs(t, reweighted.DrawBatch(s, math.NaN(), src, false, make([]int, 9), nil), reweighted.ErrEpsilon)
	if l, ok := s.(reweighted.LawSampler); ok {
		require.ErrorIs(t, l.DrawBatch(math.NaN(), src, false, make([]int, 9), nil), reweighted.ErrEpsilon)
	}
}

// LawStateMachine is the model-based property of the law mode, on up to 24
// items: random sequences of Set (every kind of key, invalid ones
// included), SetBatch and Load against a plain slice of keys, with the
// sampler's Check after every action and VerifyLaw (exact ρ, λ, p*, draws
// and per-attempt law) at a drawn bound.
func LawStateMachine(newDist NewDist) func(*rapid.T) { return LawStateMachineN(newDist, 24) }

// LawStateMachineN is LawStateMachine on up to maxN items.
func LawStateMachineN(newDist NewDist, maxN int) func(*rapid.T) {
	return func(t *rapid.T) {
		n := rapid.IntRange(1, max(1, maxN)).Draw(t, "n")
		s := newDist(n)
		keys := make([]float64, n)
		t.Repeat(map[string]func(*rapid.T){
			"Set": func(t *rapid.T) {
				i := rapid.IntRange(-1, n).Draw(t, "i")
				a := rapid.OneOf(Key(n), rapid.Just(-1.0), rapid.Just(math.NaN()), rapid.Just(reweighted.MaxSum)).Draw(t, "a")
				err := s.Set(i, a)
				ok := i >= 0 && i < n && a >= 0 && a <= reweighted.MaxSum && fitsExact(keys, i, a)
				if !ok {
					require.Error(t, err)
					return
				}
				require.NoError(t, err)
				keys[i] = a + 0
			},
			"SetBatch": func(t *rapid.T) {
				m := rapid.IntRange(0, 2*n).Draw(t, "m")
				items := rapid.SliceOfN(rapid.IntRange(0, n-1), m, m).Draw(t, "items")
				batch := rapid.SliceOfN(Key(n), m, m).Draw(t, "keys")
				next := append([]float64(nil), keys...)
				for k, i := range items {
					next[i] = batch[k] + 0
				}
				err := reweighted.SetBatch(s, items, batch)
				if !sumFits(next) {
					require.ErrorIs(t, err, reweighted.ErrKey)
					return
				}
				require.NoError(t, err)
				keys = next
			},
			"Load": func(t *rapid.T) {
				l, ok := s.(loader)
				if !ok {
					t.Skip("no Load")
				}
				next := Keys(n).Draw(t, "keys")
				err := l.Load(next)
				if !sumFits(next) {
					require.ErrorIs(t, err, reweighted.ErrKey)
					return
				}
				require.NoError(t, err)
				copy(keys, next)
			},
			"": func(t *rapid.T) {
				if c, ok := s.(Checker); ok {
					require.NoError(t, c.Check())
				}
				require.NoError(t, VerifyLaw(s, keys, Eps(n).Draw(t, "eps")))
			},
		})
	}
}

// sumFits reports whether the exact sum of keys is at most MaxSum.
func sumFits(keys []float64) bool {
	s := new(big.Rat)
	for _, a := range keys {
		s.Add(s, new(big.Rat).SetFloat64(a))
	}
	return s.Cmp(new(big.Rat).SetFloat64(reweighted.MaxSum)) <= 0
}

// fitsExact reports whether keys with a in place of keys[i] sum to at most
// MaxSum, exactly.
func fitsExact(keys []float64, i int, a float64) bool {
	next := append([]float64(nil), keys...)
	next[i] = a
	return sumFits(next)
}

// Property: Load(keys), where the sampler has it, gives the sampler of
// those keys, and a rejected Load changes nothing.
func lawLoadProperty(newDist NewDist) func(*rapid.T) {
	return func(t *rapid.T) {
		n := rapid.IntRange(1, 24).Draw(t, "n")
		s := newDist(n)
		l, ok := s.(loader)
		if !ok {
			t.Skip("no Load")
		}
		keys := Keys(n).Draw(t, "keys")
		if !sumFits(keys) {
			before := ObserveLaw(s)
			require.ErrorIs(t, l.Load(keys), reweighted.ErrKey)
			require.Equal(t, before, ObserveLaw(s))
			return
		}
		require.NoError(t, l.Load(keys))
		require.NoError(t, VerifyLaw(s, keys, Eps(n).Draw(t, "eps")))
	}
}

// lawCase is a key vector of a boundary class and the bounds to draw at.
type lawCase struct {
	name string
	keys []float64
	eps  []float64
}

// lawCases are the boundary classes of the χ² tests: exact ties, keys a
// few ulps from the cutoff, zeros, subnormals, keys across the whole float
// range, all keys in one group, ρ ending on a group edge, and a group
// wholly in the tail whose upper edge lies above the cutoff; each at ε = 0,
// 1/(2n), 1/n and its own special bounds.
func lawCases() []lawCase {
	rng := rand.New(rand.NewPCG(11, 12))
	var cs []lawCase
	add := func(name string, keys []float64, eps ...float64) {
		n := float64(len(keys))
		cs = append(cs, lawCase{name, keys, append([]float64{0, 1 / (2 * n), 1 / n}, eps...)})
	}
	spread := make([]float64, 30)
	for i := range spread {
		spread[i] = math.Ldexp(1+rng.Float64(), rng.IntN(16)-8)
	}
	add("spread", spread)
	ties := []float64{3, 3, 3, 1, 1, 1, 1, 0.5, 0.5, 0, 0, 2, 2}
	add("ties and zeros", ties)
	// All keys within a factor 1 + 2^-10: one group at any grouping.
	one := make([]float64, 24)
	for i := range one {
		one[i] = 1 + math.Ldexp(float64(i), -15)
	}
	add("one group", one, 1/float64(2*24)*0.9)
	wide := []float64{0x1p-1074, 0x1p-1030, 0x1p-900, 0x1p-300, 1e-20, 1, 1e20, 0x1p300, 0x1p600, 0x1p-1073, 0, 3}
	add("whole range", wide, 1e-300, 1e-30)
	sub := []float64{5e-324, 1e-323, 2e-323, 0x1p-1050, 0x1p-1030, 0x0.8p-1022, 3e-323, 0}
	add("subnormals", sub, 5e-324, 1e-3)
	// Near-ties: keys a few ulps either side of each other.
	near := make([]float64, 20)
	for i := range near {
		near[i] = math.Nextafter(1.5, float64(1-2*(i%2))*math.Inf(1))
		for range i / 2 {
			near[i] = math.Nextafter(near[i], 3)
		}
	}
	add("near-ties", near)
	// Cutoff on a group edge: seeded GroupEdge instances, the edge ε with
	// the bounds a few ulps either side.
	for seed := range uint64(4) {
		r := rand.New(rand.NewPCG(seed, 99))
		in := GroupEdgeFromBits(12+int(seed)*4, r.Uint64)
		es := []float64{in.Eps}
		for _, k := range []int{-2, 2} {
			if e := nudge(new(big.Rat).SetFloat64(in.Eps), k); e >= 0 && e <= 1/float64(len(in.Keys)) {
				es = append(es, e)
			}
		}
		add(fmt.Sprintf("group edge %d", seed), in.Keys, es...)
	}
	// A group wholly in the tail with its upper edge above the cutoff: head
	// keys 4, 4, tail keys in [1 − 2^-6, 1) and just below 1, with ε such
	// that ε·λ is a hair below 1.
	tail := []float64{4, 4, 0.99, 0.985, 0.9999, math.Nextafter(1, 0), 0.99, 0.98, 0.5, 0.25}
	// ε·λ = 1 when ε = 1/(S + (n − 2)) with S = 8.
	e := 1 / float64(8+len(tail)-2)
	add("tail group below the edge", tail, e, math.Nextafter(e, 0), math.Nextafter(e, 1))
	return cs
}

// chiSquared returns the p-value of counts against the exact p*, failing
// if an item with p* = 0 was drawn.
func chiSquared(t TB, ex *Exact, counts []float64, draws int, what string) float64 {
	stat, df := 0.0, -1.0
	var restC, restE float64
	for i, c := range counts {
		p := ratFloat(ex.P[i])
		if ex.P[i].Sign() == 0 {
			require.Zero(t, c, "%s: item %d has p* = 0 but was drawn", what, i)
			continue
		}
		e := p * float64(draws)
		if e < 5 {
			// Pool the cells too small for the χ² approximation.
			restC += c
			restE += e
			continue
		}
		stat += (c - e) * (c - e) / e
		df++
	}
	if restE >= 5 {
		stat += (restC - restE) * (restC - restE) / restE
		df++
	} else {
		require.LessOrEqual(t, restC, 5+10*restE, "%s: %v draws of items expected %.3g times", what, restC, restE)
	}
	if df < 1 {
		return 1
	}
	return distuv.ChiSquared{K: df}.Survival(stat)
}

// minPValue is the p-value below which a χ² test fails: at fixed seeds a
// correct sampler passes with certainty, and over the dozens of tests of
// the kit a fluke would come once in a thousand changes of seed.
const minPValue = 1e-5

// drawsFlag is the number of draws of each χ² test, the flag
// -samplertest.draws: 10^5 by default, which catches a 5% over-draw of the
// items at ε hidden from AttemptProbs (TestLawChiSquareHasPower); fewer
// under the race detector, which makes every draw some ten times slower.
var drawsFlag = flag.Int("samplertest.draws", defaultDraws(),
	"draws of each χ² test of the conformance kit (at least 1000; 10^6 for a long run)")

func defaultDraws() int {
	if raceEnabled {
		return 20_000
	}
	return 100_000
}

// minDraws is the fewest draws -samplertest.draws may ask for.
const minDraws = 1000

// chiDraws returns the number of draws of each χ² test, failing if the flag
// asks for too few.
func chiDraws(t TB) int {
	require.GreaterOrEqual(t, *drawsFlag, minDraws, "-samplertest.draws")
	return *drawsFlag
}

// Property: the law of Draw is p* (χ² goodness of fit against the exact
// oracle, a tenth of -samplertest.draws, 10^4 by default, on each boundary
// class and bound; BatchChiSquare has the power), both from a sampler that
// was only filled and from one that draws and updates have left holding
// the same keys (warm), and no item with p* = 0 is drawn.
func lawChiSquare(t TB, newDist NewDist) {
	draws := chiDraws(t) / 10
	for k, c := range lawCases() {
		s := fillDist(t, newDist, c.keys)
		for j, eps := range c.eps {
			ex := Oracle(c.keys, eps)
			for _, warmed := range []bool{false, true} {
				src := rand.NewPCG(uint64(k), uint64(j))
				if warmed {
					warm(t, s, c.keys, eps, src)
				}
				counts := make([]float64, len(c.keys))
				for range draws {
					i, _, err := reweighted.Draw(s, eps, src)
					require.NoError(t, err)
					counts[i]++
				}
				pv := chiSquared(t, ex, counts, draws, fmt.Sprintf("%s at ε = %v%s", c.name, eps, warmText[warmed]))
				require.Greater(t, pv, minPValue, "%s at ε = %v%s: Draw's law is not p*; keys %v, ρ = %d; %s",
					c.name, eps, warmText[warmed], c.keys, ex.Rho, mostOff(ex, counts, draws, false))
			}
		}
	}
}

// warmText names the state a χ² test draws from.
var warmText = map[bool]string{false: "", true: ", after draws and updates"}

// warm draws from s, which holds keys, at eps, changes the key of item 0
// and draws again, then sets it back: s holds keys again, in the state
// that draws and updates leave, so that a sampler that keeps something
// from one call to the next (a solution, a table) is drawn from with it.
func warm(t TB, s reweighted.Distribution, keys []float64, eps float64, src rand.Source) {
	other := keys[0] / 2
	if keys[0] == 0 {
		other = math.SmallestNonzeroFloat64
	}
	for _, a := range []float64{other, keys[0]} {
		_, _, err := reweighted.Draw(s, eps, src)
		require.NoError(t, err)
		require.NoError(t, s.Set(0, a))
	}
}

// Property: DrawBatch with replacement draws independently from p* (χ² of
// -samplertest.draws draws, 10^5 by default, in batches of 64 on each
// boundary class and bound: the test's power; the second half of the
// batches after draws and updates, warm), and without replacement its
// first item follows p* (χ² of the first items of a quarter as many
// batches of 3, at ε = 1/(2n)).
func lawBatchChiSquare(t TB, newDist NewDist) {
	lawDraws := chiDraws(t)
	for k, c := range lawCases() {
		s := fillDist(t, newDist, c.keys)
		n := len(c.keys)
		items, probs := make([]int, 64), make([]float64, 64)
		for j, eps := range c.eps {
			ex := Oracle(c.keys, eps)
			src := rand.NewPCG(uint64(k), uint64(77+j))
			counts := make([]float64, n)
			for b := range lawDraws / 64 {
				if b == lawDraws/128 {
					warm(t, s, c.keys, eps, src) // half the batches after draws and updates
				}
				require.NoError(t, reweighted.DrawBatch(s, eps, src, true, items, probs))
				for _, i := range items {
					counts[i]++
				}
			}
			pv := chiSquared(t, ex, counts, lawDraws/64*64, c.name+" with replacement")
			require.Greater(t, pv, minPValue, "%s at ε = %v: DrawBatch with replacement is not p*; keys %v, ρ = %d; %s",
				c.name, eps, c.keys, ex.Rho, mostOff(ex, counts, lawDraws/64*64, false))
		}
		eps := c.eps[1]
		ex := Oracle(c.keys, eps)
		src := rand.NewPCG(uint64(k), 76)
		first := make([]float64, n)
		m := min(3, n)
		for range lawDraws / 4 {
			require.NoError(t, reweighted.DrawBatch(s, eps, src, false, items[:m], probs[:m]))
			first[items[0]]++
		}
		pv := chiSquared(t, ex, first, lawDraws/4, c.name+" first of a batch")
		require.Greater(t, pv, minPValue, "%s at ε = %v: the first item of a batch without replacement is not p*; keys %v, ρ = %d; %s",
			c.name, eps, c.keys, ex.Rho, mostOff(ex, first, lawDraws/4, false))
	}
}

// Property: the ordered pairs of DrawBatch without replacement follow the
// exact law of ordered successive sampling, p_i·p_j/(1 − p_i), computed
// from the exact p* in rational arithmetic (χ² over the n(n − 1) cells,
// 1.5 times -samplertest.draws batches, 1.5·10^5 by default).
func lawOrderedPairs(t TB, newDist NewDist) {
	lawDraws := chiDraws(t)
	for k, c := range []struct {
		keys []float64
		eps  float64
	}{
		{[]float64{4, 1, 1, 0.5, 0, 2, 0.25}, 1.0 / 14},
		{[]float64{4, 1, 1, 0.5, 0, 2, 0.25}, 0},
		{[]float64{1, 1, 1, 0x1p-3, 0x1.fffffffffffffp-4, 0}, 1.0 / 12},
	} {
		s := fillDist(t, newDist, c.keys)
		n := len(c.keys)
		ex := Oracle(c.keys, c.eps)
		cells := make([]float64, n*n)
		src := rand.NewPCG(uint64(k), 5)
		items, probs := make([]int, 2), make([]float64, 2)
		batches := 3 * lawDraws / 2
		for range batches {
			require.NoError(t, reweighted.DrawBatch(s, c.eps, src, false, items, probs))
			require.NotEqual(t, items[0], items[1])
			cells[items[0]*n+items[1]]++
		}
		stat, df := 0.0, -1.0
		var off []pairOff
		one := big.NewRat(1, 1)
		for i := range n {
			for j := range n {
				if i == j {
					continue
				}
				p := new(big.Rat).Mul(ex.P[i], ex.P[j])
				rest := new(big.Rat).Sub(one, ex.P[i])
				if rest.Sign() == 0 || p.Sign() == 0 {
					require.Zero(t, cells[i*n+j], "pair (%d, %d) has probability 0", i, j)
					continue
				}
				e := ratFloat(p.Quo(p, rest)) * float64(batches)
				if e < 5 {
					continue
				}
				o := cells[i*n+j]
				stat += (o - e) * (o - e) / e
				df++
				off = append(off, pairOff{i, j, o, e})
			}
		}
		pv := distuv.ChiSquared{K: df}.Survival(stat)
		if pv <= minPValue {
			slices.SortFunc(off, func(a, b pairOff) int { return cmpFloat(math.Abs(b.z()), math.Abs(a.z())) })
			parts := []string{}
			for _, q := range off[:min(3, len(off))] {
				parts = append(parts, fmt.Sprintf("(%d, %d): %.0f batches, %.1f expected (z = %+.3g)", q.i, q.j, q.o, q.e, q.z()))
			}
			require.Greater(t, pv, minPValue, "keys %v at ε = %v: χ² = %.1f on %v degrees of freedom; the ordered pairs most off: %s",
				c.keys, c.eps, stat, df, strings.Join(parts, "; "))
		}
	}
}

// pairOff is an ordered pair's count o against its expected count e.
type pairOff struct {
	i, j int
	o, e float64
}

func (q pairOff) z() float64 { return (q.o - q.e) / math.Sqrt(q.e) }

// Property: without replacement at ε = 0 with fewer positive keys than the
// batch, DrawBatch terminates, draws the positive items first and then the
// items of p* = 0 with p = 0, all distinct, and the zeros uniformly (over a
// tenth of -samplertest.draws batches).
func lawBatchFallback(t TB, newDist NewDist) {
	keys := []float64{0, 5, 0, 0, 3, 0}
	s := fillDist(t, newDist, keys)
	items, probs := make([]int, 5), make([]float64, 5)
	src := rand.NewPCG(8, 9)
	third := make([]float64, len(keys))
	batches := chiDraws(t) / 10
	for range batches {
		require.NoError(t, reweighted.DrawBatch(s, 0, src, false, items, probs))
		seen := map[int]bool{}
		for k, i := range items {
			require.False(t, seen[i], "item %d twice in %v", i, items)
			seen[i] = true
			if k < 2 {
				require.Positive(t, keys[i], "the positive items come first: %v", items)
				want, err := s.Prob(i, 0)
				require.NoError(t, err)
				require.Equal(t, want, probs[k])
			} else {
				require.Zero(t, keys[i])
				require.Zero(t, probs[k])
			}
		}
		third[items[2]]++
	}
	// Uniform over four zeros: batches/4 expected each, sd √(3·batches)/4;
	// 8 sd either side (at 10^4 batches, 2,500 ± 346).
	sd := math.Sqrt(3*float64(batches)) / 4
	for _, i := range []int{0, 2, 3, 5} {
		require.InDelta(t, float64(batches)/4, third[i], 8*sd, "item %d third in %v of %d batches", i, third[i], batches)
	}
}

// Property: the read methods (Len, Key, Solve, Prob, Probs, Draw,
// DrawBatch and AttemptProbs) may run concurrently: the race detector
// sees no conflict, and each goroutine reads the same answers.
func lawConcurrentReads(t TB, newDist NewDist) {
	const n = 300
	rng := rand.New(rand.NewPCG(5, 6))
	keys := make([]float64, n)
	for i := range keys {
		keys[i] = rng.ExpFloat64()
	}
	s := fillDist(t, newDist, keys)
	eps := 1 / float64(2*n)
	want := ObserveLaw(s)
	var wg sync.WaitGroup
	errs := make([]error, 4)
	for g := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			src := rand.NewPCG(uint64(g), 1)
			items, probs := make([]int, 16), make([]float64, 16)
			for range 50 {
				if _, _, err := s.Solve(eps); err != nil {
					errs[g] = err
					return
				}
				if _, _, err := reweighted.Draw(s, eps, src); err != nil {
					errs[g] = err
					return
				}
				if err := reweighted.DrawBatch(s, eps, src, false, items, probs); err != nil {
					errs[g] = err
					return
				}
				if a, ok := s.(Attempter); ok {
					if _, err := a.AttemptProbs(eps, nil); err != nil {
						errs[g] = err
						return
					}
				}
			}
			if got := ObserveLaw(s); fmt.Sprint(got) != fmt.Sprint(want) {
				errs[g] = errors.New("a concurrent reader saw another sampler")
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		require.NoError(t, err)
	}
}

// Cost: Set, Draw, and a batch step — DrawBatch of 128 without replacement
// and SetBatch of their new keys — allocate nothing in steady state.
func lawZeroAllocs(t TB, newDist NewDist) {
	const n, m = 2000, 128
	rng := rand.New(rand.NewPCG(3, 4))
	key := func() float64 { return rng.ExpFloat64() }
	s := newDist(n)
	for i := range n {
		require.NoError(t, s.Set(i, key()))
	}
	eps := 1 / float64(2*n)
	src := rand.NewPCG(1, 1)
	step := func() {
		i, _, err := reweighted.Draw(s, eps, src)
		if err != nil {
			panic(err)
		}
		if err := s.Set(i, key()); err != nil {
			panic(err)
		}
	}
	items, probs, keys := make([]int, m), make([]float64, m), make([]float64, m)
	batch := func() {
		if err := reweighted.DrawBatch(s, eps, src, false, items, probs); err != nil {
			panic(err)
		}
		for k := range keys {
			keys[k] = key()
		}
		if err := reweighted.SetBatch(s, items, keys); err != nil {
			panic(err)
		}
	}
	// Steady state: the keys are redrawn from one law, but the number of
	// groups of each size in a law-exact sampler of pooled slices wanders,
	// and the pools grow until they hold its highs (for levels, a run of
	// 4n/m batch steps before the count left 3 of 100 seeds to allocate).
	for range 2 * n {
		step()
	}
	for range 20 * n / m {
		batch()
	}
	// The probes of Draw, DrawBatch and SetBatch cache the type once (see
	// probeCalls); the cache is by type: a small sampler fills it.
	small := newDist(1)
	for range probeCalls {
		_, _, _ = reweighted.Draw(small, 0, src)
		_ = reweighted.DrawBatch(small, 0, src, false, items[:1], probs[:1])
		_ = reweighted.SetBatch(small, nil, nil)
	}
	if raceEnabled {
		// The race detector makes sync.Pool drop items at random.
		return
	}
	require.Zero(t, allocs(2000, step), "allocations in 2000 Draw+Set")
	require.Zero(t, allocs(100, batch), "allocations in 100 batch steps")
	for _, e := range []float64{0, eps, 1 / float64(n)} {
		require.Zero(t, allocs(200, func() { _, _, _ = s.Solve(e) }), "allocations in 200 Solve(%v)", e)
		require.Zero(t, allocs(500, func() { _, _ = s.Prob(rng.IntN(n), e) }), "allocations in 500 Prob(%v)", e)
	}
}
