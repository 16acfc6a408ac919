package btree

import (
	"math"
	"math/bits"

	"github.com/reweighted/reweighted/driver"
)

// batchScratch is the working memory of UpdateBatch, kept by the tree
// between batches so that a batch allocates nothing in steady state.
type batchScratch struct {
	// to[k] is the leaf the batch's k-th key is routed to.
	to []int32
	// next[l] − 1 is the piece after leaf l among those a full leaf split
	// into during the batch, or −1; split lists the leaves whose next is
	// set, to clear them after the batch.
	next  []int32
	split []int32
	// leaves lists the leaves a batch changed, possibly more than once.
	leaves []int32
	// changed[l] marks a leaf whose total the walk up recomputed, and
	// state[v] an inner node queued for it (queued) or done (refreshed);
	// all clear between batches.
	changed []bool
	state   []uint8
	// level[h] lists the inner nodes h + 1 levels above the leaves that
	// have a changed child.
	level [maxHeight][]int32
}

// The states of an inner node in the walk up.
const (
	queued    = 1
	refreshed = 2
)

// reserve makes room for a batch of m changes to tree t: each change
// touches at most three leaves and splits at most one, and the node slices
// keep their capacity unless the tree needs more nodes than it ever had,
// so the scratch allocates only when they grow.
func (sc *batchScratch) reserve(t *tree, m int) {
	if cap(sc.to) < m {
		sc.to = make([]int32, m)
		sc.leaves = make([]int32, 0, 3*m)
		sc.split = make([]int32, 0, 2*m)
		for h := range sc.level {
			sc.level[h] = nil
		}
	}
	for h := range t.height + 1 {
		if cap(sc.level[h]) < 3*m {
			sc.level[h] = make([]int32, 0, 3*m)
		}
	}
	if n := cap(t.leaves) + m; len(sc.next) < n {
		sc.next = append(sc.next, make([]int32, n-len(sc.next))...)
	}
	sc.growMarks(t)
}

// growMarks gives changed and state room for every node the tree has.
func (sc *batchScratch) growMarks(t *tree) {
	if n := cap(t.leaves); len(sc.changed) < n {
		sc.changed = append(sc.changed, make([]bool, n-len(sc.changed))...)
	}
	if n := cap(t.inners); len(sc.state) < n {
		sc.state = append(sc.state, make([]uint8, n-len(sc.state))...)
	}
}

// The stale entries of an inner node fit the bits of a uint32.
var _ [32 - innerCap]struct{}

// UpdateBatch replaces the key of items[k] by keys[k] for every k: the
// fast path of driver.BatchUpdater, which hands it distinct items whose
// keys change.
//
// It moves every item first, and only then recomputes the entries above
// the leaves, each stale entry and each prefix sum once per batch; and it
// issues the loads of many changes together, so that their cache misses
// overlap:
//
//  1. Every new key is routed to its leaf by the separators of the tree as
//     it is, descending level by level for many keys at once (as
//     SelectSums does), and the leaves that hold the items are touched.
//     Routing is monotone in the key, so items put in the leaves they are
//     routed to, in any order, end in canonical order.
//  2. Each item leaves its leaf, which may fall below half full or empty,
//     and enters its routed leaf. A full leaf splits at once; the pieces
//     it splits into are chained, so that a key routed to it goes to the
//     piece it belongs to.
//  3. Each leaf left empty leaves the tree; each leaf left below half full
//     borrows from a sibling or merges with it, as Update's, until it is
//     half full again.
//  4. Each leaf changed gets its total; then, level by level from the
//     leaves up, each inner node with a stale entry reads those entries
//     from its children and recomputes its prefix counts and sums from
//     the first of them. Every other entry holds: its subtree did not
//     change, or a split, borrow or merge wrote it from the subtree as it
//     then was, and it did not change after.
//
// The tree then holds the same keys in the same canonical order as after
// Update of each change in turn, with every invariant of Check; its shape,
// and so the association of its sums, may differ.
func (t *tree) UpdateBatch(items []int, keys []float64) {
	if t.scratch == nil {
		t.scratch = new(batchScratch)
	}
	sc := t.scratch
	m := len(items)
	sc.reserve(t, m)
	to := sc.to[:m]
	for lo := 0; lo < m; lo += selectChunk {
		hi := min(lo+selectChunk, m)
		t.route(items[lo:hi], keys[lo:hi], to[lo:hi])
	}
	touched := sc.leaves[:0]
	for k, i := range items {
		it, a := int32(i), keys[k]
		from := t.where[i]
		t.leaves[from].remove(t.slot(from, it))
		touched = append(touched, from)
		l := t.piece(sc, to[k], a, it)
		if lf := &t.leaves[l]; lf.n < leafCap {
			lf.insertAt(lf.position(a, it), a, it)
			t.where[i] = l
			touched = append(touched, l)
			continue
		}
		r := t.insertInto(l, a, it)
		// r is the piece after l now: it takes l's place in the chain.
		sc.next[r], sc.next[l] = sc.next[l], r+1
		sc.split = append(sc.split, l, r)
		touched = append(touched, l, r)
	}
	for _, l := range sc.split {
		sc.next[l] = 0
	}
	sc.split = sc.split[:0]
	for q, l := range touched {
		for {
			lf := &t.leaves[l]
			switch {
			case lf.n < 0 || lf.n >= minLeaf || lf.parent == nilNode:
			case lf.n == 0:
				l = t.dropLeaf(l)
				continue
			default:
				l = t.rebalanceLeaf(l)
				continue
			}
			break
		}
		touched[q] = l
	}
	sc.leaves = touched
	t.refreshBatch(sc)
}

// route sets to[q] to the leaf where item items[q] with key keys[q]
// belongs, for at most selectChunk items, and touches the leaves that
// hold the items now. At each level it first touches the node each key
// goes to, loads that do not depend on each other, then counts the
// separators that precede the key, as findPath does.
func (t *tree) route(items []int, keys []float64, to []int32) {
	for q := range to {
		to[q] = t.root
	}
	for h := t.height; h > 0; h-- {
		touched := 0.0
		for _, v := range to {
			nd := &t.inners[v]
			touched += nd.last[0] + nd.last[innerCap-1] + float64(nd.lastItem[innerCap-1]+nd.child[innerCap-1])
		}
		for q, i := range items {
			nd := &t.inners[to[q]]
			k := 0
			for j := range int(nd.n) - 1 {
				k += precedes(nd.last[j], nd.lastItem[j], keys[q], int32(i))
			}
			to[q] = nd.child[k]
		}
		if math.IsNaN(touched) {
			panic("btree: NaN separator") // never: keeps the loads
		}
	}
	touched := 0.0
	for q, i := range items {
		lf, at := &t.leaves[to[q]], &t.leaves[t.where[i]]
		touched += lf.key[0] + lf.key[leafCap-1] + float64(lf.item[leafCap-1]) +
			at.key[0] + at.key[leafCap-1] + float64(at.item[leafCap-1])
	}
	if math.IsNaN(touched) {
		panic("btree: NaN key") // never: keeps the loads
	}
}

// piece returns the leaf where item i with key a goes, routed to leaf l
// before the batch split any leaf: l, or the last of the pieces l split
// into whose first item precedes (a, i). Pieces left empty are passed
// over: the key may go to any leaf between the items around it.
func (t *tree) piece(sc *batchScratch, l int32, a float64, i int32) int32 {
	for r := sc.next[l] - 1; r >= 0; r = sc.next[r] - 1 {
		if rf := &t.leaves[r]; rf.n > 0 {
			if !driver.Before(rf.key[0], rf.item[0], a, i) {
				break
			}
			l = r
		}
	}
	return l
}

// dropLeaf removes the empty leaf l from the tree, rebalancing its
// parent, and returns a former sibling, which the caller treats as
// changed: the entries above it are then read again, and with them the
// counts and sums the removal changed.
func (t *tree) dropLeaf(l int32) int32 {
	p := t.leaves[l].parent
	k := t.indexOf(p, l)
	nd := &t.inners[p]
	sib := nd.child[1] // a parent has at least two children
	if k > 0 {
		sib = nd.child[k-1]
	}
	nd.removeEntry(k)
	nd.prefix(k)
	t.freeLeafNode(l)
	t.rebalanceInner(p, 1)
	return sib
}

// refreshBatch recomputes the totals of the leaves a batch changed and,
// level by level, the entries above them, once each. A node finds its
// changed children by their marks, in one scan of its children, rather
// than each child searching its parent for its slot.
func (t *tree) refreshBatch(sc *batchScratch) {
	sc.growMarks(t) // splits may have added nodes
	for _, l := range sc.leaves {
		lf := &t.leaves[l]
		if lf.n <= 0 || sc.changed[l] {
			continue // merged into a sibling and freed, or done
		}
		sc.changed[l] = true
		lf.total = leafSum(&lf.key)
		if p := lf.parent; p != nilNode {
			sc.queue(p, 0)
		}
	}
	for h := range t.height {
		for _, v := range sc.level[h] {
			nd := &t.inners[v]
			var stale uint32
			for j, c := range nd.child[:nd.n] {
				if h == 0 {
					stale |= uint32(b2i(sc.changed[c])) << j
				} else {
					stale |= uint32(b2i(sc.state[c] == refreshed)) << j
				}
			}
			t.refreshEntries(v, stale, h == 0)
			sc.state[v] = refreshed
			if g := nd.parent; g != nilNode {
				sc.queue(g, h+1)
			}
		}
	}
	for _, l := range sc.leaves {
		sc.changed[l] = false
	}
	for h := range sc.level {
		for _, v := range sc.level[h] {
			sc.state[v] = 0
		}
		sc.level[h] = sc.level[h][:0]
	}
}

// queue puts inner node v, h + 1 levels above the leaves, on the walk up.
func (sc *batchScratch) queue(v int32, h int) {
	if sc.state[v] == 0 {
		sc.state[v] = queued
		sc.level[h] = append(sc.level[h], v)
	}
}

// refreshEntries reads the entries of inner node v for the children in
// stale from the children (leaves when leafKids), and recomputes the prefix
// counts and sums from the first of them. The other entries hold, so the
// count of each such child is the difference of its prefix counts.
func (t *tree) refreshEntries(v int32, stale uint32, leafKids bool) {
	nd := &t.inners[v]
	lo := bits.TrailingZeros32(stale)
	var prev, c int32 // the old prefix count before child j, and the new
	s := 0.0
	if lo > 0 {
		prev, c, s = nd.cnt[lo-1], nd.cnt[lo-1], nd.psum[lo-1]
	}
	for j := lo; j < int(nd.n); j++ {
		old := nd.cnt[j]
		d := old - prev
		prev = old
		if stale&(1<<j) != 0 {
			sm := t.summary(nd.child[j], leafKids)
			d = sm.cnt
			nd.sum[j], nd.last[j], nd.lastItem[j] = sm.sum, sm.last, sm.lastItem
		}
		c += d
		nd.cnt[j] = c
		s += nd.sum[j]
		nd.psum[j] = s
	}
}
