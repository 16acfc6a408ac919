package driver

import (
	"math"
	"testing"

	"github.com/reweighted/reweighted"
	"github.com/stretchr/testify/require"
)

// Load accepts keys whose exact sum is MaxSum and refuses keys whose exact
// sum passes it by the least amount a key can add, 2^-1074, which the
// float sum cannot see.
func TestLoadExactMaxSum(t *testing.T) {
	d := New(&sortedIndex{keys: make([]float64, 3)})
	require.NoError(t, d.Load([]float64{0x1p830, 0x1p829, 0x1p829}), "the keys sum to MaxSum exactly")
	require.ErrorIs(t, d.Load([]float64{0x1p830, 0x1p829, math.Nextafter(0x1p829, math.Inf(1))}), reweighted.ErrKey)
	require.ErrorIs(t, d.Load([]float64{reweighted.MaxSum, 0, 0x1p-1074}), reweighted.ErrKey)
	require.NoError(t, d.Load([]float64{reweighted.MaxSum, 0, 0}))
}
