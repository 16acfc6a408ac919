package btree_test

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/reweighted/reweighted/btree"
	"github.com/reweighted/reweighted/samplertest"
)

func TestNewIsValid(t *testing.T) {
	for n := range 600 {
		s := btree.New(n)
		require.NoError(t, s.Check(), "n=%d", n)
		require.Equal(t, n, s.Len())
		for i := range n {
			require.Zero(t, s.Key(i))
		}
	}
	for _, n := range []int{4095, 4096, 4097, 100_000} {
		require.NoError(t, btree.New(n).Check(), "n=%d", n)
	}
}

// randomKey draws a key of every kind the contract names (zeros, ties,
// subnormals, huge keys), small enough that n of them stay below MaxSum.
func randomKey(rng *rand.Rand, n int) float64 {
	return samplertest.KeyFromBits(byte(rng.IntN(6)), rng.Uint64(), n)
}
