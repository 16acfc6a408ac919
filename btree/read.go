package btree

import "github.com/reweighted/reweighted/driver"

// The read methods below write nothing: several may run at once.

// SumDepth bounds the roundings of a sum Cut hands the driver: a leaf's
// total takes a key through at most 6 additions (four chains of four, then
// two), an inner node's prefix sums take a child's sum through at most
// innerCap more, the descent adds one per level, and the leaf's partial sums
// up to leafCap.
func (t *tree) SumDepth() int { return 6 + (innerCap+1)*t.height + leafCap + 2 }

// Cut is Algorithm 3 on the B+-tree: it returns ρ and the sum of the ρ
// largest keys in one descent.
//
// The predicate holds on a prefix of ranks, so inside a node it is a
// binary search over the children, tested at the last item of each: rank
// r0 + cnt[k], partial sum s0 + psum[k], key last[k], where r0 and s0 count
// the items ranked before the node. The descent then enters the first child
// where it fails. It only ever adds to s0, so every sum it hands to the
// predicate is formed by additions of keys, as the driver's error bound
// requires. The predicate is decided exactly, so it gives the same answer
// at the same rank whatever float sum reaches it: below the root the last
// child is known to fail and is not tested again.
func (t *tree) Cut(c driver.Cutoff) (int, float64) {
	r0, s0 := 0, 0.0
	v := t.root
	known := 0 // 1 when the predicate is known to fail at the node's last item
	for h := t.height; h > 0; h-- {
		nd := &t.inners[v]
		lo, hi := 0, int(nd.n)-known
		for lo < hi {
			m := int(uint(lo+hi) >> 1)
			if c.Holds(nd.last[m], s0+nd.psum[m], r0+int(nd.cnt[m])) {
				lo = m + 1
			} else {
				hi = m
			}
		}
		if lo == int(nd.n) {
			// Only at the root: the predicate holds at rank n.
			return r0 + int(nd.cnt[lo-1]), s0 + nd.psum[lo-1]
		}
		if lo > 0 {
			r0 += int(nd.cnt[lo-1])
			s0 += nd.psum[lo-1]
		}
		v = nd.child[lo]
		known = 1
	}
	// The leaf keeps no prefix sums: they are formed here, by additions
	// from s0, and the predicate searched over them.
	lf := &t.leaves[v]
	var ps [leafCap]float64
	s := s0
	for j := range int(lf.n) {
		s += lf.key[j]
		ps[j] = s
	}
	lo, hi := 0, int(lf.n)-known
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if c.Holds(lf.key[m], ps[m], r0+m+1) {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo > 0 {
		return r0 + lo, ps[lo-1]
	}
	// The predicate fails at every rank of the leaf; it holds at r0.
	return r0, s0
}

// SelectSum returns the item of smallest rank whose partial sum times scale
// exceeds target, and its rank: the first child whose prefix sum does, at
// every level.
//
// Below the root, the partial sums inside a child are associated
// differently from its prefix sum in the parent, so near a boundary the
// descent can enter a child whose prefix sum exceeds the target and find no
// partial sum in it that does. It then returns −1 and the rank after that
// child's last item. If no partial sum at all exceeds the target it returns
// −1 and n + 1.
func (t *tree) SelectSum(target, scale float64) (int, int, float64) {
	r0, s0 := 0, 0.0
	next := len(t.where) + 1
	v := t.root
	for h := t.height; h > 0; h-- {
		// The prefix sums are non-decreasing, so the children whose
		// prefix sum stays within the target are a prefix: count them.
		// Counting rather than a binary search: its loads do not depend on
		// each other, so the node's cache lines arrive together, and it
		// has no branch to mispredict.
		nd := &t.inners[v]
		n := int(nd.n)
		k := 0
		for j := range n {
			k += b2i((s0+nd.psum[j])*scale <= target)
		}
		if k == n {
			return -1, next, 0
		}
		next = r0 + int(nd.cnt[k]) + 1
		if k > 0 {
			r0 += int(nd.cnt[k-1])
			s0 += nd.psum[k-1]
		}
		v = nd.child[k]
	}
	lf := &t.leaves[v]
	s := s0
	for j := range int(lf.n) {
		// A zero key leaves s as it was, so it never is the first to
		// exceed the target: an item with p = 0 is never chosen.
		s += lf.key[j]
		if s*scale > target {
			return int(lf.item[j]), r0 + j + 1, lf.key[j]
		}
	}
	return -1, next, 0
}

// Select returns the item of 1-based rank r, 1 ≤ r ≤ n.
func (t *tree) Select(r int) int {
	v := t.root
	r32 := int32(r)
	for h := t.height; h > 0; h-- {
		nd := &t.inners[v]
		k := 0
		for j := range int(nd.n) - 1 {
			k += b2i(nd.cnt[j] < r32)
		}
		if k > 0 {
			r32 -= nd.cnt[k-1]
		}
		v = nd.child[k]
	}
	return int(t.leaves[v].item[r32-1])
}

// Rank returns the 1-based rank of item i: its slot in its leaf plus the
// items of the children before its path, walking up.
func (t *tree) Rank(i int) int {
	l := t.where[i]
	r := t.slot(l, int32(i)) + 1
	c := l
	for p := t.leaves[l].parent; p != nilNode; c, p = p, t.inners[p].parent {
		if k := t.indexOf(p, c); k > 0 {
			r += int(t.inners[p].cnt[k-1])
		}
	}
	return r
}

// Walk calls f with the items of ranks from, …, to in order, in
// O(to − from + log n).
func (t *tree) Walk(from, to int, f func(int, float64)) {
	if from <= to {
		t.walk(t.root, t.height, from-1, to-from+1, f)
	}
}

// walk skips the first skip items of the subtree of v, h levels above the
// leaves, visits up to r items after them in order, and returns how many
// are left to visit.
func (t *tree) walk(v int32, h, skip, r int, f func(int, float64)) int {
	if h == 0 {
		return t.walkLeaf(v, skip, r, f)
	}
	nd := &t.inners[v]
	n := int(nd.n)
	k0 := 0
	for skip >= int(nd.cnt[k0]) {
		k0++
	}
	if k0 > 0 {
		skip -= int(nd.cnt[k0-1])
	}
	if h > 1 {
		for k := k0; k < n && r > 0; k++ {
			r = t.walk(nd.child[k], h-1, skip, r, f)
			skip = 0
		}
		return r
	}
	// The leaves lie at random places in memory, so each is a cache miss;
	// reading a word of each of the leaf's lines walkAhead leaves ahead
	// starts those misses while this leaf is visited, so that they overlap
	// instead of coming one after the other. The words are summed and
	// tested once, so that the compiler keeps the loads.
	touched, keys := 0, 0.0
	for k := k0; k < n && r > 0; k++ {
		if a := k + walkAhead; a < n {
			lf := &t.leaves[nd.child[a]]
			touched += int(lf.n) + int(lf.item[leafCap-1])
			keys += lf.key[leafCap/2]
		}
		r = t.walkLeaf(nd.child[k], skip, r, f)
		skip = 0
	}
	if touched < 0 || keys < 0 {
		panic("btree: negative count, item or key") // never
	}
	return r
}

// walkAhead is how many leaves ahead walk starts loading.
const walkAhead = 3

// walkLeaf visits up to r items of leaf l after its first skip and returns
// how many are left.
func (t *tree) walkLeaf(l int32, skip, r int, f func(int, float64)) int {
	lf := &t.leaves[l]
	m := min(int(lf.n), skip+r)
	for j := skip; j < m; j++ {
		f(int(lf.item[j]), lf.key[j])
	}
	return r - (m - skip)
}

// SelectSums is SelectSum for many targets, sorted in increasing order.
//
// It descends level by level for a chunk of targets at a time rather than
// one target after another: at each level it first touches the node each
// target goes to, loads that do not depend on each other, so that their
// cache misses overlap instead of coming one after the other, and then
// counts each node's prefix sums as SelectSum does. Every comparison is
// the one SelectSum makes, on the same float sums, so the answers are
// SelectSum's, bit for bit. Sorted targets that share a path read the
// same nodes one after the other, in cache.
func (t *tree) SelectSums(targets []float64, scale float64, items, ranks []int, keys []float64) {
	for lo := 0; lo < len(targets); lo += selectChunk {
		hi := min(lo+selectChunk, len(targets))
		t.selectChunk(targets[lo:hi], scale, items[lo:hi], ranks[lo:hi], keys[lo:hi])
	}
}

// selectChunk is the number of targets SelectSums carries down together:
// enough misses in flight to fill the memory pipeline, and its state on
// the stack.
const selectChunk = 32

// selectChunk is SelectSums for at most selectChunk targets.
func (t *tree) selectChunk(targets []float64, scale float64, items, ranks []int, keys []float64) {
	var (
		node [selectChunk]int32
		r0   [selectChunk]int
		s0   [selectChunk]float64
		next [selectChunk]int
		live [selectChunk]bool // still descending
	)
	m := len(targets)
	for q := range m {
		node[q], next[q], live[q] = t.root, len(t.where)+1, true
	}
	for h := t.height; h > 0; h-- {
		touched := 0.0
		for q := range m {
			if live[q] {
				nd := &t.inners[node[q]]
				touched += nd.psum[0] + nd.psum[innerCap-1]
			}
		}
		for q := range m {
			if !live[q] {
				continue
			}
			nd := &t.inners[node[q]]
			n := int(nd.n)
			k := 0
			for j := range n {
				k += b2i((s0[q]+nd.psum[j])*scale <= targets[q])
			}
			if k == n {
				items[q], ranks[q], keys[q], live[q] = -1, next[q], 0, false
				continue
			}
			next[q] = r0[q] + int(nd.cnt[k]) + 1
			if k > 0 {
				r0[q] += int(nd.cnt[k-1])
				s0[q] += nd.psum[k-1]
			}
			node[q] = nd.child[k]
		}
		if touched < 0 {
			panic("btree: negative prefix sum") // never: keeps the loads
		}
	}
	touched := 0.0
	for q := range m {
		if live[q] {
			lf := &t.leaves[node[q]]
			touched += lf.key[0] + lf.key[leafCap-1]
		}
	}
	if touched < 0 {
		panic("btree: negative key") // never: keeps the loads
	}
	for q := range m {
		if !live[q] {
			continue
		}
		lf := &t.leaves[node[q]]
		s := s0[q]
		items[q], ranks[q], keys[q] = -1, next[q], 0
		for j := range int(lf.n) {
			s += lf.key[j]
			if s*scale > targets[q] {
				items[q], ranks[q], keys[q] = int(lf.item[j]), r0[q]+j+1, lf.key[j]
				break
			}
		}
	}
}
