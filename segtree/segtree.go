// Package segtree implements reweighted.Sampler with a segment tree over the
// key space: a crit-bit (PATRICIA) trie over the bit patterns of the keys.
// Its shape depends only on the current keys, never on their history.
//
// A Sampler holds n keys, all 0 at first. Each SRG step draws an item and
// gives it a new key:
//
//	s := segtree.New(n)
//	err := s.Set(i, a)                        // item i's key: its last gradient norm
//	i, p, err := s.Sample(eps, u)             // the item whose interval of Algorithm 4 holds u ∈ [0, 1)
//	i, p, err = reweighted.Draw(s, eps, src)  // the same with u drawn from src
//	rho, lambda, err := s.Solve(eps)          // ρ and λ of Lemma 1
//
// Bad input is an error wrapping reweighted's sentinels, and the Sampler is
// left as it was. See Example.
//
// # Design
//
// Each item is a 96-bit word: the complement of the float64 bits of its key,
// followed by its 32-bit index. The bits of a non-negative float64 grow with
// its value, so ordering the words as unsigned integers is exactly the
// canonical order of the package reweighted: keys descending, equal keys by
// index ascending. The words are distinct, and a binary trie over them with
// the single-child chains compressed away is a segment tree over the key
// space with one leaf per item and n − 1 internal nodes. An internal node
// splits its range at its critical bit, the first bit in which its two
// halves differ: child 0 holds the higher-ranked items (larger keys), child 1
// the lower-ranked. Each internal node keeps the count and the key-sum of
// both halves, so the descents of Algorithms 3 and 4 of the paper (find ρ,
// select by partial sum, select by rank) run on it unchanged, each partial
// sum a left-to-right sum of node sums, never a difference.
//
// # Canonical shape
//
// A crit-bit trie is determined by the set of its words alone: there are no
// rotations, no colours and no balance decisions, so the shape, every node
// sum and hence every floating-point answer depend only on the current keys,
// never on the history of Set calls that produced them. Two samplers that
// hold the same keys are identical, bit for bit.
//
// # Layout and memory
//
// Nodes live in one slice indexed by item, with int32 links. Internal nodes
// need no slice of their own: every internal node is paired with the last
// (lowest-ranked) item of its child 0, and each item except the last one,
// of rank n, is that item for exactly one internal node (the lowest
// ancestor whose child 0 holds it). So slot i holds both the leaf of item i
// and the internal node paired with it, and the key that Solve tests at an
// internal node, the key of the last item of its higher-ranked half, sits
// in the node's own slot beside the sums and counts the descent reads. A
// removal or an insertion moves at most one internal node to another slot
// to keep the pairing, and nothing is allocated. Leaves need no parent
// link: a Set finds the old leaf by following its old word down from the
// root. Memory is 48 bytes per item (key, the two halves' sums and counts,
// two child links, a parent link, the critical bit), in one slice with no
// pointers for the garbage collector to scan.
//
// # Costs
//
// Set, Solve, Sample and Prob each walk O(d) nodes, d the depth of the trie.
// Critical bits strictly increase down every path, so d is at most the word
// width, 96, whatever the keys: powers of two over the whole exponent range,
// subnormals, long runs of ties and all zeros included. For keys spread over
// many values d is close to log2 n (29 for 2^20 exponentially distributed
// keys, 20 for 2^20 zeros). A Set is one removal and one insertion, each a
// root path plus one recomputation of sums up that path; when the new key
// agrees with the old one down to the critical bit of the leaf's parent (a
// change of a few ulps, or a relative change well below 1/n for spread
// keys), the leaf keeps its place and a Set is one descent and one
// recomputation. There are no allocations once New has returned, but in
// the shared driver's exact decision of the predicate of Lemma 1 for keys
// within a relative (n + 8)·2^-52 of the cutoff, which walks O(n) keys
// per descent. Load inserts the items one by one, O(n·d).
//
// # Trade-offs versus the red-black tree
//
// The order-statistic red-black tree (package ost) bounds the depth by
// 2·log2(n+1), at most 62 for any n with int32 links, in 32 bytes per item.
// The trie takes 16 more bytes per item, and its worst case is the word width
// rather than a function of n; in exchange it has no rebalancing code at
// all, every node on a search path is one slot holding the key, sums and
// counts that the descent reads, and its shape and answers are a function of
// the keys alone, which makes runs reproducible across histories and the
// structure easy to test: two trees are equal iff their keys are.
package segtree

import (
	"math"
	"math/bits"

	"github.com/reweighted/reweighted"
	"github.com/reweighted/reweighted/driver"
)

const (
	// wordBits is the width of an item's word: 64 bits of key, 32 of index.
	wordBits = 96
	// nilRef is the root of a tree with no items. Leaf links are ^item, which
	// for item < math.MaxInt32 never reaches math.MinInt32.
	nilRef = math.MinInt32
	// noUp is the parent link of the root.
	noUp = -1
)

// trie is the index: a crit-bit trie over n keys.
type trie struct {
	nodes []node
	root  int32
}

// node is slot i: the leaf of item i and the internal node paired with it,
// the node whose child 0 has item i as its last (lowest-ranked) item.
//
// A link (child, root) is a slot s ≥ 0 for an internal node and ^i < 0 for
// the leaf of item i.
type node struct {
	key   float64    // the key of item i
	sum   [2]float64 // key-sums of the paired node's two halves
	cnt   [2]int32   // item counts of the paired node's two halves
	child [2]int32   // the paired node's halves: 0 higher-ranked, 1 lower
	up    int32      // the paired node's parent slot, or noUp
	crit  uint8      // the paired node's critical bit, 0 = most significant
}

// Sampler is the crit-bit trie backend; it satisfies reweighted.Sampler.
// Use New.
// Its methods are those of the embedded driver.Driver (go doc
// driver.Driver): Len, Key, Set, Solve, Sample and Prob of
// reweighted.Sampler, Load (all keys at once), Probs (every p*), Check (the
// structure's invariants), Index, and MarshalBinary, AppendBinary and
// UnmarshalBinary (save and restore the keys); Clone is its own. Set, Solve, Sample and Prob cost O(depth), at most 96 steps; the trie
// takes 48 bytes per item.
// Set, Solve, Sample and Prob allocate nothing, but for the rare exact
// decision of ρ (see package driver). The read methods (Len, Key, Solve, Sample, Prob, Probs)
// write nothing and may run concurrently; Set, SetBatch and Load may not run
// concurrently with anything.
type Sampler struct {
	driver.Driver
	t trie
}

var _ reweighted.Sampler = (*Sampler)(nil)

// bytesPerItem is the memory of a Sampler per item.
const bytesPerItem = 48

// New returns a sampler over n items, all keys 0. It panics if n is
// negative or does not fit an int32 link.
func New(n int) *Sampler {
	driver.CheckSize("segtree", n)
	s := &Sampler{t: trie{nodes: make([]node, n), root: nilRef}}
	for i := range s.t.nodes {
		s.t.insert(int32(i))
	}
	s.Driver = driver.New(&s.t)
	return s
}

// Len returns the number of items.
func (t *trie) Len() int { return len(t.nodes) }

// Key returns the key of item i.
func (t *trie) Key(i int) float64 { return t.nodes[i].key }

// Total returns the sum of all keys.
func (t *trie) Total() float64 { return t.total(t.root) }

// Update gives item i the key a, different from its key.
func (t *trie) Update(i int, a float64) {
	if len(t.nodes) == 1 {
		t.nodes[i].key = a
		return
	}
	t.rekey(int32(i), a)
}

// Build replaces all keys, inserting the items one by one: O(n·d).
func (t *trie) Build(keys []float64) {
	t.root = nilRef
	for i, a := range keys {
		t.nodes[i] = node{key: a}
	}
	for i := range t.nodes {
		t.insert(int32(i))
	}
}

// SumDepth bounds the roundings of a sum Cut hands the driver: a node's
// half-sum takes a key through one addition per level below it, the descent
// adds one per level, and the trie is at most wordBits deep.
func (t *trie) SumDepth() int { return 2*wordBits + 2 }

// Walk calls f with the items of ranks from, …, to in order: an in-order
// walk of the leaves with a stack as deep as the trie, at most the word
// width, that passes over the halves holding only ranks below from.
func (t *trie) Walk(from, to int, f func(int, float64)) {
	var stack [wordBits + 1]int32
	top, skip, r := 0, from-1, to-from+1
	ref := t.root
	for r > 0 {
		for ref >= 0 {
			nd := &t.nodes[ref]
			if skip >= int(nd.cnt[0]) {
				skip -= int(nd.cnt[0])
				ref = nd.child[1]
				continue
			}
			stack[top] = nd.child[1]
			top++
			ref = nd.child[0]
		}
		f(int(^ref), t.nodes[^ref].key)
		r--
		if top == 0 {
			return
		}
		top--
		ref = stack[top]
	}
}

// Cut finds ρ and the sum of the ρ largest keys in one root-to-leaf
// descent (Algorithm 3). At each internal node it tests the predicate of
// Lemma 1 at the last item of the higher-ranked half, whose key is in the
// node's own slot; by Proposition 1, ρ lies in the lower-ranked half (or is
// that item) if the predicate holds, and in the higher-ranked half if not.
// The rank and the partial sum are accumulated by additions only.
func (t *trie) Cut(c driver.Cutoff) (rho int, sRho float64) {
	racc, sacc := 0, 0.0
	ref := t.root
	for ref >= 0 {
		nd := &t.nodes[ref]
		r, s := racc+int(nd.cnt[0]), sacc+nd.sum[0]
		if c.Holds(nd.key, s, r) {
			rho, sRho = r, s
			racc, sacc = r, s
			ref = nd.child[1]
		} else {
			ref = nd.child[0]
		}
	}
	a := t.nodes[^ref].key
	r, s := racc+1, sacc+a
	// racc == 0: the predicate held nowhere above and this leaf has rank 1,
	// where Lemma 1 guarantees it (floats may not): ρ = 1 by default.
	if racc == 0 || c.Holds(a, s, r) {
		return r, s
	}
	return rho, sRho
}

// SelectSum returns the item of smallest rank whose partial sum, its own key
// included, times scale exceeds target, and its rank. If rounding leads the
// descent to a leaf whose partial sum does not exceed it, it returns −1 and
// the next rank.
func (t *trie) SelectSum(target, scale float64) (item, rank int, key float64) {
	racc, sacc := 0, 0.0
	ref := t.root
	for ref >= 0 {
		nd := &t.nodes[ref]
		if s := sacc + nd.sum[0]; s*scale > target {
			ref = nd.child[0]
		} else {
			racc, sacc = racc+int(nd.cnt[0]), s
			ref = nd.child[1]
		}
	}
	if a := t.nodes[^ref].key; (sacc+a)*scale > target {
		return int(^ref), racc + 1, a
	}
	return -1, racc + 2, 0
}

// Select returns the item of rank r, 1 ≤ r ≤ n.
func (t *trie) Select(r int) int {
	ref := t.root
	for ref >= 0 {
		nd := &t.nodes[ref]
		if c := int(nd.cnt[0]); r > c {
			r -= c
			ref = nd.child[1]
		} else {
			ref = nd.child[0]
		}
	}
	return int(^ref)
}

// Rank returns the rank of item i: one plus the sizes of the higher-ranked
// halves beside its root path.
func (t *trie) Rank(i int) int {
	r := 1
	hi, lo := t.word(int32(i))
	ref := t.root
	for ref >= 0 {
		nd := &t.nodes[ref]
		d := wordBit(hi, lo, nd.crit)
		if d == 1 {
			r += int(nd.cnt[0])
		}
		ref = nd.child[d]
	}
	return r
}

// word returns the word of item i: the complemented key bits, so that larger
// keys come first, and the index.
func (t *trie) word(i int32) (hi uint64, lo uint32) {
	return ^math.Float64bits(t.nodes[i].key), uint32(i)
}

// wordBit returns bit c of the word (hi, lo), bit 0 being the most
// significant.
func wordBit(hi uint64, lo uint32, c uint8) int {
	if c < 64 {
		return int(hi>>(63-c)) & 1
	}
	return int(lo>>(95-c)) & 1
}

// critBit returns the first bit in which the words of items i and j differ.
func (t *trie) critBit(i, j int32) uint8 {
	hi, lo := t.word(i)
	hj, lj := t.word(j)
	if hi != hj {
		return uint8(bits.LeadingZeros64(hi ^ hj))
	}
	return uint8(64 + bits.LeadingZeros32(lo^lj))
}

// total returns the key-sum of the subtree at link ref.
func (t *trie) total(ref int32) float64 {
	if ref == nilRef {
		return 0
	}
	if ref < 0 {
		return t.nodes[^ref].key
	}
	nd := &t.nodes[ref]
	return nd.sum[0] + nd.sum[1]
}

// count returns the number of items in the subtree at link ref.
func (t *trie) count(ref int32) int32 {
	if ref < 0 {
		return 1
	}
	nd := &t.nodes[ref]
	return nd.cnt[0] + nd.cnt[1]
}

// fix recomputes the sums and counts of the internal node at slot s and of
// all its ancestors from their children, never by adding deltas.
func (t *trie) fix(s int32) {
	for s != noUp {
		nd := &t.nodes[s]
		for d, c := range nd.child {
			nd.sum[d], nd.cnt[d] = t.total(c), t.count(c)
		}
		s = nd.up
	}
}

// setUp sets the parent of the subtree at link ref to slot p. Leaves keep no
// parent link: remove finds a leaf's parent on its way down.
func (t *trie) setUp(ref, p int32) {
	if ref >= 0 {
		t.nodes[ref].up = p
	}
}

// link makes the subtree at ref child d of slot p, or the root if p is noUp.
func (t *trie) link(p int32, d int, ref int32) {
	if p == noUp {
		t.root = ref
	} else {
		t.nodes[p].child[d] = ref
	}
	t.setUp(ref, p)
}

// side returns which child of slot p the link ref is.
func (t *trie) side(p, ref int32) int {
	if t.nodes[p].child[1] == ref {
		return 1
	}
	return 0
}

// move moves the internal node at slot from to the free slot to, keeping
// the leaves of both slots where they are.
func (t *trie) move(from, to int32) {
	f, g := &t.nodes[from], &t.nodes[to]
	g.sum, g.cnt, g.child, g.up, g.crit = f.sum, f.cnt, f.child, f.up, f.crit
	if g.up == noUp {
		t.root = to
	} else {
		t.nodes[g.up].child[t.side(g.up, from)] = to
	}
	for _, c := range g.child {
		t.setUp(c, to)
	}
}

// pairedAbove returns the lowest ancestor of the subtree at link ref, p being
// its parent, whose child 0 contains it: the internal node whose paired item
// is the last item of ref. It returns noUp if that item is the last of the
// whole tree, which is paired with no node.
func (t *trie) pairedAbove(p, ref int32) int32 {
	for p != noUp && t.nodes[p].child[1] == ref {
		ref, p = p, t.nodes[p].up
	}
	return p
}

// leafParent follows the word of item l down to its leaf in a tree of at
// least two items: the leaf is child d of slot p, and p is child gd of slot
// g (noUp if p is the root).
func (t *trie) leafParent(l int32) (g int32, gd int, p int32, d int) {
	hi, lo := t.word(l)
	g, p = noUp, t.root
	for {
		nd := &t.nodes[p]
		d = wordBit(hi, lo, nd.crit)
		c := nd.child[d]
		if c < 0 {
			return g, gd, p, d
		}
		g, gd, p = p, d, c
	}
}

// rekey gives item l the key a, different from its key, in a tree of at
// least two items.
func (t *trie) rekey(l int32, a float64) {
	g, gd, p, d := t.leafParent(l)
	hi, _ := t.word(l)
	if bits.LeadingZeros64(hi^^math.Float64bits(a)) > int(t.nodes[p].crit) {
		// The new word agrees with the old one down to p's critical bit, so
		// it splits from every other word where the old one did: the shape,
		// the ranks and the pairing stay, and only the sums above change.
		t.nodes[l].key = a
		t.fix(p)
		return
	}
	t.remove(l, g, gd, p, d)
	t.nodes[l].key = a
	t.insert(l)
}

// remove takes the leaf of item l out of the tree. The leaf is child d of
// slot p, and p is child gd of slot g (noUp if p is the root).
func (t *trie) remove(l, g int32, gd int, p int32, d int) {
	x := t.nodes[p].child[1-d]
	t.link(g, gd, x) // p is gone; its slot is free
	from := g        // where the sums to recompute start
	if d == 1 {
		// p was paired with m, the last item of x; l was the last item of
		// p. The node paired with l, if any, now ends with m: it moves into
		// the slot p left. If there is none, m is now last overall.
		if a := t.pairedAbove(g, x); a == noUp {
			t.clear(p)
		} else {
			t.move(a, p)
			if a == g {
				from = p
			}
		}
	}
	// If d == 0, p was paired with l itself and nothing else changes.
	t.clear(l)
	t.fix(from)
}

// clear zeroes the internal-node fields of a slot that holds no internal
// node, so that the whole slice, not only the trie, is a function of the
// keys.
func (t *trie) clear(s int32) {
	t.nodes[s] = node{key: t.nodes[s].key}
}

// insert puts the leaf of item l, whose key is set, into the tree.
func (t *trie) insert(l int32) {
	if t.root == nilRef {
		t.link(noUp, 0, ^l)
		return
	}
	hi, lo := t.word(l)
	// The leaf whose word shares the longest prefix with l's.
	ref := t.root
	for ref >= 0 {
		nd := &t.nodes[ref]
		ref = nd.child[wordBit(hi, lo, nd.crit)]
	}
	c := t.critBit(l, ^ref)
	dir := wordBit(hi, lo, c)
	// The new node goes above the first subtree x on l's path whose
	// critical bit comes after c.
	p, pd, x := int32(noUp), 0, t.root
	for x >= 0 && t.nodes[x].crit < c {
		p = x
		pd = wordBit(hi, lo, t.nodes[x].crit)
		x = t.nodes[x].child[pd]
	}
	s := l // the new node's slot: the last item of its child 0
	if dir == 1 {
		// l comes after every item of x: the new node is paired with m, the
		// last item of x, and the node paired with m so far now ends with
		// l, so it moves to l's slot.
		m := x
		for m >= 0 {
			m = t.nodes[m].child[1]
		}
		s = ^m
		if a := t.pairedAbove(p, x); a != noUp {
			t.move(a, l)
			if p == a {
				p = l
			}
		}
	}
	nd := &t.nodes[s]
	nd.crit = c
	nd.child = [2]int32{}
	t.link(p, pd, s)
	t.link(s, dir, ^l)
	t.link(s, 1-dir, x)
	t.fix(s)
}
