package backends_test

import (
	"encoding"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/reweighted/reweighted"
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

// After a long random history, which grows a shape far from the one Load
// builds, a map-exact sampler restored from its own saved state answers
// as the saved one, bit for bit: Observe, and a run of draws from equally
// seeded sources. Restored from its keys alone it may hold another shape,
// and agrees with the saved one up to the contract's rounding (Compare)
// and with the exact oracle (Verify).
func TestStateKeepsShape(t *testing.T) {
	const n, sets = 3000, 20000
	for _, b := range backends.All {
		t.Run(b.Name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(10, 11))
			s := b.New(n)
			keys := make([]float64, n)
			for k := range n + sets {
				i := k
				if k >= n {
					i = rng.IntN(n)
				}
				keys[i] = rng.ExpFloat64() // sums that round
				require.NoError(t, s.Set(i, keys[i]))
			}
			saved, err := s.(encoding.BinaryMarshaler).MarshalBinary()
			require.NoError(t, err)
			r := b.New(0)
			require.NoError(t, r.(encoding.BinaryUnmarshaler).UnmarshalBinary(saved))
			require.NoError(t, r.(samplertest.Checker).Check())
			require.Equal(t, samplertest.Observe(s), samplertest.Observe(r), "restored from its own saved state")
			draws := func(s reweighted.Sampler) []uint64 {
				src := rand.NewPCG(12, 13)
				var out []uint64
				for k := range 2000 {
					i, p, err := reweighted.Draw(s, float64(1+k%4)/float64(4*n), src)
					require.NoError(t, err)
					out = append(out, uint64(i), math.Float64bits(p))
				}
				return out
			}
			require.Equal(t, draws(s), draws(r), "draws of the restored sampler")

			plain := reweighted.AppendState(nil, s, nil)
			k := b.New(0)
			require.NoError(t, k.(encoding.BinaryUnmarshaler).UnmarshalBinary(plain))
			require.NoError(t, k.(samplertest.Checker).Check())
			again, err := k.(encoding.BinaryMarshaler).MarshalBinary()
			require.NoError(t, err)
			_, ext, err := reweighted.DecodeState(saved)
			require.NoError(t, err)
			_, extK, err := reweighted.DecodeState(again)
			require.NoError(t, err)
			if ext != nil { // a backend that saves its shape
				require.NotEqual(t, ext, extK, "the history's shape is the one Load builds")
			}
			for _, eps := range samplertest.EdgeEps(n) {
				_, err := samplertest.Compare(s, k, keys, eps, samplertest.EdgeU)
				require.NoError(t, err, "restored from the keys alone, at ε = %v", eps)
				require.NoError(t, samplertest.Verify(k, keys, eps, samplertest.EdgeU), "restored from the keys alone, at ε = %v", eps)
			}
			if ext != nil {
				// Else the bit-for-bit checks above would pass without the shape.
				differs := !slices.Equal(draws(s), draws(k)) || !reflect.DeepEqual(samplertest.Observe(s), samplertest.Observe(k))
				require.True(t, differs, "restored from the keys alone, it answers as the saved sampler, bit for bit")
			}
		})
	}
}
