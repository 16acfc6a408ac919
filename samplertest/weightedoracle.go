package samplertest

import (
	"fmt"
	"math"
	"math/big"
	"slices"
)

// ExactWeighted is the proportional law p_i = a_i / Σa of a vector of float
// weights laid out in index order, in exact arithmetic: the prefix sums as
// integers of units of 2^-1074, as the oracle of Lemma 1 keeps them.
type ExactWeighted struct {
	Keys []float64
	// Sums[i] is a_0 + … + a_{i−1} in units of 2^-1074, i = 0..n: item i
	// owns [Sums[i], Sums[i+1]) of [0, Sums[n]).
	Sums []big.Int
}

// OracleWeighted computes the exact index-order prefix sums of keys, which
// the contract accepts (finite, non-negative).
func OracleWeighted(keys []float64) *ExactWeighted {
	e := &ExactWeighted{Keys: slices.Clone(keys), Sums: make([]big.Int, len(keys)+1)}
	var a big.Int
	for i, k := range keys {
		e.Sums[i+1].Add(&e.Sums[i], units(&a, k))
	}
	return e
}

// Empty reports whether the law does not exist: no items, or every weight 0.
func (e *ExactWeighted) Empty() bool { return e.Sums[len(e.Keys)].Sign() == 0 }

// Total returns the exact sum of the weights.
func (e *ExactWeighted) Total() *big.Rat {
	return unitsRat(new(big.Rat), new(big.Int).Set(&e.Sums[len(e.Keys)]))
}

// Interval returns item i's exact interval [lo, hi) of u in [0, 1).
func (e *ExactWeighted) Interval(i int) (lo, hi *big.Rat) {
	s := &e.Sums[len(e.Keys)]
	return new(big.Rat).SetFrac(&e.Sums[i], s), new(big.Rat).SetFrac(&e.Sums[i+1], s)
}

// Locate returns the item whose exact interval holds u in [0, 1), for a
// law that is not Empty: never an item of weight 0.
func (e *ExactWeighted) Locate(u float64) int {
	// u·S < Sums[i+1] ⇔ units(u)·S < Sums[i+1]·2^1074, all in integers.
	var x, y big.Int
	mulUnits(&x, &e.Sums[len(e.Keys)], u, &y)
	return min(len(e.Keys)-1, searchSums(e.Sums[1:], &x))
}

// searchSums returns the smallest k with sums[k]·2^1074 > x, len(sums) if
// none.
func searchSums(sums []big.Int, x *big.Int) int {
	var y big.Int
	lo, hi := 0, len(sums)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if y.Lsh(&sums[m], 1074).Cmp(x) > 0 {
			hi = m
		} else {
			lo = m + 1
		}
	}
	return lo
}

// CheckFind returns nil if Find(u) may return i: an item of weight above 0
// whose exact interval lies within UDist of u; else an error that names u,
// i, its interval and the item whose interval holds u.
func (e *ExactWeighted) CheckFind(u float64, i int) error {
	n := len(e.Keys)
	if i < 0 || i >= n {
		return fmt.Errorf("Find(%v) = %d, an index out of range [0, %d) (a padding leaf?)", u, i, n)
	}
	if e.Keys[i] == 0 {
		return fmt.Errorf("Find(%v) = %d, an item of weight 0 (the item whose interval holds u is %d)", u, i, e.Locate(u))
	}
	want := e.Locate(u)
	if i == want {
		return nil
	}
	lo, hi := e.Interval(i)
	if d := Distance(u, lo, hi); d > UDist {
		wlo, whi := e.Interval(want)
		return fmt.Errorf("Find(%v) = %d, whose exact interval [%.17g, %.17g) lies %.3g from u; u is in item %d's [%.17g, %.17g) (not index order, or sums off)",
			u, i, ratFloat(lo), ratFloat(hi), d, want, ratFloat(wlo), ratFloat(whi))
	}
	return nil
}

// CheckTotal returns nil if t is within relative RelLambda of the exact
// sum, else an error naming both.
func (e *ExactWeighted) CheckTotal(t float64) error {
	exact := e.Total()
	if !CloseRel(t, exact, RelLambda) {
		return fmt.Errorf("Total() = %.17g, exact sum %.17g: off by %.3g times the bound, relative %g (a sum kept in float32, or by adding deltas?)",
			t, ratFloat(exact), RelErrRatio(t, exact, RelLambda), RelLambda)
	}
	return nil
}

// EdgeUs returns uniform numbers at the lower edge of every item of
// weight above 0 (the float nearest S_i/S and the floats either side of
// it, in [0, 1)) and at the middle of its interval; for at most limit
// items, spread over the index range, when there are more.
func (e *ExactWeighted) EdgeUs(limit int) []float64 {
	n := len(e.Keys)
	if e.Empty() {
		return nil
	}
	step := max(1, n/max(1, limit))
	var us []float64
	for i := 0; i < n; i += step {
		if e.Keys[i] == 0 {
			continue
		}
		lo, hi := e.Interval(i)
		if m := ratFloat(hi.Add(hi, lo).Quo(hi, big.NewRat(2, 1))); m < 1 {
			us = append(us, m)
		}
		f := ratFloat(lo)
		for _, u := range []float64{math.Nextafter(f, 0), f, math.Nextafter(f, 1)} {
			if u >= 0 && u < 1 {
				us = append(us, u)
			}
		}
	}
	return us
}
