package samplertest

import (
	"math"

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
		keys := make([]float64, n)
		for i := range keys {
			if rapid.Bool().Draw(t, "tie") {
				keys[i] = pool[rapid.IntRange(0, len(pool)-1).Draw(t, "which")]
			} else {
				keys[i] = Key(n).Draw(t, "key")
			}
		}
		return keys
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

// U draws a uniform number in [0, 1), with its two edges on purpose.
func U() *rapid.Generator[float64] {
	return rapid.OneOf(
		rapid.Just(0.0),
		rapid.Just(math.Nextafter(1, 0)),
		rapid.Map(rapid.Float64Range(0, 1), func(u float64) float64 { return min(u, math.Nextafter(1, 0)) }),
	)
}

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
// random bits, the edges of Eps included.
func EpsFromBits(kind byte, x uint64, n int) float64 {
	top := 1 / float64(n)
	switch kind % 6 {
	case 0:
		return 0
	case 1:
		return top
	case 2:
		return math.Nextafter(top, 0)
	case 3:
		return 1 / float64(2*n)
	case 4:
		return min(math.Ldexp(1, -int(x%1075)), top)
	default:
		return float64(x>>11) / (1 << 53) * top
	}
}
