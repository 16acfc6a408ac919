package driver_test

import (
	"math"
	"math/big"
	"testing"

	"github.com/reweighted/reweighted/driver"
	"github.com/reweighted/reweighted/samplertest"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// These tests draw from samplertest's generators and oracle, which import
// driver: they live in the external test package.

// Property: Acc sums any non-negative floats exactly: zeros, subnormals,
// ties and keys up to the largest float, in any number.
func TestAccIsExact(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		xs := rapid.SliceOf(rapid.OneOf(
			samplertest.Key(1),
			rapid.Map(rapid.Uint64Range(0, 0x7fefffffffffffff), math.Float64frombits),
		)).Draw(t, "xs")
		var acc driver.Acc
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
		var acc driver.Acc
		for _, x := range xs {
			acc.Add(x)
		}
		want := new(big.Rat)
		for _, k := range rapid.Permutation(seq(len(xs))).Draw(t, "order") {
			if rapid.Bool().Draw(t, "subtract") {
				acc.Sub(xs[k])
				if rapid.Bool().Draw(t, "carry") {
					driver.Carry(&acc)
				}
			} else {
				want.Add(want, new(big.Rat).SetFloat64(xs[k]))
			}
		}
		require.Zero(t, want.Cmp(ratOf(&acc)), "sum of %v less some", xs)
	})
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
		c := driver.NewCutoff(driver.NewSortedIndex(keys), in.Eps, n)
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

func seq(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = i
	}
	return s
}

// ratOf returns the exact value of an accumulator.
func ratOf(acc *driver.Acc) *big.Rat {
	var z big.Int
	acc.Int(&z)
	return new(big.Rat).SetFrac(&z, new(big.Int).Lsh(big.NewInt(1), 1074))
}
