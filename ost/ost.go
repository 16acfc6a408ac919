// Package ost is the tree backend of reweighted: an order-statistic
// red-black tree whose nodes carry the size and the key sum of their
// subtree, searched as in Algorithms 3 and 4 of the paper: O(log n) for
// every operation.
//
// A Sampler holds n keys, all 0 at first. Each SRG step draws an item and
// gives it a new key:
//
//	s := ost.New(n)
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
// The tree orders items canonically (key descending, equal keys by index
// ascending), so an in-order traversal, left subtree first, visits ranks
// 1, 2, …, n: the left child of a node holds larger keys, the right child
// smaller ones. (The paper draws the mirror image; only the names of the
// children differ.) Every node stores its key, the number of nodes in its
// subtree and the sum of their keys, which is all Algorithm 3 needs to find
// ρ and λ(ρ) in one descent from the root, and all Algorithm 4 needs to turn
// u into an item in one more.
//
// # Memory
//
// The nodes live in one slice indexed by item, as the paper's "array whose
// i-th element is the node whose value is i": the node of item i is found
// without a search, and a node never moves, so Set reuses its slot. Links
// are int32 indices into that slice rather than pointers, and the colour
// shares a word with the subtree size, so a node takes 32 bytes (key, sum,
// three links, size and colour) where pointer links would take 48 or more;
// two nodes fill a cache line exactly, the slice is one allocation that the
// garbage collector never scans, and n is limited to 2^31 − 1 items, which
// the links can address.
//
// # Costs
//
// New builds a perfectly balanced tree in O(n); Load sorts the keys and
// builds one in O(n log n). Set costs O(log n): it updates the key in place
// when the item keeps its rank, and otherwise deletes and reinserts the node
// (CLRS chapters 13 and 14). Solve, Sample and Prob cost O(log n) each: a
// descent for ρ, one for the item (Sample) or a walk up for its rank
// (Prob); Probs costs O(n). The tree is the index of the module's shared
// driver, which checks the arguments and decides the predicate of Lemma 1
// exactly; only that exact decision, for keys within a relative (n + 8)·2^-52
// of the cutoff, allocates or costs more (a walk over O(n) keys).
//
// # Sums
//
// The sum of a node is always recomputed from its children, left.sum + key +
// right.sum, along the path from every changed node to the root, and never
// adjusted by adding the change of a key. An adjusted sum drifts: after
// many updates it keeps the rounding errors of keys long gone, and a sum
// that should be 0, or tiny next to keys that have left, can end up far from
// it (the bug of gonum's sampleuv.Weighted, issue 1866). A recomputed sum
// depends only on the keys now in the subtree and on its shape.
package ost

import (
	"cmp"
	"math/bits"
	"slices"

	"github.com/reweighted/reweighted"
	"github.com/reweighted/reweighted/driver"
)

// nilNode is the link of a missing child or parent.
const nilNode = -1

// tree is the index: an order-statistic red-black tree over n keys.
type tree struct {
	nodes []node
	root  int32
}

// node is the node of one item; its index in Tree.nodes is the item.
type node struct {
	key float64 // the item's key
	sum float64 // child[0].sum + key + child[1].sum
	// child[0] (left) holds larger keys (smaller ranks), child[1] (right)
	// smaller ones; indexing by a direction bit writes each pair of
	// mirrored cases of the fix-ups once.
	child  [2]int32
	parent int32
	// meta holds the size of the subtree in its low 31 bits (n < 2^31) and
	// the colour in the top bit, so that a node takes 32 bytes.
	meta uint32
}

const redBit = 1 << 31

func (n *node) size() int32 { return int32(n.meta &^ redBit) }
func (n *node) red() bool   { return n.meta&redBit != 0 }

func (n *node) setSize(s int32) { n.meta = n.meta&redBit | uint32(s) }

func (n *node) setRed(red bool) {
	if red {
		n.meta |= redBit
	} else {
		n.meta &^= redBit
	}
}

// Sampler is the order-statistic red-black tree backend; it satisfies
// reweighted.Sampler. Use New.
// Its methods are those of the embedded driver.Driver (go doc
// driver.Driver): Len, Key, Set, Solve, Sample and Prob of
// reweighted.Sampler, Load (all keys at once), Probs (every p*), Check (the
// structure's invariants), Index, and MarshalBinary, AppendBinary and
// UnmarshalBinary (save and restore the keys and the tree's shape, which its sums depend on); Clone is its own. Set, Solve, Sample and Prob cost O(log n); the tree takes 32 bytes per
// item.
// Set, Solve, Sample and Prob allocate nothing, but for the rare exact
// decision of ρ (see package driver). The read methods (Len, Key, Solve, Sample, Prob, Probs)
// write nothing and may run concurrently; Set, SetBatch and Load may not run
// concurrently with anything.
type Sampler struct {
	driver.Driver
	t tree
}

var _ reweighted.Sampler = (*Sampler)(nil)

// New returns a sampler over n items, all keys 0. It panics if n < 0 or if
// n does not fit the tree's int32 links.
func New(n int) *Sampler {
	driver.CheckSize("ost", n)
	s := &Sampler{t: tree{nodes: make([]node, n)}}
	// With all keys 0 the canonical order is the index order.
	s.t.link(nil)
	s.Driver = driver.New(&s.t)
	return s
}

// link builds a perfectly balanced tree whose in-order is the given order of
// items (nil: the index order). Levels of a midpoint-split tree are full
// down to depth ⌊log2(n+1)⌋ − 1; colouring the nodes below that red gives
// every path the same number of black nodes, and those red nodes are leaves
// with black parents.
func (t *tree) link(order []int32) {
	n := len(t.nodes)
	full := bits.Len(uint(n+1)) - 1 // ⌊log2(n+1)⌋
	t.root = t.build(order, 0, n, nilNode, 0, full)
}

// Build replaces all keys: a sort, O(n log n), then a balanced tree in O(n).
func (t *tree) Build(keys []float64) {
	for i, a := range keys {
		t.nodes[i].key = a
	}
	t.link(canonical(keys))
}

// canonical returns the items in canonical order: keys descending, equal
// keys by index ascending.
func canonical(keys []float64) []int32 {
	order := make([]int32, len(keys))
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortFunc(order, func(i, j int32) int {
		return cmp.Or(cmp.Compare(keys[j], keys[i]), cmp.Compare(i, j))
	})
	return order
}

// build links the items of ranks [lo, hi) into a balanced subtree at the
// given depth, recomputing sizes and sums, and returns its root.
func (t *tree) build(order []int32, lo, hi int, parent int32, depth, full int) int32 {
	if lo >= hi {
		return nilNode
	}
	mid := lo + (hi-lo)/2
	m := int32(mid)
	if order != nil {
		m = order[mid]
	}
	v := &t.nodes[m]
	v.parent = parent
	v.setRed(depth >= full)
	v.child[0] = t.build(order, lo, mid, m, depth+1, full)
	v.child[1] = t.build(order, mid+1, hi, m, depth+1, full)
	t.fix(m)
	return m
}

// Len returns the number of items.
func (t *tree) Len() int { return len(t.nodes) }

// Key returns the key of item i. It panics unless 0 ≤ i < Len().
func (t *tree) Key(i int) float64 { return t.nodes[i].key }

// Total returns the sum of all keys.
func (t *tree) Total() float64 { return t.sum(t.root) }

func (t *tree) size(v int32) int32 {
	if v == nilNode {
		return 0
	}
	return t.nodes[v].size()
}

func (t *tree) sum(v int32) float64 {
	if v == nilNode {
		return 0
	}
	return t.nodes[v].sum
}

func (t *tree) isRed(v int32) bool { return v != nilNode && t.nodes[v].red() }

// fix recomputes the size and sum of v from its children.
func (t *tree) fix(v int32) {
	n := &t.nodes[v]
	n.setSize(t.size(n.child[0]) + 1 + t.size(n.child[1]))
	n.sum = t.sum(n.child[0]) + n.key + t.sum(n.child[1])
}

// fixUp recomputes v and all its ancestors.
func (t *tree) fixUp(v int32) {
	for ; v != nilNode; v = t.nodes[v].parent {
		t.fix(v)
	}
}

// Update replaces the key of item i by a: in place when the item keeps its
// rank, else by a deletion and a reinsertion.
func (t *tree) Update(i int, a float64) {
	v := int32(i)
	if t.keepsRank(v, a) {
		t.nodes[v].key = a
		t.fixUp(v)
		return
	}
	t.delete(v)
	t.nodes[v].key = a
	t.insert(v)
}

// keepsRank reports whether item v with key a would stay between its
// current neighbours in canonical order.
func (t *tree) keepsRank(v int32, a float64) bool {
	if p := t.step(v, 0); p != nilNode && !driver.Before(t.nodes[p].key, p, a, v) {
		return false
	}
	if q := t.step(v, 1); q != nilNode && !driver.Before(a, v, t.nodes[q].key, q) {
		return false
	}
	return true
}

// step returns the node of the next rank (d = 1) or of the previous one
// (d = 0), or nilNode.
func (t *tree) step(v int32, d int) int32 {
	if c := t.nodes[v].child[d]; c != nilNode {
		return t.end(c, 1-d)
	}
	p := t.nodes[v].parent
	for p != nilNode && t.nodes[p].child[d] == v {
		v, p = p, t.nodes[p].parent
	}
	return p
}

// end returns the node of smallest (d = 0) or largest (d = 1) rank in the
// subtree of v.
func (t *tree) end(v int32, d int) int32 {
	for t.nodes[v].child[d] != nilNode {
		v = t.nodes[v].child[d]
	}
	return v
}

// side returns which child of p the link v is: 0 if it is child 0, else 1.
func (t *tree) side(p, v int32) int {
	if t.nodes[p].child[0] == v {
		return 0
	}
	return 1
}

// rotate lifts child 1 − d of x into its place, x going down on side d
// (d = 0 is CLRS's left rotation, 13.2), and recomputes both nodes; the
// caller recomputes their ancestors.
func (t *tree) rotate(x int32, d int) {
	y := t.nodes[x].child[1-d]
	b := t.nodes[y].child[d]
	t.nodes[x].child[1-d] = b
	if b != nilNode {
		t.nodes[b].parent = x
	}
	t.replaceChild(x, y)
	t.nodes[y].child[d] = x
	t.nodes[x].parent = y
	t.fix(x)
	t.fix(y)
}

// replaceChild makes v take u's place under u's parent (CLRS's transplant).
func (t *tree) replaceChild(u, v int32) {
	p := t.nodes[u].parent
	if p == nilNode {
		t.root = v
	} else {
		t.nodes[p].child[t.side(p, u)] = v
	}
	if v != nilNode {
		t.nodes[v].parent = p
	}
}

// insert links the detached node z into the tree by its key (CLRS 13.3).
func (t *tree) insert(z int32) {
	a := t.nodes[z].key
	p, x, d := int32(nilNode), t.root, 0
	for x != nilNode {
		p, d = x, 0
		if !driver.Before(a, z, t.nodes[x].key, x) {
			d = 1
		}
		x = t.nodes[x].child[d]
	}
	n := &t.nodes[z]
	n.parent, n.child = p, [2]int32{nilNode, nilNode}
	n.setRed(true)
	if p == nilNode {
		t.root = z
	} else {
		t.nodes[p].child[d] = z
	}
	t.insertFixup(z)
	// Only z and its ancestors have stale sizes and sums, before and after
	// each rotation: a rotation recomputes its two nodes, and any node it
	// gives a stale child is itself an ancestor of z. (A rotation also
	// changes how a subtree's sum is associated, hence maybe its rounding,
	// so the ancestors of every rotated pair need recomputing too; they are
	// on the same path.) One walk up from z makes everything exact.
	t.fixUp(z)
}

// insertFixup restores the red-black properties after inserting z. Each
// case is written for the parent p being child d of the grandparent g; the
// uncle is child 1 − d.
func (t *tree) insertFixup(z int32) {
	for {
		p := t.nodes[z].parent
		if !t.isRed(p) {
			break
		}
		g := t.nodes[p].parent // exists: a red node is never the root
		d := t.side(g, p)
		if u := t.nodes[g].child[1-d]; t.isRed(u) {
			t.nodes[p].setRed(false)
			t.nodes[u].setRed(false)
			t.nodes[g].setRed(true)
			z = g
			continue
		}
		if z == t.nodes[p].child[1-d] {
			z = p
			t.rotate(z, d)
			p = t.nodes[z].parent
		}
		t.nodes[p].setRed(false)
		t.nodes[g].setRed(true)
		t.rotate(g, 1-d)
	}
	t.nodes[t.root].setRed(false)
}

// delete unlinks node z from the tree (CLRS 13.4, with the parent of x kept
// apart since the nil child has no node to hold it).
func (t *tree) delete(z int32) {
	y, yRed := z, t.nodes[z].red()
	var x, xp int32
	switch {
	case t.nodes[z].child[0] == nilNode || t.nodes[z].child[1] == nilNode:
		// z has at most one child, x, on the side that is not nil.
		x, xp = t.nodes[z].child[1-t.side(z, nilNode)], t.nodes[z].parent
		t.replaceChild(z, x)
	default:
		y = t.end(t.nodes[z].child[1], 0)
		yRed = t.nodes[y].red()
		x = t.nodes[y].child[1]
		if t.nodes[y].parent == z {
			xp = y
		} else {
			xp = t.nodes[y].parent
			t.replaceChild(y, x)
			t.nodes[y].child[1] = t.nodes[z].child[1]
			t.nodes[t.nodes[y].child[1]].parent = y
		}
		t.replaceChild(z, y)
		t.nodes[y].child[0] = t.nodes[z].child[0]
		t.nodes[t.nodes[y].child[0]].parent = y
		t.nodes[y].setRed(t.nodes[z].red())
	}
	if !yRed {
		t.deleteFixup(x, xp)
	}
	// xp is the lowest node whose subtree lost z. As in insert, only xp and
	// its ancestors are stale, before and after each rotation of the fixup,
	// so one walk up from xp makes every size and sum exact.
	t.fixUp(xp)
	n := &t.nodes[z]
	n.child, n.parent = [2]int32{nilNode, nilNode}, nilNode
	n.setRed(false)
}

// deleteFixup restores the red-black properties after a black node was
// removed above x, whose parent is xp (x may be nilNode). Each case is
// written for x being child d of xp; its sibling w is child 1 − d.
func (t *tree) deleteFixup(x, xp int32) {
	for x != t.root && !t.isRed(x) {
		d := t.side(xp, x)
		w := t.nodes[xp].child[1-d]
		if t.isRed(w) {
			t.nodes[w].setRed(false)
			t.nodes[xp].setRed(true)
			t.rotate(xp, d)
			w = t.nodes[xp].child[1-d]
		}
		if !t.isRed(t.nodes[w].child[0]) && !t.isRed(t.nodes[w].child[1]) {
			t.nodes[w].setRed(true)
			x, xp = xp, t.nodes[xp].parent
			continue
		}
		if !t.isRed(t.nodes[w].child[1-d]) {
			t.nodes[t.nodes[w].child[d]].setRed(false)
			t.nodes[w].setRed(true)
			t.rotate(w, 1-d)
			w = t.nodes[xp].child[1-d]
		}
		t.nodes[w].setRed(t.nodes[xp].red())
		t.nodes[xp].setRed(false)
		t.nodes[t.nodes[w].child[1-d]].setRed(false)
		t.rotate(xp, d)
		x = t.root
	}
	if x != nilNode {
		t.nodes[x].setRed(false)
	}
}

// Cut is Algorithm 3: it returns ρ and the sum of the ρ largest keys in
// one descent.
//
// The descent carries the rank r0 and the key sum s0 of everything ranked
// before the current subtree and adds to them; the paper's version
// subtracts when it turns back, which rounds the sum differently at every
// turn and breaks the error bound the exact predicate relies on.
func (t *tree) Cut(c driver.Cutoff) (rho int, sRho float64) {
	r0, s0 := 0, 0.0
	for v := t.root; v != nilNode; {
		n := &t.nodes[v]
		r := r0 + int(t.size(n.child[0])) + 1
		s := s0 + t.sum(n.child[0]) + n.key
		if c.Holds(n.key, s, r) {
			rho, sRho = r, s
			r0, s0 = r, s
			v = n.child[1]
		} else {
			v = n.child[0]
		}
	}
	return rho, sRho
}

// Rank returns the 1-based rank of item i.
func (t *tree) Rank(i int) int {
	v := int32(i)
	r := int(t.size(t.nodes[v].child[0])) + 1
	for p := t.nodes[v].parent; p != nilNode; v, p = p, t.nodes[p].parent {
		if t.nodes[p].child[1] == v {
			r += int(t.size(t.nodes[p].child[0])) + 1
		}
	}
	return r
}

// Select returns the item of 1-based rank r, 1 ≤ r ≤ n.
func (t *tree) Select(r int) int {
	v := t.root
	for {
		l := int(t.size(t.nodes[v].child[0]))
		switch {
		case r <= l:
			v = t.nodes[v].child[0]
		case r == l+1:
			return int(v)
		default:
			r -= l + 1
			v = t.nodes[v].child[1]
		}
	}
}

// SelectSum returns the item of smallest rank whose partial sum (the keys of
// all ranks up to its own, its own included) times scale exceeds target, and
// its rank.
//
// The sum of a subtree and the partial sums met inside it are associated
// differently, so near a boundary the descent can enter a subtree whose sum
// exceeds the target and find no partial sum in it that does. It then
// returns −1 and the rank of the node whose left subtree that was, the
// next rank after the last one visited: its partial sum exceeds the target.
// If no partial sum at all exceeds the target it returns −1 and n + 1.
func (t *tree) SelectSum(target, scale float64) (int, int, float64) {
	acc, r0 := 0.0, 0
	next := len(t.nodes) + 1 // rank of the in-order successor of the subtree
	for v := t.root; v != nilNode; {
		n := &t.nodes[v]
		x := acc + t.sum(n.child[0]) // the keys ranked before v
		if x*scale > target {
			next = r0 + int(t.size(n.child[0])) + 1
			v = n.child[0]
			continue
		}
		r0 += int(t.size(n.child[0])) + 1
		// A zero key leaves x unchanged, so the test below fails for it:
		// an item with p = 0 is never selected.
		acc = x + n.key
		if acc*scale > target {
			return int(v), r0, n.key
		}
		v = n.child[1]
	}
	return -1, next, 0
}

// SumDepth bounds the roundings of a sum Cut hands the driver. A red-black
// tree of n nodes has height h ≤ 2·log2(n + 1); a node's sum takes each key
// of its subtree through at most 2h additions, and the descent's running
// sum through at most 2h more, plus one.
func (t *tree) SumDepth() int {
	h := 2 * bits.Len(uint(len(t.nodes)+1))
	return 4*h + 1
}

// Walk calls f with the items of ranks from, …, to in order, in
// O(to − from + log n).
func (t *tree) Walk(from, to int, f func(int, float64)) {
	if from > to {
		return
	}
	for v, r := int32(t.Select(from)), to-from+1; ; v = t.step(v, 1) {
		f(int(v), t.nodes[v].key)
		if r--; r == 0 {
			return
		}
	}
}
