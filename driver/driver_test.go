package driver

import (
	"cmp"
	"math"
	"math/big"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// ratOf returns the exact value of an accumulator.
func ratOf(acc *exactSum) *big.Rat {
	var z big.Int
	acc.Int(&z)
	return new(big.Rat).SetFrac(&z, new(big.Int).Lsh(big.NewInt(1), 1074))
}

// The carry propagation that Add triggers every 2^30 additions keeps the
// sum exact: forced here after a few additions.
func TestAccCarry(t *testing.T) {
	var acc exactSum
	want := new(big.Rat)
	for k := range 100 {
		x := math.Float64frombits(0x7fefffffffffffff - uint64(k))
		acc.Add(x)
		want.Add(want, new(big.Rat).SetFloat64(x))
		acc.carry()
	}
	require.Zero(t, want.Cmp(ratOf(&acc)))
}

// sortedIndex is a minimal Index over keys kept sorted, for driving Cutoff
// with chosen float sums.
type sortedIndex struct{ keys []float64 } // in canonical order, item = rank − 1

func (x *sortedIndex) Len() int                                   { return len(x.keys) }
func (x *sortedIndex) Key(i int) float64                          { return x.keys[i] }
func (x *sortedIndex) Total() float64                             { return 0 }
func (x *sortedIndex) Update(int, float64)                        {}
func (x *sortedIndex) Build([]float64)                            {}
func (x *sortedIndex) Rank(i int) int                             { return i + 1 }
func (x *sortedIndex) Select(r int) int                           { return r - 1 }
func (x *sortedIndex) SelectSum(_, _ float64) (int, int, float64) { return -1, len(x.keys) + 1, 0 }
func (x *sortedIndex) Cut(Cutoff) (int, float64)                  { return 1, 0 }
func (x *sortedIndex) SumDepth() int                              { return len(x.keys) }
func (x *sortedIndex) Walk(from, to int, f func(int, float64)) {
	for i := from - 1; i < to; i++ {
		f(i, x.keys[i])
	}
}

// mulExp forms products of any two positive floats without underflow or
// overflow, to within one rounding.
func TestMulExp(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		x := math.Float64frombits(rapid.Uint64Range(1, 0x7fefffffffffffff).Draw(t, "x"))
		y := math.Float64frombits(rapid.Uint64Range(1, 0x7fefffffffffffff).Draw(t, "y"))
		m, e := mulExp(x, y)
		require.True(t, m >= 0.5 && m < 1, "mantissa %v", m)
		want := new(big.Rat).Mul(new(big.Rat).SetFloat64(x), new(big.Rat).SetFloat64(y))
		got := new(big.Rat).SetFloat64(m)
		if e >= 0 {
			got.Mul(got, new(big.Rat).SetInt(new(big.Int).Lsh(big.NewInt(1), uint(e))))
		} else {
			got.Quo(got, new(big.Rat).SetInt(new(big.Int).Lsh(big.NewInt(1), uint(-e))))
		}
		d := new(big.Rat).Sub(got, want)
		d.Abs(d).Quo(d, want)
		f, _ := d.Float64()
		require.LessOrEqual(t, f, 0x1p-53)
	})
}

// Check reports a count of zero keys that does not match the keys.
func TestCheckCountsZeros(t *testing.T) {
	ix := &sortedIndex{keys: []float64{3, 1, 0, 0}}
	d := New(ix)
	require.NoError(t, d.Check())
	d.zeros++
	require.ErrorContains(t, d.Check(), "zero keys")
	var zero Driver
	require.NoError(t, zero.Check())
	require.Zero(t, zero.Len())
	// An index whose Walk starts a rank late.
	d = New(lateWalk{ix})
	require.ErrorContains(t, d.Check(), "Walk")
}

type lateWalk struct{ *sortedIndex }

func (x lateWalk) Walk(from, to int, f func(int, float64)) {
	x.sortedIndex.Walk(from+1, to, f)
}

// TestSortHeads checks the property "sortHeads orders the heads by their
// 16 bits from bit kb on, keeping the order of equal ones": the comparison
// sort behind it would hide a radix sort that orders nothing, at a cost in
// time only.
func TestSortHeads(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		kb := uint(rapid.IntRange(0, 20).Draw(t, "kb"))
		h := rapid.IntRange(1, 400).Draw(t, "h")
		heads := make([]uint64, h)
		for j := range heads {
			bucket := rapid.Uint64Range(0, 1<<16-1).Draw(t, "bucket")
			if rapid.Bool().Draw(t, "small") {
				bucket %= 4 // many equal buckets
			}
			heads[j] = bucket<<kb | uint64(j)&(1<<kb-1)
		}
		want := slices.Clone(heads)
		slices.SortStableFunc(want, func(x, y uint64) int { return cmp.Compare(x>>kb, y>>kb) })
		sortHeads(heads, make([]uint64, h), kb)
		require.Equal(t, want, heads)
	})
}
