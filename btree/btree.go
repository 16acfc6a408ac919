package btree

import (
	"fmt"
	"slices"
	"unsafe"

	"github.com/reweighted/reweighted"
	"github.com/reweighted/reweighted/driver"
)

const (
	// leafCap is the number of slots of a leaf: its keys fill two cache
	// lines, its prefix sums two more and its items one.
	leafCap = 16
	// innerCap is the number of children of an inner node.
	innerCap = 16
	// minLeaf and minInner are the fewest entries a node other than the
	// root holds: half full.
	minLeaf  = leafCap / 2
	minInner = innerCap / 2
)

// nilNode is the link of a missing node.
const nilNode = -1

// tree is the index: a counted B+-tree over n keys.
type tree struct {
	leaves []leaf
	inners []inner
	where  []int32 // item → the leaf that holds it
	root   int32   // a leaf when height is 0, else an inner node; nil if n = 0
	height int     // inner levels above the leaves
	// freeLeaf and freeInner head the lists of released nodes, linked
	// through their parent fields.
	freeLeaf, freeInner int32
	scratch             *batchScratch // UpdateBatch's, made by the first batch
}

// leaf holds up to leafCap items of consecutive ranks, in canonical order.
// Slots from n on hold key 0, so that total can sum all slots at once.
//
// The header comes first, so that it shares a cache line with the first
// keys: a descent reads n and the keys together, not one after the other.
type leaf struct {
	n      int32   // slots in use
	parent int32   // inner node, or the next free leaf
	total  float64 // the sum of the keys, by leafSum
	key    [leafCap]float64
	item   [leafCap]int32
}

// leafSum returns the sum of the keys of a leaf, its unused slots 0, in
// four independent chains of additions: a quarter of the latency of one
// chain, and still additions of non-negative floats only.
func leafSum(k *[leafCap]float64) float64 {
	var s0, s1, s2, s3 float64
	for j := 0; j < leafCap; j += 4 {
		s0 += k[j]
		s1 += k[j+1]
		s2 += k[j+2]
		s3 += k[j+3]
	}
	return (s0 + s1) + (s2 + s3)
}

// inner holds up to innerCap children, all leaves or all inner nodes (by
// the level), in rank order.
//
// The fields are in the order a descent reads them: the header, then what
// SelectSum and Select read, then the separators, then the sums only an
// update reads.
type inner struct {
	n      int32 // children in use
	parent int32 // inner node, or the next free inner node
	// psum[k] = psum[k-1] + sum[k], recomputed by additions.
	psum [innerCap]float64
	// cnt[k] is the number of items in children 0, …, k: a prefix count
	// (integers, so updating it by a difference is exact).
	cnt   [innerCap]int32
	child [innerCap]int32
	// last[k] and lastItem[k] are the key and item of the last (smallest)
	// item of child k: the separators a descent tests.
	last     [innerCap]float64
	lastItem [innerCap]int32
	// sum[k] is the sum of the keys of child k, copied from the child.
	sum [innerCap]float64
}

// Sampler is the counted B+-tree backend; it satisfies reweighted.Sampler.
// Use New.
// Its methods are those of the embedded driver.Driver (go doc
// driver.Driver): Len, Key, Set, Solve, Sample and Prob of
// reweighted.Sampler, Load (all keys at once), Probs (every p*), Check (the
// structure's invariants), Index, MarshalBinary, AppendBinary and
// UnmarshalBinary (save and restore the keys and the tree's shape, which its sums depend on; Clone is its own), and
// SampleBatch and SetBatch for
// mini-batches, which the tree speeds up (see Batches in the package doc). Set, Solve, Sample and Prob cost O(log n); the tree takes about 33
// bytes per item, at most 40 after long histories.
// Set, Solve, Sample and Prob allocate nothing, but for the rare exact
// decision of ρ (see package driver). The read methods (Len, Key, Solve,
// Sample, SampleBatch, Prob, Probs) write nothing and may run concurrently;
// Set, SetBatch and Load may not run concurrently with anything.
type Sampler struct {
	driver.Driver
	t tree
}

var _ reweighted.Sampler = (*Sampler)(nil)

// New returns a sampler over n items, all keys 0. It panics if n < 0 or if
// n does not fit the tree's int32 links.
func New(n int) *Sampler {
	driver.CheckSize("btree", n)
	s := &Sampler{t: tree{where: make([]int32, n)}}
	// Random updates leave leaves about two thirds full, and a bulk load
	// packs them full: reserve room for the nodes of leaves 60% full, so
	// that the slices do not grow, copying megabytes, in the first steps.
	leaves := n*5/(3*leafCap) + 2
	s.t.leaves = make([]leaf, 0, leaves)
	s.t.inners = make([]inner, 0, leaves*5/(3*innerCap)*9/8+2)
	// With all keys 0 the canonical order is the index order.
	order := make([]int32, n)
	for i := range order {
		order[i] = int32(i)
	}
	s.t.load(order, make([]float64, n))
	s.Driver = driver.New(&s.t)
	return s
}

// Len returns the number of items.
func (t *tree) Len() int { return len(t.where) }

// slot returns the slot of item i in its leaf l. It scans every slot in
// use without an early exit: the compiler turns the loop into conditional
// moves, and a mispredicted exit would cost more than the compares.
func (t *tree) slot(l int32, i int32) int {
	lf := &t.leaves[l]
	s := -1
	for j := range int(lf.n) {
		if lf.item[j] == i {
			s = j
		}
	}
	if s < 0 {
		panic(fmt.Sprintf("btree: item %d not in its leaf %d", i, l))
	}
	return s
}

// b2i is 1 for true and 0 for false; the compiler makes it a SETcc, so
// that counting loops over a node have no branches to mispredict.
func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// precedes is before without branches: 1 if item i with key a precedes item
// j with key b in canonical order, else 0.
func precedes(a float64, i int32, b float64, j int32) int {
	return b2i(a > b) | b2i(a == b)&b2i(i < j)
}

// Key returns the key of item i. It panics unless 0 ≤ i < Len().
func (t *tree) Key(i int) float64 {
	l := t.where[i]
	return t.leaves[l].key[t.slot(l, int32(i))]
}

// Total returns the sum of all keys.
func (t *tree) Total() float64 {
	switch {
	case t.root == nilNode:
		return 0
	case t.height == 0:
		return t.leaves[t.root].total
	default:
		nd := &t.inners[t.root]
		return nd.psum[nd.n-1]
	}
}

// Build replaces all keys: a sort, O(n log n), then a bulk load in O(n).
func (t *tree) Build(keys []float64) {
	t.load(canonical(keys), keys)
}

// canonical returns the items in canonical order.
func canonical(keys []float64) []int32 {
	order := make([]int32, len(keys))
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortFunc(order, func(i, j int32) int {
		if driver.Before(keys[i], i, keys[j], j) {
			return -1
		}
		return 1
	})
	return order
}

// load rebuilds the tree from the items in canonical order with their keys
// (by item), reusing the node slices. Leaves are filled as evenly as their
// number allows, so all are full but for at most one item each, and so are
// the inner nodes: a fresh tree is as short and as dense as it can be.
func (t *tree) load(order []int32, keys []float64) { t.fill(order, keys, nil) }

// fill is load, the sizes of the nodes given by sh if it is not nil: the
// items of each leaf and the children of each inner node, level by level
// from the leaves up, each level in rank order. sh fits the items.
func (t *tree) fill(order []int32, keys []float64, sh *shape) {
	n := len(order)
	t.leaves, t.inners = t.leaves[:0], t.inners[:0]
	t.freeLeaf, t.freeInner = nilNode, nilNode
	t.root, t.height = nilNode, 0
	if n == 0 {
		return
	}
	m := (n + leafCap - 1) / leafCap
	if sh != nil {
		m = len(sh.levels[0])
	}
	level := make([]int32, m)
	hi := 0
	for b := range m {
		lo := hi
		if hi = (b + 1) * n / m; sh != nil {
			hi = lo + int(sh.levels[0][b])
		}
		l := t.newLeaf()
		lf := &t.leaves[l]
		for j, i := range order[lo:hi] {
			lf.key[j] = keys[i]
			lf.item[j] = i
			t.where[i] = l
		}
		lf.n = int32(hi - lo)
		lf.total = leafSum(&lf.key)
		level[b] = l
	}
	for len(level) > 1 {
		t.height++
		c := len(level)
		m := (c + innerCap - 1) / innerCap
		if sh != nil {
			m = len(sh.levels[t.height])
		}
		up := make([]int32, m)
		hi := 0
		for b := range m {
			lo := hi
			if hi = (b + 1) * c / m; sh != nil {
				hi = lo + int(sh.levels[t.height][b])
			}
			v := t.newInner()
			nd := &t.inners[v]
			copy(nd.child[:], level[lo:hi])
			nd.n = int32(hi - lo)
			t.adopt(v, 0, t.height == 1)
			t.refresh(v, 0, t.height == 1)
			up[b] = v
		}
		level = up
	}
	t.root = level[0]
	t.setParent(t.root, t.height == 0, nilNode)
}

// newLeaf returns an empty leaf, from the free list if it has one.
func (t *tree) newLeaf() int32 {
	if l := t.freeLeaf; l != nilNode {
		t.freeLeaf = t.leaves[l].parent
		t.leaves[l] = leaf{parent: nilNode}
		return l
	}
	t.leaves = grow(t.leaves)
	t.leaves = append(t.leaves, leaf{parent: nilNode})
	return int32(len(t.leaves) - 1)
}

// newInner returns an empty inner node, from the free list if it has one.
func (t *tree) newInner() int32 {
	if v := t.freeInner; v != nilNode {
		t.freeInner = t.inners[v].parent
		t.inners[v] = inner{parent: nilNode}
		return v
	}
	t.inners = grow(t.inners)
	t.inners = append(t.inners, inner{parent: nilNode})
	return int32(len(t.inners) - 1)
}

// grow makes room for one more node, if s is full, by an eighth of its
// capacity: append would double a small slice, and the tree needs few
// nodes more than its reserve (see New).
func grow[T any](s []T) []T {
	if len(s) < cap(s) {
		return s
	}
	g := make([]T, len(s), cap(s)+cap(s)/8+1)
	copy(g, s)
	return g
}

// freeLeafNode releases leaf l. A free leaf has n = −1, so that
// UpdateBatch tells the leaves its merges freed from the ones it emptied.
func (t *tree) freeLeafNode(l int32) {
	t.leaves[l] = leaf{n: -1, parent: t.freeLeaf}
	t.freeLeaf = l
}

func (t *tree) freeInnerNode(v int32) {
	t.inners[v] = inner{parent: t.freeInner}
	t.freeInner = v
}

// prefix recomputes the prefix sums of the node from child k on, by
// additions.
func (nd *inner) prefix(k int) {
	s := 0.0
	if k > 0 {
		s = nd.psum[k-1]
	}
	for j := k; j < int(nd.n); j++ {
		s += nd.sum[j]
		nd.psum[j] = s
	}
}

// count returns the number of items in child k.
func (nd *inner) count(k int) int32 {
	if k == 0 {
		return nd.cnt[0]
	}
	return nd.cnt[k] - nd.cnt[k-1]
}

// summary is what a parent keeps of a child: its item count, key sum and
// last item.
type summary struct {
	cnt      int32
	sum      float64
	last     float64
	lastItem int32
}

func (t *tree) leafSummary(l int32) summary {
	lf := &t.leaves[l]
	j := lf.n - 1
	return summary{lf.n, lf.total, lf.key[j], lf.item[j]}
}

func (t *tree) innerSummary(v int32) summary {
	nd := &t.inners[v]
	k := nd.n - 1
	return summary{nd.cnt[k], nd.psum[k], nd.last[k], nd.lastItem[k]}
}

// summary returns the summary of node v, a leaf at level 0.
func (t *tree) summary(v int32, leafLevel bool) summary {
	if leafLevel {
		return t.leafSummary(v)
	}
	return t.innerSummary(v)
}

// put stores the summary of child k without touching the prefix sums; the
// prefix counts from k on move by the change of its count.
func (nd *inner) put(k int, s summary) {
	if d := s.cnt - nd.count(k); d != 0 {
		for j := k; j < int(nd.n); j++ {
			nd.cnt[j] += d
		}
	}
	nd.sum[k], nd.last[k], nd.lastItem[k] = s.sum, s.last, s.lastItem
}

// entry returns child k and its summary.
func (nd *inner) entry(k int) (int32, summary) {
	return nd.child[k], summary{nd.count(k), nd.sum[k], nd.last[k], nd.lastItem[k]}
}

// insertEntry makes child c, of summary s, the child k, shifting the ones
// from k on; the prefix sums from k on are left stale. The node has room.
func (nd *inner) insertEntry(k int, c int32, s summary) {
	n := int(nd.n)
	copy(nd.child[k+1:n+1], nd.child[k:n])
	copy(nd.sum[k+1:n+1], nd.sum[k:n])
	copy(nd.last[k+1:n+1], nd.last[k:n])
	copy(nd.lastItem[k+1:n+1], nd.lastItem[k:n])
	for j := n; j > k; j-- {
		nd.cnt[j] = nd.cnt[j-1] + s.cnt
	}
	nd.cnt[k] = s.cnt
	if k > 0 {
		nd.cnt[k] += nd.cnt[k-1]
	}
	nd.child[k], nd.sum[k], nd.last[k], nd.lastItem[k] = c, s.sum, s.last, s.lastItem
	nd.n++
}

// removeEntry drops child k, shifting the ones after it; the prefix sums
// from k on are left stale.
func (nd *inner) removeEntry(k int) {
	n := int(nd.n)
	c := nd.count(k)
	copy(nd.child[k:n-1], nd.child[k+1:n])
	copy(nd.sum[k:n-1], nd.sum[k+1:n])
	copy(nd.last[k:n-1], nd.last[k+1:n])
	copy(nd.lastItem[k:n-1], nd.lastItem[k+1:n])
	for j := k; j < n-1; j++ {
		nd.cnt[j] = nd.cnt[j+1] - c
	}
	nd.n--
}

// moveTail moves the children of nd from k on to the empty node q, with
// their entries, and recomputes q's prefix sums.
func (nd *inner) moveTail(k int, q *inner) {
	n := int(nd.n)
	m := n - k
	copy(q.child[:m], nd.child[k:n])
	copy(q.sum[:m], nd.sum[k:n])
	copy(q.last[:m], nd.last[k:n])
	copy(q.lastItem[:m], nd.lastItem[k:n])
	base := int32(0)
	if k > 0 {
		base = nd.cnt[k-1]
	}
	for j := range m {
		q.cnt[j] = nd.cnt[k+j] - base
	}
	q.n = int32(m)
	nd.n = int32(k)
	q.prefix(0)
}

// appendAll appends the children of y to nd, with their entries, and
// recomputes the prefix sums from the first of them.
func (nd *inner) appendAll(y *inner) {
	n, m := int(nd.n), int(y.n)
	copy(nd.child[n:n+m], y.child[:m])
	copy(nd.sum[n:n+m], y.sum[:m])
	copy(nd.last[n:n+m], y.last[:m])
	copy(nd.lastItem[n:n+m], y.lastItem[:m])
	base := int32(0)
	if n > 0 {
		base = nd.cnt[n-1]
	}
	for j := range m {
		nd.cnt[n+j] = base + y.cnt[j]
	}
	nd.n += y.n
	nd.prefix(n)
}

// refresh recomputes every entry of inner node v from k on from its
// children (leaves when leafKids), and its prefix sums. It reads every
// child, so only a bulk load uses it; the updates move entries instead.
func (t *tree) refresh(v int32, k int, leafKids bool) {
	nd := &t.inners[v]
	c := int32(0)
	if k > 0 {
		c = nd.cnt[k-1]
	}
	for j := k; j < int(nd.n); j++ {
		s := t.summary(nd.child[j], leafKids)
		c += s.cnt
		nd.cnt[j] = c
		nd.sum[j], nd.last[j], nd.lastItem[j] = s.sum, s.last, s.lastItem
	}
	nd.prefix(k)
}

// adopt sets the parent of the children of v from slot k on to v.
func (t *tree) adopt(v int32, k int, leafKids bool) {
	nd := &t.inners[v]
	for j := k; j < int(nd.n); j++ {
		t.setParent(nd.child[j], leafKids, v)
	}
}

func (t *tree) setParent(c int32, isLeaf bool, p int32) {
	if isLeaf {
		t.leaves[c].parent = p
	} else {
		t.inners[c].parent = p
	}
}

func (t *tree) parent(c int32, isLeaf bool) int32 {
	if isLeaf {
		return t.leaves[c].parent
	}
	return t.inners[c].parent
}

// indexOf returns the slot of child c in inner node v, by a scan without
// branches, as slot.
func (t *tree) indexOf(v, c int32) int {
	nd := &t.inners[v]
	k := -1
	for j := range int(nd.n) {
		if nd.child[j] == c {
			k = j
		}
	}
	if k < 0 {
		panic(fmt.Sprintf("btree: node %d is not a child of %d", c, v))
	}
	return k
}

// bytes returns the memory the tree holds: the node slices at their
// capacity, the item → leaf map, and UpdateBatch's scratch once a batch
// made it (about 5 bytes per leaf and 1 per inner node).
func (t *tree) bytes() int {
	b := cap(t.leaves)*int(unsafe.Sizeof(leaf{})) + cap(t.inners)*int(unsafe.Sizeof(inner{})) + 4*cap(t.where)
	if sc := t.scratch; sc != nil {
		b += 4*(cap(sc.to)+cap(sc.next)+cap(sc.split)+cap(sc.leaves)) + cap(sc.changed) + cap(sc.state)
		for _, l := range sc.level {
			b += 4 * cap(l)
		}
	}
	return b
}

// leavesInUse returns the number of leaves in the tree.
func (t *tree) leavesInUse() int {
	free := 0
	for l := t.freeLeaf; l != nilNode; l = t.leaves[l].parent {
		free++
	}
	return len(t.leaves) - free
}
