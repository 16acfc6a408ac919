package check

import (
	"errors"
	"fmt"
	"math"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/reweighted/reweighted"
)

// keys at every boundary of Key: the signs of zero, the least and largest
// floats, MaxSum and its neighbours, the infinities and NaN.
var boundary = []float64{0, math.Copysign(0, -1), math.SmallestNonzeroFloat64, -math.SmallestNonzeroFloat64, 1, -1,
	reweighted.MaxSum, math.Nextafter(reweighted.MaxSum, 0), math.Nextafter(reweighted.MaxSum, math.Inf(1)),
	math.MaxFloat64, math.Inf(1), math.Inf(-1), math.NaN()}

// Key accepts exactly the keys in [0, MaxSum], returns −0 as +0, and
// words its refusals by the reason: not a finite non-negative number, or
// above MaxSum.
func TestKeyBoundaries(t *testing.T) {
	for _, a := range boundary {
		got, err := Key(a)
		ok := !math.IsNaN(a) && a >= 0 && a <= reweighted.MaxSum
		if ok {
			require.NoError(t, err, "key %v", a)
			require.Equal(t, math.Float64bits(math.Abs(a)), math.Float64bits(got), "key %v", a)
			continue
		}
		require.ErrorIs(t, err, reweighted.ErrKey, "key %v", a)
		want := fmt.Sprintf("%v: %v", reweighted.ErrKey, a)
		if !math.IsInf(a, 0) && a > reweighted.MaxSum {
			want += " exceeds MaxSum"
		}
		require.EqualError(t, err, want)
	}
}

// Batch refuses the first bad entry, its index checked before its key,
// and names its position; differing lengths are ErrBatch.
func TestBatchFirstBadEntry(t *testing.T) {
	const n = 4
	_, err := Batch([]int{0}, nil, n)
	require.ErrorIs(t, err, reweighted.ErrBatch)
	for _, bad := range boundary {
		for _, i := range []int{-1, 0, n - 1, n} {
			items, keys := []int{1, 2, i, 0}, []float64{1, 2, bad, math.NaN()}
			_, err := Batch(items, keys, n)
			switch {
			case i < 0 || i >= n:
				require.ErrorIs(t, err, reweighted.ErrIndex)
				require.Contains(t, err.Error(), "batch entry 2: ")
			case math.IsNaN(bad) || bad < 0 || bad > reweighted.MaxSum:
				require.ErrorIs(t, err, reweighted.ErrKey)
				require.Contains(t, err.Error(), "batch entry 2: ")
			default:
				// The entry passes: the NaN of entry 3 is the first bad one.
				require.ErrorIs(t, err, reweighted.ErrKey)
				require.Contains(t, err.Error(), "batch entry 3: ")
				require.False(t, errors.Is(err, reweighted.ErrIndex))
			}
		}
	}
	most, err := Batch([]int{0, 3}, []float64{0, reweighted.MaxSum}, n)
	require.NoError(t, err)
	require.Equal(t, reweighted.MaxSum, most)
}

// Property: Batch returns the largest key of a valid batch, 0 for an
// empty one, whatever the keys' order, −0 read as 0.
func TestBatchLargestKey(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var valid []float64
		for _, a := range boundary {
			if a >= 0 && a <= reweighted.MaxSum {
				valid = append(valid, a)
			}
		}
		key := rapid.OneOf(rapid.SampledFrom(valid), rapid.Float64Range(0, reweighted.MaxSum))
		keys := rapid.SliceOf(key).Draw(t, "keys")
		items := make([]int, len(keys))
		most, err := Batch(items, keys, 1)
		require.NoError(t, err)
		want := 0.0
		for _, a := range keys {
			if a > want {
				want = a
			}
		}
		require.Equal(t, math.Float64bits(want), math.Float64bits(most), "never −0")
	})
}
