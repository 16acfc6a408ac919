package driver

import (
	"math"
	"math/big"
	"testing"

	"github.com/reweighted/reweighted/samplertest"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// ratOf returns the exact value of an accumulator.
func ratOf(acc *exactSum) *big.Rat {
	var z big.Int
	acc.Int(&z)
	return new(big.Rat).SetFrac(&z, new(big.Int).Lsh(big.NewInt(1), 1074))
}

// Property: exactSum sums any non-negative floats exactly: zeros, subnormals,
// ties and keys up to the largest float, in any number.
func TestAccIsExact(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		xs := rapid.SliceOf(rapid.OneOf(
			samplertest.Key(1),
			rapid.Map(rapid.Uint64Range(0, 0x7fefffffffffffff), math.Float64frombits),
		)).Draw(t, "xs")
		var acc exactSum
		want := new(big.Rat)
		for _, x := range xs {
			acc.Add(x)
			want.Add(want, new(big.Rat).SetFloat64(x))
		}
		require.Zero(t, want.Cmp(ratOf(&acc)), "sum of %v", xs)
	})
}

// Property: subtracting some of the values added, in any order and with
// carries between, leaves exactly the sum of the others.
func TestAccSubIsExact(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		xs := rapid.SliceOfN(rapid.OneOf(
			samplertest.Key(1),
			rapid.Map(rapid.Uint64Range(0, 0x7fefffffffffffff), math.Float64frombits),
		), 1, 40).Draw(t, "xs")
		var acc exactSum
		for _, x := range xs {
			acc.Add(x)
		}
		want := new(big.Rat)
		for _, k := range rapid.Permutation(seq(len(xs))).Draw(t, "order") {
			if rapid.Bool().Draw(t, "subtract") {
				acc.Sub(xs[k])
				if rapid.Bool().Draw(t, "carry") {
					acc.carry()
				}
			} else {
				want.Add(want, new(big.Rat).SetFloat64(xs[k]))
			}
		}
		require.Zero(t, want.Cmp(ratOf(&acc)), "sum of %v less some", xs)
	})
}

func seq(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = i
	}
	return s
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

// Property: Holds decides the predicate of Lemma 1 exactly at every rank of
// keys placed on the cutoff or a few ulps off it, at every scale, whatever
// float sum the backend hands it within the error bound γ_n: here the float
// nearest the exact S(r) moved by up to n/2 ulps either way (where S(r) is a
// normal float: sums of subnormals are exact). The ranks come in a random
// order, as a descent's do, so that the exact sum the Cutoff keeps steps
// both forward and back.
func TestHoldsIsExact(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		in := samplertest.NearCutoff(24).Draw(t, "instance")
		n := len(in.Keys)
		ex := samplertest.Oracle(in.Keys, in.Eps)
		keys := make([]float64, n)
		for r, i := range ex.Order {
			keys[r] = in.Keys[i]
		}
		c := Cutoff{n: n, eps: in.Eps, slack: slack(n), ix: &sortedIndex{keys}}
		if in.Eps == 1/float64(n) {
			c.uniform, c.top = true, keys[0]
		}
		for _, r := range rapid.Permutation(seq(n)).Draw(t, "ranks") {
			r++
			s, _ := ex.Prefix[r].Float64()
			for k := rapid.IntRange(0, n/2).Draw(t, "ulps"); k > 0 && s >= 0x1p-1022; k-- {
				s = math.Nextafter(s, []float64{0, math.Inf(1)}[rapid.IntRange(0, 1).Draw(t, "dir")])
			}
			if ex.Prefix[r].Sign() > 0 && s == 0 {
				s = math.SmallestNonzeroFloat64 // a float sum of positive keys is positive
			}
			require.Equal(t, ex.Holds(r), c.Holds(keys[r-1], s, r), "rank %d of %v at ε = %v", r, keys, in.Eps)
		}
	})
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
