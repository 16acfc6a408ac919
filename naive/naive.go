// Package naive is the reference backend of reweighted: the keys kept as a
// slice sorted in canonical order, with prefix sums, as in Algorithm 2 of
// the paper. Set costs O(n): it is the reference the other backends are
// compared with, not one to train with.
//
//	s := naive.New(n)
//	err := s.Set(i, a)                        // item i's key
//	i, p, err := s.Sample(eps, u)             // the item whose interval of Algorithm 4 holds u ∈ [0, 1)
//	i, p, err = reweighted.Draw(s, eps, src)  // the same with u drawn from src
//	rho, lambda, err := s.Solve(eps)          // ρ and λ of Lemma 1
//
// Bad input is an error wrapping reweighted's sentinels, and the Sampler is
// left as it was. See Example.
//
// # Design
//
// The layout is four arrays in rank order (the item at each rank and the
// prefix sums hi, lo and sum) plus two indexed by item (key and rank): 40
// bytes per item, all allocated by New. Set moves one item by a binary
// search and a copy, then refreshes the prefix sums from the lowest rank it
// touched, so it costs O(n) in the worst case. Solve is Algorithm 2's binary
// search for ρ, valid by Proposition 1; Sample and Prob cost O(log n); Load
// sorts, O(n log n). No method allocates after New, but for the exact
// decisions described in package reweighted's contract.
//
// Prefix sums are recomputed from the keys with compensated (Neumaier)
// summation rather than adjusted by the change of a key, so they never drift
// and stay within a few ulps of the exact sums whatever the history.
package naive

import (
	"cmp"
	"slices"
	"sort"

	"github.com/reweighted/reweighted"
	"github.com/reweighted/reweighted/driver"
)

// Sampler is the sorted-slice backend; it satisfies reweighted.Sampler.
// Use New.
// Its methods are those of the embedded driver.Driver (go doc
// driver.Driver): Len, Key, Set, Solve, Sample and Prob of
// reweighted.Sampler, Load (all keys at once), Probs (every p*), Check (the
// structure's invariants), Index, and MarshalBinary, AppendBinary and
// UnmarshalBinary (save and restore the keys); Clone is its own. Set costs O(n) (the item moves in the slice and the prefix sums after
// it are added again), Solve, Sample and Prob O(log n); 40 bytes per item.
// Set, Solve, Sample and Prob allocate nothing, but for the rare exact
// decision of ρ (see package driver). The read methods (Len, Key, Solve, Sample, Prob, Probs)
// write nothing and may run concurrently; Set, SetBatch and Load may not run
// concurrently with anything.
type Sampler struct {
	driver.Driver
	idx sorted
}

var _ reweighted.Sampler = (*Sampler)(nil)

// New returns a sampler over n items, all keys 0. It panics if n < 0.
func New(n int) *Sampler {
	driver.CheckSize("naive", n)
	s := &Sampler{idx: sorted{
		key:   make([]float64, n),
		rank:  make([]int32, n),
		order: make([]int32, n),
		hi:    make([]float64, n+1),
		lo:    make([]float64, n+1),
		sum:   make([]float64, n+1),
	}}
	for i := range n {
		s.idx.rank[i] = int32(i)
		s.idx.order[i] = int32(i)
	}
	s.Driver = driver.New(&s.idx)
	return s
}

// sorted is the index: items in canonical order with prefix sums.
type sorted struct {
	key   []float64 // by item
	rank  []int32   // by item: 0-based rank
	order []int32   // by 0-based rank: item
	// hi[r]+lo[r] is the sum of the keys of the r largest items (Neumaier's
	// running sum and its compensation); sum[r] = hi[r]+lo[r] rounded.
	hi, lo, sum []float64
}

func (s *sorted) Len() int            { return len(s.key) }
func (s *sorted) Key(i int) float64   { return s.key[i] }
func (s *sorted) Total() float64      { return s.sum[len(s.key)] }
func (s *sorted) Rank(i int) int      { return int(s.rank[i]) + 1 }
func (s *sorted) Select(r int) int    { return int(s.order[r-1]) }
func (s *sorted) keyAt(r int) float64 { return s.key[s.order[r-1]] }

func (s *sorted) Update(i int, a float64) {
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
		return driver.Before(a, item, s.key[j], j)
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
}

func (s *sorted) Build(keys []float64) {
	copy(s.key, keys)
	for i := range s.order {
		s.order[i] = int32(i)
	}
	// Canonical order: keys descending, equal keys by index ascending.
	slices.SortFunc(s.order, func(i, j int32) int {
		return cmp.Or(cmp.Compare(s.key[j], s.key[i]), cmp.Compare(i, j))
	})
	for r, i := range s.order {
		s.rank[i] = int32(r)
	}
	s.refresh(0)
}

// refresh recomputes the prefix sums of ranks above r0 (0-based) from the
// keys, continuing the compensated sum stored at r0.
func (s *sorted) refresh(r0 int) {
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

// Cut is Algorithm 2: a binary search over ranks, the predicate holding on
// a prefix of them (Proposition 1) and always at rank 1.
func (s *sorted) Cut(c driver.Cutoff) (int, float64) {
	rho := 1 + sort.Search(len(s.key)-1, func(k int) bool {
		r := k + 2
		return !c.Holds(s.keyAt(r), s.sum[r], r)
	})
	return rho, s.sum[rho]
}

func (s *sorted) SelectSum(target, scale float64) (int, int, float64) {
	n := len(s.key)
	r := 1 + sort.Search(n, func(k int) bool { return s.sum[k+1]*scale > target })
	if r > n {
		return -1, n + 1, 0
	}
	i := s.order[r-1]
	return int(i), r, s.key[i]
}

// SumDepth bounds the error of the compensated prefix sums: Neumaier's sum
// is within 2u·S + 2n²u²·S of the exact one (Higham, Accuracy and Stability
// of Numerical Algorithms, §4.3), and rounding hi + lo adds u.
func (s *sorted) SumDepth() int {
	n := float64(len(s.key))
	return 4 + int(2*n*n*0x1p-53)
}

func (s *sorted) Walk(from, to int, f func(int, float64)) {
	if from > to {
		return
	}
	for _, i := range s.order[from-1 : to] {
		f(int(i), s.key[i])
	}
}
