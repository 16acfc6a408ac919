package lemma1

import (
	"math"
	"math/big"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// anyFloat draws a non-negative finite float from the whole range,
// subnormals and zero included.
var anyFloat = rapid.OneOf(
	rapid.Just(0.0),
	rapid.Map(rapid.Uint64Range(1, math.Float64bits(math.MaxFloat64)), math.Float64frombits),
	rapid.Custom(func(t *rapid.T) float64 {
		return math.Ldexp(float64(rapid.IntRange(1, 1<<20).Draw(t, "m")), rapid.IntRange(-1074, 900).Draw(t, "e"))
	}),
)

// Property: productGE agrees with the exact comparison of the products
// whenever the exact products are more than a relative 2^-50 apart (each
// side is rounded once), and never underflows or overflows.
func TestProductGE(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		x1, y1, x2, y2 := anyFloat.Draw(t, "x1"), anyFloat.Draw(t, "y1"), anyFloat.Draw(t, "x2"), anyFloat.Draw(t, "y2")
		p1 := new(big.Rat).Mul(new(big.Rat).SetFloat64(x1), new(big.Rat).SetFloat64(y1))
		p2 := new(big.Rat).Mul(new(big.Rat).SetFloat64(x2), new(big.Rat).SetFloat64(y2))
		got := productGE(x1, y1, x2, y2)
		margin := new(big.Rat).Mul(p2, big.NewRat(1, 1<<50))
		switch {
		case p1.Cmp(new(big.Rat).Add(p2, margin)) > 0:
			require.True(t, got, "%v·%v > %v·%v", x1, y1, x2, y2)
		case p1.Cmp(new(big.Rat).Sub(p2, margin)) < 0:
			require.False(t, got, "%v·%v < %v·%v", x1, y1, x2, y2)
		}
		if p1.Cmp(p2) == 0 {
			require.True(t, got, "equal products")
		}
	})
}

// The fast path and the exponent-split path agree where both apply.
func TestProductGEFastPathAgrees(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		x1, y1 := rapid.Float64Range(1e-100, 1e100).Draw(t, "x1"), rapid.Float64Range(1e-100, 1e100).Draw(t, "y1")
		x2, y2 := rapid.Float64Range(1e-100, 1e100).Draw(t, "x2"), rapid.Float64Range(1e-100, 1e100).Draw(t, "y2")
		m1, e1 := mulExp(x1, y1)
		m2, e2 := mulExp(x2, y2)
		slow := e1 > e2 || (e1 == e2 && m1 >= m2)
		require.Equal(t, slow, productGE(x1, y1, x2, y2))
	})
}

// C is 1 − (n − r)ε rounded once, and r/n in the uniform case.
func TestC(t *testing.T) {
	b, err := NewBound(3, 0.25)
	require.NoError(t, err)
	require.Equal(t, 0.5, b.C(1))
	require.Equal(t, 1.0, b.C(3))
	u, err := NewBound(3, 1/3.0)
	require.NoError(t, err)
	require.True(t, u.Uniform())
	require.Equal(t, 2/3.0, u.C(2))
}

// Head lifts tiny sums so the target keeps its precision, and never
// overflows the scale.
func TestHeadScale(t *testing.T) {
	b, err := NewBound(2, 0)
	require.NoError(t, err)
	for _, s := range []float64{5e-324, 1e-323, 0x1p-600, 0x1p-499, 1, 1e250} {
		head, target, scale, _ := b.Head(0.5, s, 2)
		require.True(t, head)
		require.False(t, math.IsInf(scale, 0), "s = %v", s)
		require.InDelta(t, 0.5, target/(s*scale), 1e-15, "s = %v", s)
	}
}
