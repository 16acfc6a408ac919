package driver_test

import (
	"math"
	"slices"
	"testing"

	"github.com/reweighted/reweighted/driver"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// spy is the sorted index with a SelectSums that records whether its
// targets came in increasing order, as BatchSelector promises the index,
// and answers each by SelectSum.
type spy struct {
	*sorted
	unsorted bool // some call had targets out of order
	calls    int
}

func (x *spy) SelectSums(targets []float64, scale float64, items, ranks []int, keys []float64) {
	x.calls++
	if !slices.IsSorted(targets) {
		x.unsorted = true
	}
	for k, t := range targets {
		items[k], ranks[k], keys[k] = x.SelectSum(t, scale)
	}
}

// TestSampleBatchSortsTargets checks the property "SampleBatch hands
// SelectSums its targets in increasing order, and maps every u to what
// Sample gives" where the order is hardest to get: uniform numbers drawn
// at random, all equal, or bunched within a few ulps of each other (one
// bucket of the radix sort, so that the insertion sort's budget runs out
// and the comparison sort takes over), in batches of 1 to 300 that take
// both the short path (32 draws or fewer) and the radix sort.
func TestSampleBatchSortsTargets(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		const n = 50
		x := &spy{sorted: newSorted(n)}
		d := driver.New(x)
		for i := range n {
			require.NoError(t, d.Set(i, float64(1+i%7)))
		}
		m := rapid.IntRange(1, 300).Draw(t, "m")
		base := rapid.Float64Range(0, 0.99).Draw(t, "base")
		us := make([]float64, m)
		for k := range us {
			switch rapid.IntRange(0, 2).Draw(t, "kind") {
			case 0:
				us[k] = rapid.Float64Range(0, 0.999).Draw(t, "u")
			case 1:
				us[k] = base
			default:
				u := base
				for range rapid.IntRange(0, 40).Draw(t, "ulps") {
					u = math.Nextafter(u, 1)
				}
				us[k] = u
			}
		}
		items, probs := make([]int, m), make([]float64, m)
		require.NoError(t, d.SampleBatch(0.001, us, items, probs))
		require.Equal(t, 1, x.calls, "SelectSums calls: every u is in the head")
		require.False(t, x.unsorted, "SelectSums got targets out of order")
		for k, u := range us {
			i, p, err := d.Sample(0.001, u)
			require.NoError(t, err)
			require.Equal(t, [2]uint64{uint64(i), math.Float64bits(p)}, [2]uint64{uint64(items[k]), math.Float64bits(probs[k])}, "u = %v", u)
		}
	})
}
