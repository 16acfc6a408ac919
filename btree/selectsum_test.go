package btree

import (
	"cmp"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

// SelectSum returns the item of smallest rank whose partial sum exceeds the
// target. With small integer keys every sum is exact, so no rounding excuses
// a miss: at a target equal to a partial sum S(r), which ends a leaf or a
// child where r is a multiple of their sizes, the answer is rank r + 1, not
// the end of the child before; just below S(r), it is rank r.
func TestSelectSumAtExactBoundaries(t *testing.T) {
	const n = 300 // two inner levels
	s := New(n)
	keys := make([]float64, n)
	for i := range keys {
		keys[i] = float64(1 + i*7%5)
		require.NoError(t, s.Set(i, keys[i]))
	}
	order := make([]int32, n)
	for i := range order {
		order[i] = int32(i)
	}
	// The canonical order, spelled out here rather than through the
	// comparator the tree uses: larger keys first, ties by index.
	slices.SortFunc(order, func(i, j int32) int {
		return cmp.Or(cmp.Compare(keys[j], keys[i]), cmp.Compare(i, j))
	})
	sum := 0.0
	for r, i := range order {
		// sum = S(r), the partial sum of the first r ranks.
		item, rank, key := s.t.SelectSum(sum, 1)
		require.Equal(t, [3]any{int(i), r + 1, keys[i]}, [3]any{item, rank, key}, "target S(%d) = %v", r, sum)
		if r > 0 {
			item, rank, _ = s.t.SelectSum(sum-0.5, 1)
			require.Equal(t, [2]int{int(order[r-1]), r}, [2]int{item, rank}, "target S(%d) − 1/2", r)
		}
		sum += keys[i]
	}
	item, rank, _ := s.t.SelectSum(sum, 1)
	require.Equal(t, [2]int{-1, n + 1}, [2]int{item, rank}, "target S(n)")
}
