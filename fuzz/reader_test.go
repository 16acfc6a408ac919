package fuzz

import (
	"math"
	"testing"

	"github.com/reweighted/reweighted"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// Property: whatever the bytes, the decoders yield inputs the contract
// accepts — keys that n of them cannot push past MaxSum, ε in [0, 1/n], u in
// [0, 1) — so a fuzz failure is always the samplers' fault, not the decoder's.
func TestReaderDecodesValidInputs(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(1, 64).Draw(t, "n")
		r := NewReader(rapid.SliceOf(rapid.Byte()).Draw(t, "bytes"))
		for range 8 {
			a := r.Key(n)
			require.False(t, math.IsNaN(a) || a < 0 || a*float64(n) > reweighted.MaxSum, "key %v for n = %d", a, n)
			eps := r.Eps(n)
			require.True(t, eps >= 0 && eps <= 1/float64(n), "ε = %v for n = %d", eps, n)
			u := r.U()
			require.True(t, u >= 0 && u < 1, "u = %v", u)
		}
		if n >= 2 {
			in := r.NearCutoff(n)
			require.Len(t, in.Keys, n)
			require.True(t, in.Eps > 0 && in.Eps < 1/float64(n), "near-cutoff ε = %v for n = %d", in.Eps, n)
			sum := 0.0
			for _, a := range in.Keys {
				require.False(t, math.IsNaN(a) || a < 0, "near-cutoff key %v", a)
				sum += a
			}
			require.LessOrEqual(t, sum, reweighted.MaxSum/2, "near-cutoff keys sum to %v", sum)
		}
	})
}

// Regression, found by FuzzBoundary in its first seconds: a "tiny" ε decoded
// as 2^-0 = 1, above 1/n (seed 21ae183b400a25ee).
func TestTinyEpsStaysBelowBound(t *testing.T) {
	r := NewReader([]byte{4, 0, 0, 0, 0, 0, 0, 0, 0})
	require.Equal(t, 0.5, r.Eps(2))
}
