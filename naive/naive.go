// Package naive is the reference backend of reweighted: the keys kept as a
// slice sorted in canonical order, with prefix sums, as in Algorithm 2 of
// the paper.
//
// The layout is four arrays in rank order (the item at each rank and the
// prefix sums hi, lo and sum) plus two indexed by item (key and rank): 40
// bytes per item, all allocated by New. Set moves one item by
// a binary search and a copy, then refreshes the prefix sums from the lowest
// rank it touched, so it costs O(n) in the worst case. Solve is Algorithm 2's
// binary search for ρ, valid by Proposition 1; Sample and Prob cost
// O(log n). No method allocates after New.
//
// Prefix sums are recomputed from the keys with compensated (Neumaier)
// summation rather than adjusted by the change of a key, so they never drift
// and stay within a few ulps of the exact sums whatever the history.
package naive

import (
	"fmt"
	"sort"

	"github.com/reweighted/reweighted"
	"github.com/reweighted/reweighted/internal/lemma1"
)

// Sampler is the sorted-slice backend. The zero value has no items; use New.
type Sampler struct {
	key   []float64 // by item
	rank  []int32   // by item: 0-based rank
	order []int32   // by 0-based rank: item
	// hi[r]+lo[r] is the sum of the keys of the r largest items (Neumaier's
	// running sum and its compensation); sum[r] = hi[r]+lo[r] rounded.
	hi, lo, sum []float64
	zeros       int // number of keys equal to 0
}

var _ reweighted.Sampler = (*Sampler)(nil)

// New returns a sampler over n items, all keys 0. It panics if n < 0.
func New(n int) *Sampler {
	if n < 0 {
		panic(fmt.Sprintf("naive: New(%d): negative size", n))
	}
	s := &Sampler{
		key:   make([]float64, n),
		rank:  make([]int32, n),
		order: make([]int32, n),
		hi:    make([]float64, n+1),
		lo:    make([]float64, n+1),
		sum:   make([]float64, n+1),
		zeros: n,
	}
	for i := range n {
		s.rank[i] = int32(i)
		s.order[i] = int32(i)
	}
	return s
}

// Len returns the number of items.
func (s *Sampler) Len() int { return len(s.key) }

// Key returns the key of item i. It panics unless 0 ≤ i < Len().
func (s *Sampler) Key(i int) float64 { return s.key[i] }

// before reports whether (a, i) precedes (b, j) in canonical order.
func before(a float64, i int32, b float64, j int32) bool {
	return a > b || (a == b && i < j)
}

// Set replaces the key of item i by a.
func (s *Sampler) Set(i int, a float64) error {
	if err := lemma1.CheckIndex(i, len(s.key)); err != nil {
		return err
	}
	a, err := lemma1.CheckKey(a)
	if err != nil {
		return err
	}
	old := s.key[i]
	if err := lemma1.CheckSum(s.sum[len(s.key)], old, a); err != nil {
		return err
	}
	if old == 0 {
		s.zeros--
	}
	if a == 0 {
		s.zeros++
	}
	s.key[i] = a
	item := int32(i)
	from := int(s.rank[i])
	// The new rank among the other n−1 items, counted in the slice without i.
	n := len(s.order)
	to := sort.Search(n-1, func(r int) bool {
		if r >= from {
			r++
		}
		j := s.order[r]
		return before(a, item, s.key[j], j)
	})
	switch {
	case to < from:
		copy(s.order[to+1:from+1], s.order[to:from])
	case to > from:
		copy(s.order[from:to], s.order[from+1:to+1])
	}
	s.order[to] = item
	lowest := min(from, to)
	for r := lowest; r <= max(from, to); r++ {
		s.rank[s.order[r]] = int32(r)
	}
	s.refresh(lowest)
	return nil
}

// refresh recomputes the prefix sums of ranks above r0 (0-based) from the
// keys, continuing the compensated sum stored at r0.
func (s *Sampler) refresh(r0 int) {
	hi, lo := s.hi[r0], s.lo[r0]
	for r := r0; r < len(s.order); r++ {
		x := s.key[s.order[r]]
		t := hi + x
		if hi >= x {
			lo += (hi - t) + x
		} else {
			lo += (x - t) + hi
		}
		hi = t
		s.hi[r+1], s.lo[r+1], s.sum[r+1] = hi, lo, hi+lo
	}
}

// keyAt returns the key at 1-based rank r.
func (s *Sampler) keyAt(r int) float64 { return s.key[s.order[r-1]] }

// solve returns ρ and the sum of the ρ largest keys. The caller handles the
// all-zero case.
func (s *Sampler) solve(b lemma1.Bound) (rho int, sRho float64) {
	// Algorithm 2: the predicate holds on a prefix of ranks (Proposition 1).
	// Rank 1 always satisfies it in exact arithmetic, so it is the default.
	n := len(s.key)
	rho = 1 + sort.Search(n-1, func(k int) bool {
		r := k + 2
		return !b.Holds(s.keyAt(r), s.sum[r], r)
	})
	return rho, s.sum[rho]
}

// Solve returns ρ and λ(ρ) of Lemma 1 for the bound eps.
func (s *Sampler) Solve(eps float64) (int, float64, error) {
	b, err := lemma1.NewBound(len(s.key), eps)
	if err != nil {
		return 0, 0, err
	}
	if s.zeros == len(s.key) {
		return len(s.key), 0, nil
	}
	rho, sRho := s.solve(b)
	return rho, b.Lambda(sRho, rho), nil
}

// Prob returns p*_i for the bound eps.
func (s *Sampler) Prob(i int, eps float64) (float64, error) {
	b, err := lemma1.NewBound(len(s.key), eps)
	if err != nil {
		return 0, err
	}
	if err := lemma1.CheckIndex(i, len(s.key)); err != nil {
		return 0, err
	}
	if s.zeros == len(s.key) {
		return b.UniformProb(), nil
	}
	rho, sRho := s.solve(b)
	if int(s.rank[i]) < rho {
		return b.Prob(s.key[i], sRho, rho), nil
	}
	return b.Eps(), nil
}

// Sample maps u to an item as Algorithm 4 does and returns it with its
// probability.
func (s *Sampler) Sample(eps, u float64) (int, float64, error) {
	b, err := lemma1.NewBound(len(s.key), eps)
	if err != nil {
		return 0, 0, err
	}
	if err := lemma1.CheckU(u); err != nil {
		return 0, 0, err
	}
	n := len(s.key)
	if s.zeros == n {
		return int(s.order[b.UniformRank(u)-1]), b.UniformProb(), nil
	}
	rho, sRho := s.solve(b)
	head, t, scale, r := b.Head(u, sRho, rho)
	if !head {
		return int(s.order[r-1]), b.Eps(), nil
	}
	// The smallest rank whose partial sum exceeds the target; ranks past the
	// last positive key, or past ρ, are floating point at the edge.
	last := min(rho, n-s.zeros)
	r = 1 + sort.Search(last, func(k int) bool { return s.sum[k+1]*scale > t })
	r = min(r, last)
	item := s.order[r-1]
	return int(item), b.Prob(s.key[item], sRho, rho), nil
}
