package driver_test

import (
	"math"
	"sort"
	"testing"

	"github.com/reweighted/reweighted/driver"
	"github.com/reweighted/reweighted/samplertest"
	"github.com/stretchr/testify/require"
)

// smallestFirst is a read-only Index over keys given in canonical order
// (item r − 1 at rank r) whose partial sums are each added from the
// smallest key up: S̃(r) = a_(1) + (a_(2) + (… + a_(r))), the accurate
// order for keys that decrease. A key goes through at most n roundings, as
// in a sum added left to right, but S̃(r) and S̃(r − 1) are associated
// differently, so a key far below an ulp of the sum can still raise it,
// through a chain of rounding ties.
type smallestFirst struct {
	keys []float64
	sum  []float64 // sum[r] = S̃(r)
}

func newSmallestFirst(keys []float64) *smallestFirst {
	x := &smallestFirst{keys: keys, sum: make([]float64, len(keys)+1)}
	for r := 1; r <= len(keys); r++ {
		s := keys[r-1]
		for j := r - 2; j >= 0; j-- {
			s = keys[j] + s
		}
		x.sum[r] = s
	}
	return x
}

func (x *smallestFirst) Len() int            { return len(x.keys) }
func (x *smallestFirst) Key(i int) float64   { return x.keys[i] }
func (x *smallestFirst) Total() float64      { return x.sum[len(x.keys)] }
func (x *smallestFirst) Update(int, float64) { panic("smallestFirst is read-only") }
func (x *smallestFirst) Build([]float64)     { panic("smallestFirst is read-only") }
func (x *smallestFirst) Rank(i int) int      { return i + 1 }
func (x *smallestFirst) Select(r int) int    { return r - 1 }
func (x *smallestFirst) SumDepth() int       { return len(x.keys) }

func (x *smallestFirst) SelectSum(target, scale float64) (int, int, float64) {
	r := sort.Search(len(x.keys), func(k int) bool { return x.sum[k+1]*scale > target }) + 1
	if r > len(x.keys) {
		return -1, r, 0
	}
	return r - 1, r, x.keys[r-1]
}

func (x *smallestFirst) Cut(c driver.Cutoff) (int, float64) {
	r := sort.Search(len(x.keys), func(k int) bool { return !c.Holds(x.keys[k], x.sum[k+1], k+1) })
	return r, x.sum[r]
}

func (x *smallestFirst) Walk(from, to int, f func(int, float64)) {
	for r := from; r <= to; r++ {
		f(r-1, x.keys[r-1])
	}
}

// Property: Sample never returns an item whose p* rounds to 0, and returns
// the p that Prob and SampleBatch give, even where the index's SelectSum,
// within its contract, answers with such an item. Here the keys 2^38,
// 2^-15, 2^-68, …, 2^-1022 (each half an ulp of the one before) and then
// 2^-1074: added from the smallest up, 2^-1074 turns the tie at every level
// upward, so S̃(21) = 2^38 and S̃(22) = 2^38 + 2^-14, and the target 2^38
// selects the last key, whose p* = 2^-1074/2^38 rounds to 0. Its interval
// is owned by the last rank whose p* rounds above 0, rank 21.
func TestSampleNeverReturnsAZeroP(t *testing.T) {
	var keys []float64
	for j := range 21 {
		keys = append(keys, math.Ldexp(1, 38-53*j))
	}
	keys = append(keys, math.SmallestNonzeroFloat64)
	n := len(keys)
	ix := newSmallestFirst(keys)
	// The index keeps the contract the driver relies on, exact ρ and sums
	// within γ_n included.
	require.NoError(t, samplertest.CheckIndex(ix, keys, samplertest.EdgeEps(n)))
	require.Equal(t, 0x1p38, ix.sum[n-1])
	require.Equal(t, 0x1p38+0x1p-14, ix.sum[n])
	item, rank, _ := ix.SelectSum(0x1p38, 1)
	require.Equal(t, n-1, item, "SelectSum at S̃(21) gives the last key")
	require.Equal(t, n, rank)

	d := driver.New(ix)
	p, err := d.Prob(n-1, 0)
	require.NoError(t, err)
	require.Zero(t, p, "the last key's p* rounds to 0")
	for _, u := range []float64{0, 0.5, 1 - 0x1p-50, 1 - 0x1p-51, 1 - 0x1p-52, 1 - 0x1p-53} {
		i, p, err := d.Sample(0, u)
		require.NoError(t, err)
		require.Positive(t, p, "u = %v: item %d", u, i)
		want, err := d.Prob(i, 0)
		require.NoError(t, err)
		require.Equal(t, math.Float64bits(want), math.Float64bits(p), "u = %v: item %d", u, i)
		items, probs := make([]int, 1), make([]float64, 1)
		require.NoError(t, d.SampleBatch(0, []float64{u}, items, probs))
		require.Equal(t, i, items[0], "u = %v: SampleBatch", u)
		require.Equal(t, math.Float64bits(p), math.Float64bits(probs[0]), "u = %v: SampleBatch", u)
		if u >= 1-0x1p-52 {
			// u·S̃(22) rounds to 2^38, the target that selects the last key.
			require.Equal(t, 0x1p38, u*ix.Total(), "u = %v", u)
			require.Equal(t, n-2, i, "u = %v: the target of the last key", u)
		}
	}
}
