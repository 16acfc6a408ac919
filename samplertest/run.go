package samplertest

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"runtime/debug"

	"github.com/reweighted/reweighted"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/stat/distuv"
	"pgregory.net/rapid"
)

// fill returns a sampler of len(keys) items holding keys, set in index order.
func fill(t require.TestingT, newSampler New, keys []float64) reweighted.Sampler {
	s := newSampler(len(keys))
	for i, a := range keys {
		require.NoError(t, s.Set(i, a), "Set(%d, %v)", i, a)
	}
	return s
}

// errSolve keeps the error of Solve or Sample, errProb that of Prob.
func errSolve(_ int, _ float64, err error) error { return err }
func errProb(_ float64, err error) error         { return err }

func testEmpty(t TB, newSampler New) {
	s := newSampler(0)
	require.Equal(t, 0, s.Len())
	require.ErrorIs(t, errSolve(s.Solve(0)), reweighted.ErrEmpty)
	require.ErrorIs(t, errSolve(s.Sample(0, 0.5)), reweighted.ErrEmpty)
	// ErrEmpty comes before the checks of the arguments.
	require.ErrorIs(t, errSolve(s.Solve(math.NaN())), reweighted.ErrEmpty)
	require.ErrorIs(t, errSolve(s.Sample(-1, 2)), reweighted.ErrEmpty)
	require.ErrorIs(t, errProb(s.Prob(0, 0)), reweighted.ErrEmpty)
	require.ErrorIs(t, errProb(s.Prob(-1, math.NaN())), reweighted.ErrEmpty)
	// Set too: ErrEmpty before its index and key are checked.
	require.ErrorIs(t, s.Set(0, 1), reweighted.ErrEmpty)
	require.ErrorIs(t, s.Set(-1, math.NaN()), reweighted.ErrEmpty)
}

// Property: a new sampler holds n zero keys, and its distribution is uniform
// with ρ = n and λ = 0 at every bound.
func testNewIsUniform(t TB, newSampler New) {
	for _, n := range []int{1, 2, 3, 7, 100} {
		s := newSampler(n)
		keys := make([]float64, n)
		for _, eps := range EdgeEps(n) {
			// Verify asks ρ = n and λ = 0 of keys that are all 0.
			require.NoError(t, Verify(s, keys, eps, EdgeU), "n = %d", n)
			i, p, err := s.Sample(eps, 0.5)
			require.NoError(t, err)
			require.Equal(t, n/2, i, "all keys 0: u = 0.5 draws rank ⌊n/2⌋+1, which is item ⌊n/2⌋")
			require.Equal(t, 1/float64(n), p)
		}
	}
}

// edgeCases are key vectors that stress the arithmetic: the whole exponent
// range, subnormals, ties and single positive keys.
func edgeCases() map[string][]float64 {
	top := hugeExp(64) + 20
	pow := []float64{}
	for e := -1074; e <= top; e += 37 {
		pow = append(pow, math.Ldexp(1, e))
	}
	sub := []float64{}
	for m := 1; m <= 12; m++ {
		sub = append(sub, math.Ldexp(float64(m%5), -1074))
	}
	mixed := []float64{math.Ldexp(1, top), 5e-324, 0, 1, math.Ldexp(3, top-1), 1e-310, 0, 2}
	geo := []float64{}
	for k := range 40 {
		geo = append(geo, math.Pow(0.7, float64(k)))
	}
	// More tied largest keys than a bucket holds before it splits (512 in
	// levels), above keys of three smaller values: at ε = 1/n, ρ is the
	// number of ties, which levels once counted as 0 in a split bucket.
	crowd := make([]float64, 700)
	for i := range crowd {
		crowd[i] = 3
		if i%5 == 4 {
			crowd[i] = float64(i % 3)
		}
	}
	return map[string][]float64{
		"one":            {0.5},
		"one zero":       {0},
		"zeros":          make([]float64, 9),
		"single":         {0, 0, 3, 0, 0},
		"ties":           {2, 2, 2, 2, 2, 2},
		"ties and zeros": {0, 1, 0, 1, 1, 0, 1},
		"powers of two":  pow,
		"subnormals":     sub,
		"huge":           {math.Ldexp(1, top), math.Ldexp(1, top), math.Ldexp(1, top-3)},
		"huge and tiny":  mixed,
		"geometric":      geo,
		"crowded top":    crowd,
		"one big":        {1e6, 1, 1, 1, 1, 1, 1, 1, 1, 1},
		// Found by the state machine: a sum of 2^-1073 once made the
		// power-of-two scale of the target overflow to +Inf.
		"two smallest": {5e-324, 5e-324},
		// A regression: the key 1e-323 at the bottom of the head has p* about
		// 1.8e-324, which rounds to 0; at ε = 0 the u below 1 once drew it.
		"subnormal last":   {0, 2.1286503010020037, 0, 0.503301709312354, 0, 1e-323, 0.375656445219138, 1, 0, 1.5062268981686218, 0},
		"subnormal bottom": {5e-324, 1, 0x1p-1022, 3e-323, 0.5},
		// TinyKeys: without the fix, btree and segtree drew the key 5e-324
		// at u = 1 − 2^-53, and ost the key 2e-323.
		"subnormal last (trees)": {1.043817185873235, 0.28004137973858634, 0.3706941883833663, 5e-324, 1.0311971326354983},
		"subnormal last (ost)": {2.0738239881738247e+180, 9.406614964626812e+179, 1.7580979352937294e+180, 2.0446507966956158e+180,
			2.3761983177346895e+180, 2e-323, 4.7296733892657385e+180, 9.422330494099876e+179, 1.5639030997258718e+180},
	}
}

// Property: on hard key vectors and at every edge bound the sampler agrees
// with the exact oracle.
func testEdges(t TB, newSampler New) {
	for name, keys := range edgeCases() {
		s := fill(t, newSampler, keys)
		for _, eps := range EdgeEps(len(keys)) {
			require.NoError(t, Verify(s, keys, eps, EdgeU), "%s at ε = %v", name, eps)
		}
	}
}

// Property: the item at rank ρ is drawn when u is inside its interval (the
// bug of the only other public implementation was to skip it), and an item
// with p = 0 never is.
func testDrawsRankRho(t TB, newSampler New) {
	// ρ = n = 2 at ε = 0: with partial sums that leave out a node's own
	// key, u just below 1 would not draw rank 2.
	s := fill(t, newSampler, []float64{3, 1})
	rho, lambda, err := s.Solve(0)
	require.NoError(t, err)
	require.Equal(t, 2, rho)
	require.Equal(t, 4.0, lambda)
	for u, want := range map[float64][2]float64{0: {0, 0.75}, 0.74: {0, 0.75}, 0.75: {1, 0.25}, math.Nextafter(1, 0): {1, 0.25}} {
		i, p, err := s.Sample(0, u)
		require.NoError(t, err)
		require.Equal(t, want, [2]float64{float64(i), p}, "keys 3, 1 at ε = 0, u = %v: (item, p)", u)
	}
	// ε = 0 ranks the zero keys inside ρ = n; none may be drawn.
	s = fill(t, newSampler, []float64{0, 0, 0x1p-1074, 0})
	rho, _, err = s.Solve(0)
	require.NoError(t, err)
	require.Equal(t, 4, rho)
	for _, u := range EdgeU {
		i, p, err := s.Sample(0, u)
		require.NoError(t, err)
		require.Equal(t, [2]float64{2, 1}, [2]float64{float64(i), p}, "one key 2^-1074 at ε = 0, u = %v: (item, p)", u)
	}
	keys := []float64{1, 8, 2, 4, 0.5, 0.25}
	s = fill(t, newSampler, keys)
	for _, eps := range []float64{0.01, 0.05, 0.1, 0.15} {
		ex := Oracle(keys, eps)
		rho, _, err := s.Solve(eps)
		require.NoError(t, err)
		require.Equal(t, ex.Rho, rho, "ε = %v", eps)
		item := ex.Order[rho-1]
		lo, hi := ex.Interval(item, rho)
		for _, w := range []float64{0.01, 0.5, 0.99} {
			u := ratFloat(lo)*(1-w) + ratFloat(hi)*w
			got, _, err := s.Sample(eps, u)
			require.NoError(t, err)
			require.Equal(t, item, got, "ε = %v, u = %v inside the interval of rank ρ = %d", eps, u, rho)
		}
	}
}

// Regression: three of four keys within an ulp of the cutoff.
// Exact arithmetic gives ρ = 2, λ = 0x1.e227248e46748p+2 and the intervals
// item 2 [0, 0.625), item 0 [0.625, 0.75), item 3 [0.75, 0.875), item 1
// [0.875, 1); the float predicate gave ρ = 4 and drew item 1 at u = 0.78125.
func testNearCutoffRegression(t TB, newSampler New) {
	keys := []float64{0x1.e227248e46749p-1, 0x1.e227248e46748p-1, 0x1.2d5876d8ec08dp+2, 0x1.e227248e46748p-1}
	s := fill(t, newSampler, keys)
	rho, lambda, err := s.Solve(0x1p-3)
	require.NoError(t, err)
	require.Equal(t, 2, rho)
	require.Equal(t, 0x1.e227248e46748p+2, lambda)
	for u, want := range map[float64]int{0.3: 2, 0.7: 0, 0x1.9p-1: 3, 0.8: 3, 0.9: 1} {
		i, p, err := s.Sample(0x1p-3, u)
		require.NoError(t, err)
		require.Equal(t, want, i, "Sample(1/8, %v)", u)
		if want == 3 || want == 1 {
			require.Equal(t, 0x1p-3, p)
		}
	}
	require.NoError(t, Verify(s, keys, 0x1p-3, EdgeU))
}

// Property: on keys placed on the cutoff of Lemma 1 or a few ulps off it, at
// every scale, the sampler returns the exact ρ and draws, at 64 spread u and
// at every interval's midpoint and edges, the item of the exact interval.
func nearCutoffProperty(newSampler New) func(*rapid.T) {
	return func(t *rapid.T) {
		in := NearCutoff(24).Draw(t, "instance")
		s := fill(t, newSampler, in.Keys)
		us := make([]float64, 64)
		for k := range us {
			us[k] = min((float64(k)+rapid.Float64Range(0, 1).Draw(t, "du"))/64, math.Nextafter(1, 0))
		}
		require.NoError(t, Verify(s, in.Keys, in.Eps, us))
	}
}

// Property: with subnormal and tiny keys at either end of the canonical
// order (TinyKeys), at ε = 0 and tiny ε, the draws at the ends of [0, 1),
// at the edges and midpoint of every exact interval and at a drawn u have
// p > 0 and lie within UDist of their exact interval (Verify).
func tinyKeysProperty(newSampler New) func(*rapid.T) {
	return func(t *rapid.T) {
		in := TinyKeys(24).Draw(t, "instance")
		s := fill(t, newSampler, in.Keys)
		require.NoError(t, Verify(s, in.Keys, in.Eps, append([]float64{U().Draw(t, "u")}, NearEdgeU...)))
	}
}

// Postcondition: the MaxSum check is exact. Keys 2^830, 2^830 − 2^777 and
// 2^778 sum to 2^831 + 2^777 > MaxSum although the float sum rounds to
// MaxSum; 2^830, 2^830 − 2^778 and 2^778 sum to MaxSum exactly. The law
// mode's check, whose snapshot of a map-exact sampler draws through Sample.
func testExactMaxSum(t TB, newSampler New) {
	lawExactMaxSum(t, func(n int) reweighted.Distribution { return newSampler(n) })
}

// Postcondition: −0 is stored as +0.
func testNegativeZero(t TB, newSampler New) {
	s := newSampler(3)
	require.NoError(t, s.Set(1, 5))
	require.NoError(t, s.Set(1, math.Copysign(0, -1)))
	require.False(t, math.Signbit(s.Key(1)), "−0 must be stored as 0")
	require.NoError(t, Verify(s, []float64{0, 0, 0}, 0, EdgeU))
}

// Snapshot is everything a caller can observe of a sampler, bit for bit:
// keys, and the answers of Solve, Prob and Sample at the edge bounds and
// uniform numbers. Two equal snapshots mean no caller can tell the samplers
// apart on those inputs.
type Snapshot struct {
	Keys    []uint64
	Solve   []string
	Probs   []uint64
	Samples []string
}

// Observe takes the Snapshot of s.
func Observe(s reweighted.Sampler) Snapshot {
	return observe(s, func(o *Snapshot, eps float64) {
		for _, u := range EdgeU {
			i, p, err := s.Sample(eps, u)
			o.Samples = append(o.Samples, fmt.Sprint(i, math.Float64bits(p), err))
		}
	})
}

// observe takes the keys of s and, at each edge bound, the answers of
// Solve and Prob, then calls draws to add what the sampler draws.
func observe(s reweighted.Distribution, draws func(o *Snapshot, eps float64)) Snapshot {
	n := s.Len()
	var o Snapshot
	for i := range n {
		o.Keys = append(o.Keys, math.Float64bits(s.Key(i)))
	}
	if n == 0 {
		return o
	}
	for _, eps := range EdgeEps(n) {
		rho, lambda, err := s.Solve(eps)
		o.Solve = append(o.Solve, fmt.Sprint(rho, math.Float64bits(lambda), err))
		for i := range n {
			p, _ := s.Prob(i, eps)
			o.Probs = append(o.Probs, math.Float64bits(p))
		}
		draws(&o, eps)
	}
	return o
}

// Property: every error of the contract is reported with its sentinel and
// leaves the sampler exactly as it was.
func testBadInput(t TB, newSampler New) {
	s := newSampler(5)
	RejectsBadInput(t, s, func() any { return Observe(s) })
	for i, a := range []float64{3, 0, 1, 1} {
		require.NoError(t, s.Set(i, a))
	}
	// Item 4 holds MaxSum/4: once it makes room, a key of 0.76·MaxSum fits.
	require.NoError(t, s.Set(4, 0))
	require.NoError(t, s.Set(0, reweighted.MaxSum*0.76))
	// Raising a large key: the check counts the new key in place of the
	// old one, never beside it (0.76·MaxSum + 0.9·MaxSum would pass MaxSum;
	// 0.9·MaxSum + 5 does not).
	require.NoError(t, s.Set(0, reweighted.MaxSum*0.9), "Set(0, 0.9·MaxSum) over 0.76·MaxSum")
	require.Equal(t, reweighted.MaxSum*0.9, s.Key(0))
}

// RejectsBadInput fills s, a sampler of at least two items, with seeded keys
// of every kind (zeros, ties, subnormal, huge) and MaxSum/4 as its last
// key, then makes every kind of invalid call: indices out of range, NaN,
// infinite, negative and too large keys, a key that fits alone but not
// beside the others, bounds outside [0, 1/n], uniform numbers outside
// [0, 1) and, if s has Load, bad key vectors. Each must return its sentinel
// error and leave state() as it was before the first call: Observe(s) for
// what a caller sees, or a deep copy of a backend's structure in its own
// tests. A sampler with a Check method must pass it at the end. The keys
// stay in s, the last one MaxSum/4 and the others summing to at most
// MaxSum/4.
func RejectsBadInput[S any](t require.TestingT, s reweighted.Sampler, state func() S) {
	n := s.Len()
	require.GreaterOrEqual(t, n, 2, "RejectsBadInput needs two items")
	rng := rand.New(rand.NewPCG(uint64(n), 17))
	for i := range n - 1 {
		require.NoError(t, s.Set(i, KeyFromBits(byte(rng.IntN(6)), rng.Uint64(), 4*n)))
	}
	require.NoError(t, s.Set(n-1, reweighted.MaxSum/4))
	before := state()
	// rejected asserts that a call returned want and changed nothing.
	rejected := func(err, want error, format string, args ...any) {
		what := fmt.Sprintf(format, args...)
		require.ErrorIs(t, err, want, what)
		require.Equal(t, before, state(), "%s changed the sampler", what)
	}
	for i := range n - 1 {
		rejected(s.Set(i, reweighted.MaxSum*0.76), reweighted.ErrKey, "Set(%d, 0.76·MaxSum) beside MaxSum/4", i)
	}
	for _, i := range []int{-1, n, n + 1, math.MinInt, math.MaxInt} {
		rejected(s.Set(i, 1), reweighted.ErrIndex, "Set(%d, 1)", i)
		rejected(errProb(s.Prob(i, 0)), reweighted.ErrIndex, "Prob(%d, 0)", i)
	}
	for _, a := range []float64{math.NaN(), math.Inf(1), math.Inf(-1), -1, -math.SmallestNonzeroFloat64,
		math.MaxFloat64, reweighted.MaxSum * 2, math.Nextafter(reweighted.MaxSum, math.Inf(1))} {
		for i := range n {
			rejected(s.Set(i, a), reweighted.ErrKey, "Set(%d, %v)", i, a)
		}
	}
	for _, eps := range []float64{math.NaN(), -1, -math.SmallestNonzeroFloat64, math.Nextafter(1/float64(n), 1),
		1, math.Inf(1), math.Inf(-1)} {
		rejected(errSolve(s.Solve(eps)), reweighted.ErrEpsilon, "Solve(%v)", eps)
		rejected(errSolve(s.Sample(eps, 0.5)), reweighted.ErrEpsilon, "Sample(%v, 0.5)", eps)
		rejected(errProb(s.Prob(0, eps)), reweighted.ErrEpsilon, "Prob(0, %v)", eps)
	}
	for _, u := range []float64{math.NaN(), -1, -math.SmallestNonzeroFloat64, 1, 1.5, math.Inf(1), math.Inf(-1)} {
		rejected(errSolve(s.Sample(0, u)), reweighted.ErrUniform, "Sample(0, %v)", u)
	}
	if l, ok := s.(loader); ok {
		bad := make([]float64, n)
		for _, a := range []float64{math.NaN(), -1, math.Inf(1), math.Nextafter(reweighted.MaxSum, math.Inf(1))} {
			bad[n-1] = a
			rejected(l.Load(bad), reweighted.ErrKey, "Load with a key %v", a)
		}
		bad[0], bad[n-1] = reweighted.MaxSum/2, math.Nextafter(reweighted.MaxSum/2, math.Inf(1))
		rejected(l.Load(bad), reweighted.ErrKey, "Load past MaxSum")
		rejected(l.Load(bad[:n-1]), reweighted.ErrBatch, "Load of n − 1 keys")
	}
	if c, ok := s.(Checker); ok {
		require.NoError(t, c.Check())
	}
}

// draw draws the input of most properties: 1 to 40 keys and a bound.
func draw(t *rapid.T) (n int, keys []float64, eps float64) {
	n = rapid.IntRange(1, 40).Draw(t, "n")
	return n, Keys(n).Draw(t, "keys"), Eps(n).Draw(t, "eps")
}

// Postcondition: after Set(i, a), Key(i) == a and the distribution is p* of
// the new keys. Verify includes the optimality certificate: the vector of
// Prob values satisfies the KKT conditions of min Σ a²/p over Δ(ε).
func postcondition(newSampler New) func(*rapid.T) {
	return func(t *rapid.T) {
		n, keys, eps := draw(t)
		s := newSampler(n)
		for _, i := range rapid.Permutation(seq(n)).Draw(t, "order") {
			require.NoError(t, s.Set(i, keys[i]))
			require.Equal(t, math.Float64bits(keys[i]+0), math.Float64bits(s.Key(i)), "Key(%d) after Set", i)
		}
		require.NoError(t, Verify(s, keys, eps, []float64{U().Draw(t, "u")}))
	}
}

// normalKeys draws keys that stay normal floats after scaling by 2^±200.
func normalKeys(n int) *rapid.Generator[[]float64] {
	return rapid.SliceOfN(rapid.OneOf(
		rapid.Just(0.0),
		rapid.Custom(func(t *rapid.T) float64 {
			m := rapid.IntRange(1, 1<<20).Draw(t, "m")
			return math.Ldexp(float64(m), rapid.IntRange(-600, 400).Draw(t, "e"))
		}),
		rapid.Float64Range(0x1p-10, 1),
	), n, n)
}

// Metamorphic: scaling every key by a power of two leaves p* unchanged and
// scales λ by the same power.
func scaleInvariance(newSampler New) func(*rapid.T) {
	return func(t *rapid.T) {
		n := rapid.IntRange(1, 40).Draw(t, "n")
		keys := normalKeys(n).Draw(t, "keys")
		k := rapid.IntRange(-200, 200).Draw(t, "k")
		eps := Eps(n).Draw(t, "eps")
		scaled := make([]float64, n)
		for i, a := range keys {
			scaled[i] = math.Ldexp(a, k)
		}
		s1, s2 := fill(t, newSampler, keys), fill(t, newSampler, scaled)
		_, l1, err := s1.Solve(eps)
		require.NoError(t, err)
		_, l2, err := s2.Solve(eps)
		require.NoError(t, err)
		require.InDelta(t, 1, ratio(math.Ldexp(l1, k), l2), 1e-12, "λ must scale with the keys")
		requireSameDistribution(t, s1, s2, seq(n), eps)
	}
}

// Metamorphic: permuting the indices permutes p*.
func permutation(newSampler New) func(*rapid.T) {
	return func(t *rapid.T) {
		n, keys, eps := draw(t)
		perm := rapid.Permutation(seq(n)).Draw(t, "perm")
		moved := make([]float64, n)
		for i, a := range keys {
			moved[perm[i]] = a
		}
		requireSameDistribution(t, fill(t, newSampler, keys), fill(t, newSampler, moved), perm, eps)
	}
}

// Metamorphic: two histories that end at the same keys give the same
// answers.
func history(newSampler New) func(*rapid.T) {
	return func(t *rapid.T) {
		n, keys, eps := draw(t)
		s1 := fill(t, newSampler, keys)
		s2 := newSampler(n)
		for range rapid.IntRange(0, 3*n).Draw(t, "detours") {
			require.NoError(t, s2.Set(rapid.IntRange(0, n-1).Draw(t, "i"), Key(n).Draw(t, "a")))
		}
		for _, i := range rapid.Permutation(seq(n)).Draw(t, "order") {
			require.NoError(t, s2.Set(i, keys[i]))
		}
		requireSameDistribution(t, s1, s2, seq(n), eps)
		// ρ is exact, so the histories cannot move it, and only floating
		// point at an interval's edge may tell the items apart.
		_, err := Compare(s1, s2, keys, eps, append([]float64{U().Draw(t, "u")}, EdgeU...))
		require.NoError(t, err)
	}
}

// requireSameDistribution asserts that s1 and s2 have the same ρ and that
// s2's probability of item perm[i] equals s1's of item i, to within 1e-12 in
// total variation.
func requireSameDistribution(t require.TestingT, s1, s2 reweighted.Sampler, perm []int, eps float64) {
	rho1, _, err := s1.Solve(eps)
	require.NoError(t, err)
	rho2, _, err := s2.Solve(eps)
	require.NoError(t, err)
	require.Equal(t, rho1, rho2, "ρ at ε = %v", eps)
	tv := 0.0
	for i, j := range perm {
		p1, err := s1.Prob(i, eps)
		require.NoError(t, err)
		p2, err := s2.Prob(j, eps)
		require.NoError(t, err)
		tv += math.Abs(p1 - p2)
	}
	require.LessOrEqual(t, tv/2, 1e-12, "total variation between the two distributions at ε = %v", eps)
}

// Property: draws with uniform u follow p* (chi-square goodness of fit at a
// fixed seed, -samplertest.draws draws at each bound), and items with p = 0
// are never drawn.
func testChiSquare(t TB, newSampler New) {
	const n = 40
	draws := float64(chiDraws(t))
	rng := rand.New(rand.NewPCG(1, 2))
	keys := make([]float64, n)
	for i := range keys {
		if i%7 != 3 {
			keys[i] = math.Ldexp(rng.Float64(), rng.IntN(8))
		}
	}
	s := fill(t, newSampler, keys)
	for _, eps := range []float64{0, 1 / float64(2*n), 1 / float64(n)} {
		ex := Oracle(keys, eps)
		counts := make([]float64, n)
		for range int(draws) {
			i, p, err := s.Sample(eps, rng.Float64())
			require.NoError(t, err)
			require.Positive(t, p, "Sample returned item %d", i)
			counts[i]++
		}
		stat, df := 0.0, -1.0
		for i, c := range counts {
			p := ratFloat(ex.P[i])
			if p == 0 {
				require.Zero(t, c, "item %d has p = 0 but was drawn", i)
				continue
			}
			e := p * float64(draws)
			stat += (c - e) * (c - e) / e
			df++
		}
		pValue := distuv.ChiSquared{K: df}.Survival(stat)
		require.Greater(t, pValue, 1e-4, "ε = %v: χ² = %.1f with %v degrees of freedom", eps, stat, df)
	}
}

// Cost: Set, Sample, Solve and Prob (and Probs into a dst with room)
// allocate nothing in steady state, reached by 4·n SRG steps on 2,000
// items: enough for a tree of several levels to split and merge.
func testZeroAllocs(t TB, newSampler New) {
	const n = 2000
	rng := rand.New(rand.NewPCG(3, 4))
	key := func() float64 { return math.Abs(rng.NormFloat64()) }
	s := newSampler(n)
	for i := range n {
		require.NoError(t, s.Set(i, key()))
	}
	eps := 1 / float64(2*n)
	step := func() {
		i, _, err := s.Sample(eps, rng.Float64())
		if err != nil {
			panic(err)
		}
		if err := s.Set(i, key()); err != nil {
			panic(err)
		}
	}
	for range 4 * n {
		step()
	}
	// Count every allocation, not testing.AllocsPerRun's truncated mean,
	// which hides one in a hundred calls.
	require.Zero(t, allocs(2000, step), "allocations in 2000 Sample+Set")
	require.Zero(t, allocs(2000, func() { _ = s.Set(rng.IntN(n), key()) }), "allocations in 2000 Set")
	for _, e := range []float64{0, eps, 1 / float64(n)} {
		require.Zero(t, allocs(200, func() { _, _, _ = s.Solve(e) }), "allocations in 200 Solve(%v)", e)
		require.Zero(t, allocs(500, func() { _, _, _ = s.Sample(e, rng.Float64()) }), "allocations in 500 Sample(%v)", e)
		require.Zero(t, allocs(500, func() { _, _ = s.Prob(rng.IntN(n), e) }), "allocations in 500 Prob(%v)", e)
	}
	if p, ok := s.(prober); ok && !raceEnabled {
		dst := make([]float64, n)
		require.Zero(t, allocs(10, func() { _, _ = p.Probs(eps, dst) }), "allocations in 10 Probs into dst")
	}
}

// probeCalls is the number of calls on a sampler of one item with which
// an allocation check fills the runtime's caches of the root package's
// probes (its type switches and assertions) before it counts. The runtime
// adds a type to the cache of a probe, with an allocation, once, at a
// random one of 1024·(size of the cache) calls that miss it. A cache that
// holds up to 7 types has size at most 16: 2^18 calls fill it but with
// probability e^-16, and a count of a few thousand calls then sees the
// allocation with probability below 1e-8.
const probeCalls = 1 << 18

// allocs returns the number of heap allocations of runs calls of f, after
// one call to warm up, on one P as testing.AllocsPerRun does.
func allocs(runs int, f func()) uint64 {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	// A garbage collection empties every sync.Pool, where the batch
	// operations keep their scratch, so the first batch after one
	// allocates it again; collections come at times of the runtime's
	// choosing (seen mid-measurement on a loaded machine). The claim is
	// no allocation between collections: count with the collector off.
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	f()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range runs {
		f()
	}
	runtime.ReadMemStats(&after)
	return after.Mallocs - before.Mallocs
}

func seq(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = i
	}
	return s
}

func ratio(a, b float64) float64 {
	if a == b {
		return 1
	}
	return a / b
}
