package btree

import "github.com/reweighted/reweighted/driver"

// Update replaces the key of item i by a. Three cases, cheapest first: the
// item stays in its leaf (a move inside it); it moves to another leaf and
// neither leaf under- or overflows; or the move splits the new leaf, or
// leaves the old one below half full, which then borrows from a sibling or
// merges with it. In every case one walk up from the two leaves, shared
// above the node where their paths meet, recomputes every entry on the way.
func (t *tree) Update(i int, a float64) {
	it := int32(i)
	from := t.where[i]
	j := t.slot(from, it)
	// The separators may still name item i with its old key; a ≠ old, so
	// they order (a, i) as they would without it.
	var p path
	to := t.findPath(a, it, &p)
	lf := &t.leaves[from]
	lf.remove(j)
	if from == to {
		lf.insertAt(lf.position(a, it), a, it)
		lf.total = leafSum(&lf.key)
		t.fixUpPath(&p, 0, t.leafSummary(from))
		return
	}
	lf.total = leafSum(&lf.key)
	if lf.n >= minLeaf && t.leaves[to].n < leafCap {
		lt := &t.leaves[to]
		lt.insertAt(lt.position(a, it), a, it)
		lt.total = leafSum(&lt.key)
		t.where[i] = to
		t.fixUp2(from, to, &p)
		return
	}
	// A split or a merge may move the nodes of either path, so the walk up
	// follows the parent links from the leaves that hold the items at the
	// end. Until then the entries on both paths are stale; the splits,
	// borrows and merges only edit the entries of the nodes they change,
	// with counts moved by their differences, so the walk makes every one
	// exact.
	t.insertInto(to, a, it)
	x := t.rebalanceLeaf(from)
	if y := t.where[i]; y != x {
		t.fixUpLinks(x, y)
	} else {
		t.fixUp(x)
	}
}

// maxHeight bounds the inner levels: with every inner node but the root
// holding at least minInner children, 2^31 items need at most 10.
const maxHeight = 16

// path is the way down to a leaf: at index h, the inner node h + 1 levels
// above the leaf and the slot taken in it.
type path struct {
	node [maxHeight]int32
	slot [maxHeight]int8
}

// findPath returns the leaf where item i with key a belongs, and records
// the path to it, so that the walk up after an update need not search each
// parent for its child. At each level it takes the first child whose last
// item does not precede (a, i), or the last child. The separators precede
// (a, i) on a prefix of the children, so counting them finds that child; a
// count has no branch to mispredict and its loads do not depend on each
// other, so the node's cache lines arrive together.
func (t *tree) findPath(a float64, i int32, p *path) int32 {
	v := t.root
	for h := t.height; h > 0; h-- {
		nd := &t.inners[v]
		k := 0
		for j := range int(nd.n) - 1 {
			k += precedes(nd.last[j], nd.lastItem[j], a, i)
		}
		p.node[h-1], p.slot[h-1] = v, int8(k)
		v = nd.child[k]
	}
	return v
}

// position returns the slot where item i with key a, not in the leaf,
// belongs: the number of items that precede it.
func (lf *leaf) position(a float64, i int32) int {
	k := 0
	for j := range int(lf.n) {
		k += precedes(lf.key[j], lf.item[j], a, i)
	}
	return k
}

// remove deletes slot j and zeroes the slot it frees, leaving total stale.
func (lf *leaf) remove(j int) {
	n := int(lf.n)
	copy(lf.key[j:n-1], lf.key[j+1:n])
	copy(lf.item[j:n-1], lf.item[j+1:n])
	lf.key[n-1], lf.item[n-1] = 0, 0
	lf.n--
}

// insertAt puts item i with key a in slot k, leaving total stale; the leaf
// has room.
func (lf *leaf) insertAt(k int, a float64, i int32) {
	n := int(lf.n)
	copy(lf.key[k+1:n+1], lf.key[k:n])
	copy(lf.item[k+1:n+1], lf.item[k:n])
	lf.key[k], lf.item[k] = a, i
	lf.n++
}

// fixUp recomputes the entries of every ancestor of leaf l for the child on
// the path, and their prefix sums from that child on.
func (t *tree) fixUp(l int32) {
	t.fixUpFrom(l, t.leaves[l].parent, t.leafSummary(l))
}

// fixUpFrom walks up from child c, whose summary is s, and its parent p.
func (t *tree) fixUpFrom(c, p int32, s summary) {
	for p != nilNode {
		nd := &t.inners[p]
		k := t.indexOf(p, c)
		nd.put(k, s)
		nd.prefix(k)
		c, p, s = p, nd.parent, t.innerSummary(p)
	}
}

// fixUpPath walks up path p from index h, storing the summary s of the
// child below at each node and recomputing its prefix sums.
func (t *tree) fixUpPath(p *path, h int, s summary) {
	for ; h < t.height; h++ {
		nd := &t.inners[p.node[h]]
		k := int(p.slot[h])
		nd.put(k, s)
		nd.prefix(k)
		s = t.innerSummary(p.node[h])
	}
}

// fixUp2 is fixUp for leaf a and leaf b, reached by path pb: the walks go
// up side by side (the leaves are at the same depth) and merge where the
// paths meet, so the nodes above are recomputed once. Only a's side
// searches its parents for the child.
func (t *tree) fixUp2(a, b int32, pb *path) {
	sa, sb := t.leafSummary(a), t.leafSummary(b)
	pa := t.leaves[a].parent
	h := 0
	for ; pa != pb.node[h]; h++ {
		na := &t.inners[pa]
		k := t.indexOf(pa, a)
		na.put(k, sa)
		na.prefix(k)
		nb := &t.inners[pb.node[h]]
		kb := int(pb.slot[h])
		nb.put(kb, sb)
		nb.prefix(kb)
		a = pa
		sa, sb = t.innerSummary(pa), t.innerSummary(pb.node[h])
		pa = na.parent
	}
	nd := &t.inners[pa]
	ka, kb := t.indexOf(pa, a), int(pb.slot[h])
	nd.put(ka, sa)
	nd.put(kb, sb)
	nd.prefix(min(ka, kb))
	t.fixUpPath(pb, h+1, t.innerSummary(pa))
}

// fixUpLinks is fixUp2 for leaves a and b without a recorded path: both
// sides search their parents for the child.
func (t *tree) fixUpLinks(a, b int32) {
	sa, sb := t.leafSummary(a), t.leafSummary(b)
	pa, pb := t.leaves[a].parent, t.leaves[b].parent
	for pa != pb {
		na := &t.inners[pa]
		k := t.indexOf(pa, a)
		na.put(k, sa)
		na.prefix(k)
		nb := &t.inners[pb]
		k = t.indexOf(pb, b)
		nb.put(k, sb)
		nb.prefix(k)
		a, b = pa, pb
		sa, sb = t.innerSummary(pa), t.innerSummary(pb)
		pa, pb = na.parent, nb.parent
	}
	nd := &t.inners[pa]
	ka, kb := t.indexOf(pa, a), t.indexOf(pa, b)
	nd.put(ka, sa)
	nd.put(kb, sb)
	nd.prefix(min(ka, kb))
	t.fixUpFrom(pa, nd.parent, t.innerSummary(pa))
}

// borrowCount is how many items a leaf of ln items, below half full, takes
// from a sibling of sn, more than half full: enough to even the two out,
// so that the next deletion from either does not underflow again at once,
// but never so many that the sibling falls below half full (a leaf that
// UpdateBatch emptied may be far below). Each item moved costs a write to
// the item → leaf map, a cache miss at large n.
func borrowCount(sn, ln int32) int {
	return int(min(max((sn-ln)/2, 1), sn-minLeaf))
}

// rebalanceLeaf refills leaf l if it fell below half full, from a sibling
// or by merging with it, and returns the leaf that now holds l's items.
func (t *tree) rebalanceLeaf(l int32) int32 {
	lf := &t.leaves[l]
	p := lf.parent
	if lf.n >= minLeaf || p == nilNode {
		return l
	}
	k := t.indexOf(p, l)
	nd := &t.inners[p]
	if k > 0 {
		if s := nd.child[k-1]; t.leaves[s].n > minLeaf {
			sf := &t.leaves[s]
			for range borrowCount(sf.n, lf.n) {
				m := int(sf.n) - 1
				lf.insertAt(0, sf.key[m], sf.item[m])
				sf.remove(m)
				t.where[lf.item[0]] = l
			}
			sf.total, lf.total = leafSum(&sf.key), leafSum(&lf.key)
			nd.put(k-1, t.leafSummary(s))
			nd.put(k, t.leafSummary(l))
			nd.prefix(k - 1)
			return l
		}
	}
	if k+1 < int(nd.n) {
		if s := nd.child[k+1]; t.leaves[s].n > minLeaf {
			sf := &t.leaves[s]
			for range borrowCount(sf.n, lf.n) {
				lf.insertAt(int(lf.n), sf.key[0], sf.item[0])
				sf.remove(0)
				t.where[lf.item[lf.n-1]] = l
			}
			sf.total, lf.total = leafSum(&sf.key), leafSum(&lf.key)
			nd.put(k, t.leafSummary(l))
			nd.put(k+1, t.leafSummary(s))
			nd.prefix(k)
			return l
		}
	}
	ky := k + 1 // merge the right one of the pair into the left one
	if k > 0 {
		ky = k
	}
	x, y := nd.child[ky-1], nd.child[ky]
	xf, yf := &t.leaves[x], &t.leaves[y]
	m := int(xf.n)
	for j := range int(yf.n) {
		xf.key[m+j], xf.item[m+j] = yf.key[j], yf.item[j]
		t.where[yf.item[j]] = x
	}
	xf.n += yf.n
	xf.total = leafSum(&xf.key)
	t.freeLeafNode(y)
	nd.removeEntry(ky)
	nd.put(ky-1, t.leafSummary(x))
	nd.prefix(ky - 1)
	t.rebalanceInner(p, 1)
	return x
}

// rebalanceInner refills inner node v, level levels above the leaves, if it
// fell below half full, and shortens the tree if v is a root with one child.
func (t *tree) rebalanceInner(v int32, level int) {
	nd := &t.inners[v]
	leafKids := level == 1
	g := nd.parent
	if g == nilNode {
		if nd.n == 1 {
			c := nd.child[0]
			t.root = c
			t.height--
			t.setParent(c, leafKids, nilNode)
			t.freeInnerNode(v)
		}
		return
	}
	if nd.n >= minInner {
		return
	}
	k := t.indexOf(g, v)
	gd := &t.inners[g]
	if k > 0 {
		if s := gd.child[k-1]; t.inners[s].n > minInner {
			sd := &t.inners[s]
			c, cs := sd.entry(int(sd.n) - 1)
			sd.n-- // the last child: the other entries stay exact
			nd.insertEntry(0, c, cs)
			nd.prefix(0)
			t.setParent(c, leafKids, v)
			gd.put(k-1, t.innerSummary(s))
			gd.put(k, t.innerSummary(v))
			gd.prefix(k - 1)
			return
		}
	}
	if k+1 < int(gd.n) {
		if s := gd.child[k+1]; t.inners[s].n > minInner {
			sd := &t.inners[s]
			c, cs := sd.entry(0)
			sd.removeEntry(0)
			sd.prefix(0)
			nd.insertEntry(int(nd.n), c, cs)
			nd.prefix(int(nd.n) - 1)
			t.setParent(c, leafKids, v)
			gd.put(k, t.innerSummary(v))
			gd.put(k+1, t.innerSummary(s))
			gd.prefix(k)
			return
		}
	}
	ky := k + 1
	if k > 0 {
		ky = k
	}
	x, y := gd.child[ky-1], gd.child[ky]
	xd := &t.inners[x]
	m := int(xd.n)
	xd.appendAll(&t.inners[y])
	t.adopt(x, m, leafKids)
	t.freeInnerNode(y)
	gd.removeEntry(ky)
	gd.put(ky-1, t.innerSummary(x))
	gd.prefix(ky - 1)
	t.rebalanceInner(g, level+1)
}

// insertInto puts item i with key a in leaf l, where it belongs, splitting
// l and its ancestors as needed; it leaves the entries above l to the walk
// up that follows. It returns the leaf split off l, or nilNode.
func (t *tree) insertInto(l int32, a float64, i int32) int32 {
	if lf := &t.leaves[l]; lf.n < leafCap {
		lf.insertAt(lf.position(a, i), a, i)
		lf.total = leafSum(&lf.key)
		t.where[i] = l
		return nilNode
	}
	r := t.newLeaf() // may move the leaves: take pointers after it
	lf, rf := &t.leaves[l], &t.leaves[r]
	const half = leafCap / 2
	copy(rf.key[:], lf.key[half:])
	copy(rf.item[:], lf.item[half:])
	clear(lf.key[half:])
	clear(lf.item[half:])
	rf.n, lf.n = leafCap-half, half
	for _, it := range rf.item[:rf.n] {
		t.where[it] = r
	}
	dst, dl := lf, l
	if !driver.Before(a, i, rf.key[0], rf.item[0]) {
		dst, dl = rf, r
	}
	dst.insertAt(dst.position(a, i), a, i)
	t.where[i] = dl
	lf.total, rf.total = leafSum(&lf.key), leafSum(&rf.key)
	t.insertChild(l, r, 1)
	return r
}

// insertChild puts node nc right after its sibling c, level levels above
// the leaves, in c's parent, whose entry for c it also updates; it splits
// the parent if it is full, or makes a new root of the two.
func (t *tree) insertChild(c, nc int32, level int) {
	leafKids := level == 1
	cs, ns := t.summary(c, leafKids), t.summary(nc, leafKids)
	p := t.parent(c, leafKids)
	if p == nilNode {
		root := t.newInner()
		nd := &t.inners[root]
		nd.insertEntry(0, c, cs)
		nd.insertEntry(1, nc, ns)
		nd.prefix(0)
		t.setParent(c, leafKids, root)
		t.setParent(nc, leafKids, root)
		t.root = root
		t.height++
		return
	}
	k := t.indexOf(p, c)
	if nd := &t.inners[p]; nd.n < innerCap {
		nd.put(k, cs)
		nd.insertEntry(k+1, nc, ns)
		nd.prefix(k)
		t.setParent(nc, leafKids, p)
		return
	}
	q := t.newInner() // may move the inner nodes: take pointers after it
	nd, qd := &t.inners[p], &t.inners[q]
	nd.put(k, cs)
	const half = innerCap / 2
	nd.moveTail(half, qd)
	dst, dv, at := nd, p, k+1
	if at > half {
		dst, dv, at = qd, q, at-half
	}
	dst.insertEntry(at, nc, ns)
	t.setParent(nc, leafKids, dv)
	nd.prefix(min(k, int(nd.n)-1))
	qd.prefix(0)
	t.adopt(q, 0, leafKids)
	t.insertChild(p, q, level+1)
}
