package samplertest

import (
	"math"
	"math/big"
	"math/bits"
	"math/rand/v2"

	"github.com/reweighted/reweighted"
	"pgregory.net/rapid"
)

// hugeExp returns the largest e such that 2^20·2^e ≤ MaxSum/(2n): keys drawn
// below it can fill all n items without the sum reaching MaxSum.
func hugeExp(n int) int {
	_, e := math.Frexp(reweighted.MaxSum / float64(2*max(n, 1)))
	return e - 1 - 20
}

// Key draws one key for a sampler of n items. Rapid leans toward simple
// floats, so the kinds the contract names are drawn on purpose: 0, small
// integers, integers times any power of two, subnormals, keys near the
// largest that n items may hold, and plain fractions.
func Key(n int) *rapid.Generator[float64] {
	top := hugeExp(n)
	return rapid.OneOf(
		rapid.Just(0.0),
		rapid.Map(rapid.IntRange(1, 1000), func(m int) float64 { return float64(m) }),
		rapid.Custom(func(t *rapid.T) float64 {
			m := rapid.IntRange(1, 1<<20).Draw(t, "mantissa")
			e := rapid.IntRange(-1074, top).Draw(t, "exponent")
			return math.Ldexp(float64(m), e)
		}),
		rapid.Map(rapid.IntRange(1, 1<<20), func(m int) float64 { return math.Ldexp(float64(m), -1074) }),
		rapid.Custom(func(t *rapid.T) float64 {
			m := rapid.IntRange(1, 1<<20).Draw(t, "mantissa")
			return math.Ldexp(float64(m), top-rapid.IntRange(0, 8).Draw(t, "below"))
		}),
		rapid.Float64Range(0, 1),
	)
}

// Keys draws n keys with ties: each key is either fresh or copied from a
// small pool, so runs of equal keys are common.
func Keys(n int) *rapid.Generator[[]float64] {
	return rapid.Custom(func(t *rapid.T) []float64 {
		pool := rapid.SliceOfN(Key(n), 1, 4).Draw(t, "pool")
		return rapid.SliceOfN(rapid.OneOf(rapid.SampledFrom(pool), Key(n)), n, n).Draw(t, "keys")
	})
}

// Eps draws a valid bound for n ≥ 1 items, with the edges the contract names:
// 0, 1/float64(n), the float just below it, 1/(2n), tiny and subnormal values.
func Eps(n int) *rapid.Generator[float64] {
	top := 1 / float64(n)
	return rapid.OneOf(
		rapid.Just(0.0),
		rapid.Just(top),
		rapid.Just(math.Nextafter(top, 0)),
		rapid.Just(1/float64(2*n)),
		rapid.Map(rapid.IntRange(30, 1074), func(k int) float64 { return math.Ldexp(1, -k) }),
		rapid.Map(rapid.Float64Range(0, 1), func(x float64) float64 { return min(x*top, top) }),
	)
}

// U draws a uniform number in [0, 1), with its edges on purpose: the
// floats next to 0 and 1 that Draw makes (multiples of 2^-53 up to
// 1 − 2^-53, the float below 1) and the smallest floats above 0.
func U() *rapid.Generator[float64] {
	return rapid.OneOf(
		rapid.SampledFrom(NearEdgeU),
		rapid.Map(rapid.IntRange(0, 8), func(k int) float64 { return float64(k) * 0x1p-53 }),
		rapid.Map(rapid.IntRange(1, 8), func(k int) float64 { return 1 - float64(k)*0x1p-53 }),
		rapid.Map(rapid.Float64Range(0, 1), func(u float64) float64 { return min(u, math.Nextafter(1, 0)) }),
	)
}

// NearEdgeU lists uniform numbers at the ends of [0, 1): 0, the smallest
// floats above it, the smallest multiples of 2^-53 (what Draw makes) and the
// largest floats below 1 (math.Nextafter(1, 0) = 1 − 2^-53).
var NearEdgeU = []float64{0, math.SmallestNonzeroFloat64, 0x1p-1022, 0x1p-53, 0x1p-52, 0x3p-53,
	1 - 0x3p-53, 1 - 0x1p-52, math.Nextafter(1, 0)}

// EdgeEps lists the bounds every check visits for n items.
func EdgeEps(n int) []float64 {
	top := 1 / float64(n)
	return []float64{0, top, math.Nextafter(top, 0), 1 / float64(2*n), 0x1p-60, 1e-300, math.SmallestNonzeroFloat64}
}

// EdgeU lists uniform numbers every check visits.
var EdgeU = []float64{0, 0.1, 0.25, 0.5, 0.75, 0.999, math.Nextafter(1, 0)}

// KeyFromBits decodes a key for n items from a kind and 64 random bits, for
// seeded generators and fuzz decoders that do not run under rapid. Like Key
// it yields 0, small integers (ties), integers times any power of two,
// subnormals, keys near the largest n of them may hold and plain fractions,
// always small enough that n keys stay below MaxSum.
func KeyFromBits(kind byte, x uint64, n int) float64 {
	m := float64(x>>44 | 1) // 20 significant bits
	top := hugeExp(n)
	switch kind % 6 {
	case 0:
		return 0
	case 1:
		return float64(x % 8)
	case 2:
		return math.Ldexp(m, -1074+int(x%uint64(top+1075)))
	case 3:
		return math.Ldexp(m, -1074)
	case 4:
		return math.Ldexp(m, top-int(x%8))
	default:
		return float64(x>>11) / (1 << 53)
	}
}

// EpsFromBits decodes a valid bound for n ≥ 1 items from a kind and 64
// random bits, the edges of Eps included: kinds 0 to 3 are the first four
// of EdgeEps (0, 1/n, the float below it, 1/(2n)).
func EpsFromBits(kind byte, x uint64, n int) float64 {
	top := 1 / float64(n)
	switch k := kind % 6; k {
	case 4:
		return min(math.Ldexp(1, -int(x%1075)), top)
	case 5:
		return float64(x>>11) / (1 << 53) * top
	default:
		return EdgeEps(n)[k]
	}
}

// Instance is a key vector with a bound ε.
type Instance struct {
	Keys []float64
	Eps  float64
}

// drawer is the source of choices of nearCutoff, an int in [lo, hi]:
// rapid's or a seeded one.
type drawer func(lo, hi int, label string) int

// NearCutoff draws instances of 2 to maxN items whose tail keys sit on the
// cutoff of Lemma 1 or a few ulps either side of it: the boundary where a
// float predicate picks another ρ than exact arithmetic. The head keys are
// drawn at one of three scales (subnormal, around 1, around 2^700); each
// tail key of rank r is the float nearest to its tie value
// ε·S(r−1)/(1 − (n − r + 1)ε), moved by −3 to +3 ulps, a copy of the key
// before it (exact ties, which keep the next rank on its cutoff too), or a
// smaller key. Item indices are shuffled.
func NearCutoff(maxN int) *rapid.Generator[Instance] {
	return rapid.Custom(func(t *rapid.T) Instance {
		n := rapid.IntRange(2, max(2, maxN)).Draw(t, "n")
		return nearCutoff(n, func(lo, hi int, label string) int { return rapid.IntRange(lo, hi).Draw(t, label) })
	})
}

// NearCutoffFromBits is NearCutoff for n ≥ 2 items driven by a source of
// random words, for seeded tests and fuzz decoders.
func NearCutoffFromBits(n int, next func() uint64) Instance {
	return nearCutoff(max(n, 2), func(lo, hi int, _ string) int { return lo + int(next()%uint64(hi-lo+1)) })
}

func nearCutoff(n int, d drawer) Instance {
	scale := []int{-1074, -20, 680}[d(0, 2, "scale")]
	top := 1 / float64(n)
	var eps float64
	switch d(0, 4, "eps kind") {
	case 0:
		eps = 1 / float64(2*n)
	case 1:
		eps = math.Ldexp(1, -d(bits.Len(uint(n-1))+1, 62, "eps exponent"))
	case 2:
		eps = math.Nextafter(top, 0)
	default:
		eps = float64(d(1, 1<<20-1, "eps fraction")) / (1 << 20) * top
	}
	h := d(1, n-1, "head")
	keys := make([]float64, 0, n)
	for range h {
		if len(keys) > 0 && d(0, 3, "head tie") == 0 {
			keys = append(keys, keys[len(keys)-1])
			continue
		}
		m := d(1, 1<<20, "mantissa")
		keys = append(keys, math.Ldexp(float64(m), scale+d(0, 8, "exponent")))
	}
	epsR := new(big.Rat).SetFloat64(eps)
	sum := new(big.Rat)
	for _, a := range keys {
		sum.Add(sum, new(big.Rat).SetFloat64(a))
	}
	for r := h + 1; r <= n; r++ {
		var a float64
		switch k := d(0, 9, "tail kind"); {
		case k == 0 && r > h+1:
			a = keys[len(keys)-1] // an exact tie with the key before
		case k == 1:
			a = keys[len(keys)-1] * float64(d(0, 3, "smaller")) / 4
		default:
			ulps := d(0, 3, "ulps")
			if k%2 == 0 {
				ulps = -ulps
			}
			a = nudge(tieValue(n, r, epsR, sum), ulps)
		}
		keys = append(keys, a)
		sum.Add(sum, new(big.Rat).SetFloat64(a))
	}
	// Shuffle, so that index order is not rank order.
	for i := n - 1; i > 0; i-- {
		j := d(0, i, "shuffle")
		keys[i], keys[j] = keys[j], keys[i]
	}
	return Instance{Keys: keys, Eps: eps}
}

// tieValue returns the key a of rank r among n items, below keys that sum
// to s, with a·(1 − (n − r)ε) = ε·(s + a): where the predicate of Lemma 1
// turns.
func tieValue(n, r int, eps, s *big.Rat) *big.Rat {
	c := new(big.Rat).Mul(big.NewRat(int64(n-r+1), 1), eps)
	c.Sub(big.NewRat(1, 1), c)
	tie := new(big.Rat).Mul(eps, s)
	return tie.Quo(tie, c)
}

// nudge returns the float nearest x moved by k floats (toward +∞ for k > 0).
func nudge(x *big.Rat, k int) float64 {
	u := ratFloat(x)
	for ; k > 0; k-- {
		u = math.Nextafter(u, math.Inf(1))
	}
	for ; k < 0; k++ {
		u = math.Nextafter(u, 0)
	}
	return u
}

// TinyKeys draws instances of 1 to maxN items with subnormal and tiny keys
// at either end of the canonical order, at ε = 0 or a tiny ε: either every
// key is tiny (a subnormal key may come first), or a few keys at one scale
// (1 or 2^600, with full mantissas, so that their sums round) lie above keys
// so much smaller (subnormal, near the smallest
// normal, or 2^-50 to 2^-1100 of that scale) that their p* is tiny or
// rounds to 0, with zeros after them. These are the items whose exact
// interval is narrower than a float's spacing, at the ends of [0, 1).
func TinyKeys(maxN int) *rapid.Generator[Instance] {
	return rapid.Custom(func(t *rapid.T) Instance {
		scale := rapid.SampledFrom([]int{0, 600}).Draw(t, "large scale")
		// The size, the large keys and the order come from a seeded source:
		// rapid would draw few items and the simplest mantissa, 2^52, whose
		// sums are exact.
		rng := rand.New(rand.NewPCG(rapid.Uint64().Draw(t, "seed"), 5))
		n := 1 + rng.IntN(max(1, maxN))
		// Mostly large keys above one to three tiny ones, at least two
		// large ones so that their sums round; or all keys tiny.
		large := 0
		if rng.IntN(6) > 0 {
			large = max(min(n, 2), n-1-rng.IntN(3))
		}
		keys := make([]float64, n)
		for i := range keys {
			switch {
			case i < large:
				// Full 53-bit mantissas, so that the partial sums round and
				// different paths through a tree round them differently.
				m := float64(1<<52 | rng.Uint64()>>12)
				keys[i] = math.Ldexp(m, scale-52-rng.IntN(4))
			case i == large:
				// The smallest subnormals: against large keys, a p* that
				// rounds to 0.
				keys[i] = math.Ldexp(float64(rapid.IntRange(1, 4).Draw(t, "smallest")), -1074)
			default:
				switch rapid.IntRange(0, 3).Draw(t, "kind") {
				case 0:
					keys[i] = math.Ldexp(float64(rapid.IntRange(1, 1<<20).Draw(t, "subnormal")), -1074)
				case 1:
					// The smallest normals and the subnormals just below.
					keys[i] = math.Nextafter(0x1p-1022, float64(rapid.IntRange(-1, 1).Draw(t, "side")))
				case 2:
					m := float64(rapid.IntRange(1, 1<<20).Draw(t, "mantissa"))
					keys[i] = math.Ldexp(m, scale-20-rapid.IntRange(50, 1100).Draw(t, "binades below"))
				default:
					keys[i] = 0
				}
			}
		}
		rng.Shuffle(n, func(i, j int) { keys[i], keys[j] = keys[j], keys[i] })
		// ε = 0 three times in four: where a p* rounds to 0.
		eps := 0.0
		if rng.IntN(4) == 0 {
			eps = rapid.OneOf(
				rapid.Map(rapid.IntRange(1, 4), func(k int) float64 { return math.Ldexp(float64(k), -1074) }),
				rapid.Map(rapid.IntRange(30, 1074), func(k int) float64 { return math.Min(math.Ldexp(1, -k), 1/float64(n)) }),
			).Draw(t, "eps")
		}
		return Instance{Keys: keys, Eps: eps}
	})
}
