package backends_test

import (
	"encoding"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/reweighted/reweighted/internal/backends"
	"github.com/reweighted/reweighted/samplertest"
)

// A state saved by any backend restores into any other, of any size
// before: the same keys, bit for bit, and the same ρ, λ and p*.
func TestStateCrossesBackends(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 9))
	n := 50
	keys := make([]float64, n)
	for i := range keys {
		keys[i] = samplertest.KeyFromBits(byte(rng.IntN(6)), rng.Uint64(), n)
	}
	for _, from := range backends.Every() {
		s := from.Dist(n)
		for i, a := range keys {
			require.NoError(t, s.Set(i, a))
		}
		saved, err := s.(encoding.BinaryMarshaler).MarshalBinary()
		require.NoError(t, err)
		for _, to := range backends.Every() {
			r := to.Dist(3)
			require.NoError(t, r.(encoding.BinaryUnmarshaler).UnmarshalBinary(saved), "%s into %s", from.Name, to.Name)
			require.Equal(t, n, r.Len())
			for i, a := range keys {
				require.Equal(t, math.Float64bits(a+0), math.Float64bits(r.Key(i)), "%s into %s: key %d", from.Name, to.Name, i)
			}
			for _, eps := range []float64{0, 1 / float64(2*n), 1 / float64(n)} {
				require.NoError(t, samplertest.VerifyLaw(r, keys, eps), "%s into %s at ε = %v", from.Name, to.Name, eps)
			}
		}
	}
}
