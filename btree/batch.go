package btree

import (
	"slices"
	"sync"
)

// UpdateBatch replaces the key of items[k] by keys[k] for every k, in that
// order (distinct items, each key valid and different from the item's
// own): the driver's BatchUpdater fast path.
//
// It leaves the tree exactly as Update of each change in turn would, node
// for node: the nodes split, borrow and merge in the same places, and every
// count and sum is a function of the keys below it. What it saves is the
// work in between. First it touches, for a chunk of changes at a time, the
// leaf that holds each item and the path to the leaf where its new key
// belongs, loads that do not depend on each other, so that their cache
// misses overlap instead of coming one after the other. Then it moves each
// item that stays in its leaf, or moves to a leaf with room from one that
// stays at least half full (Update's cheap cases, four in five at random
// keys), inside the leaves only, keeping the separators exact, and leaves
// the counts and sums above stale; it recomputes them once, node by node
// from the leaves up, before a change that needs a split, borrow or merge
// (which it hands to Update) and at the end. An inner node shared by the
// paths of several changes is so recomputed once for all of them.
func (t *tree) UpdateBatch(items []int, keys []float64) {
	sc := updatePool.Get().(*updateScratch)
	defer updatePool.Put(sc)
	for lo := 0; lo < len(items); lo += selectChunk {
		hi := min(lo+selectChunk, len(items))
		t.touch(items[lo:hi], keys[lo:hi])
	}
	// Up to two dirty leaves per change: room for all at once, so that a
	// warm pool never allocates.
	if c := 2 * len(items); cap(sc.dirty) < c || cap(sc.next) < c {
		sc.dirty, sc.next = make([]int32, 0, c), make([]int32, 0, c)
	}
	sc.dirty = sc.dirty[:0]
	for k, i := range items {
		a, it := keys[k], int32(i)
		from := t.where[i]
		var p path
		to := t.findPath(a, it, &p)
		lf := &t.leaves[from]
		if from != to && (lf.n <= minLeaf || t.leaves[to].n == leafCap) {
			// A split, borrow or merge: Update needs exact entries.
			t.flush(sc)
			t.Update(i, a)
			continue
		}
		fromLast, toLast := t.last(from), t.last(to)
		lf.remove(t.slot(from, it))
		lt := &t.leaves[to]
		lt.insertAt(lt.position(a, it), a, it)
		t.where[i] = to
		t.fixSeparators(from, t.last(from) != fromLast)
		t.fixSeparators(to, t.last(to) != toLast)
		sc.dirty = append(sc.dirty, from, to)
	}
	t.flush(sc)
}

// updateScratch is the working memory of UpdateBatch, pooled: the nodes
// whose entries in their parents are stale.
type updateScratch struct {
	dirty []int32
	next  []int32
}

var updatePool = sync.Pool{New: func() any { return new(updateScratch) }}

// separator is the key and item of a leaf's last slot.
type separator struct {
	key  float64
	item int32
}

// last returns the separator of leaf l, which holds at least one item.
func (t *tree) last(l int32) separator {
	lf := &t.leaves[l]
	return separator{lf.key[lf.n-1], lf.item[lf.n-1]}
}

// fixSeparators sets, if changed, the separator of leaf l, the key and item
// of its last slot, in its parent and, while l's subtree is its parent's
// last child, above: findPath reads them before the flush.
func (t *tree) fixSeparators(l int32, changed bool) {
	if !changed {
		return
	}
	lf := &t.leaves[l]
	a, it := lf.key[lf.n-1], lf.item[lf.n-1]
	c := l
	for p := lf.parent; p != nilNode; c, p = p, t.inners[p].parent {
		nd := &t.inners[p]
		k := t.indexOf(p, c)
		nd.last[k], nd.lastItem[k] = a, it
		if k != int(nd.n)-1 {
			return
		}
	}
}

// flush recomputes the leaves in sc.dirty and every entry above them, each
// node once: the leaves' totals, then level by level each parent's entries
// for its dirty children, and its prefix sums once they are all in place.
func (t *tree) flush(sc *updateScratch) {
	if len(sc.dirty) == 0 {
		return
	}
	for _, l := range sc.dirty {
		lf := &t.leaves[l]
		lf.total = leafSum(&lf.key)
	}
	leafLevel := true
	for len(sc.dirty) > 0 {
		// Group the dirty nodes by parent: sorted, duplicates dropped.
		slices.Sort(sc.dirty)
		sc.dirty = slices.Compact(sc.dirty)
		next := sc.next[:0]
		for _, c := range sc.dirty {
			p := t.parent(c, leafLevel)
			if p == nilNode {
				continue
			}
			nd := &t.inners[p]
			k := t.indexOf(p, c)
			nd.put(k, t.summary(c, leafLevel))
			next = append(next, p)
		}
		// Each parent's prefix sums once, all its children's sums in
		// place: the same chain of additions as any update computes.
		slices.Sort(next)
		next = slices.Compact(next)
		for _, p := range next {
			t.inners[p].prefix(0)
		}
		sc.dirty, sc.next = next, sc.dirty[:0]
		leafLevel = false
	}
}

// touch loads, for each change of a chunk, a word of each cache line that
// UpdateBatch will read: the item's leaf and the nodes on the way to the
// leaf where its new key belongs, one level at a time for the whole chunk,
// so that the misses of different changes overlap.
func (t *tree) touch(items []int, keys []float64) {
	var node [selectChunk]int32
	// The loaded words are summed and tested once, so that the compiler
	// keeps the loads; counts and items are ≥ 0 and keys too.
	counts, floats := 0, 0.0
	for q, i := range items {
		node[q] = t.where[i]
	}
	for q := range items {
		lf := &t.leaves[node[q]]
		counts += int(lf.n) + int(lf.item[leafCap-1])
		floats += lf.key[leafCap-1]
		node[q] = t.root
	}
	for h := t.height; h > 0; h-- {
		for q := range items {
			nd := &t.inners[node[q]]
			counts += int(nd.n) + int(nd.child[innerCap-1]) + int(nd.lastItem[innerCap-1])
			floats += nd.last[0] + nd.last[innerCap-1]
		}
		for q, i := range items {
			nd := &t.inners[node[q]]
			a, it := keys[q], int32(i)
			k := 0
			for j := range int(nd.n) - 1 {
				k += precedes(nd.last[j], nd.lastItem[j], a, it)
			}
			node[q] = nd.child[k]
		}
	}
	for q := range items {
		lf := &t.leaves[node[q]]
		counts += int(lf.n) + int(lf.item[leafCap-1])
		floats += lf.key[leafCap-1]
	}
	if counts < 0 || floats < 0 {
		panic("btree: negative count, item or key") // never
	}
}
