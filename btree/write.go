package btree

// Update replaces the key of item i by a. Three cases, cheapest first: the
// item stays in its leaf (a move inside it); it moves to another leaf and
// neither leaf under- or overflows (one walk up from both leaves, shared
// above the nodes where their paths meet); or a removal and an insertion
// that split, borrow and merge nodes as a B+-tree does.
func (t *tree) Update(i int, a float64) {
	it := int32(i)
	from := t.where[i]
	j := t.slot(from, it)
	// The separators may still name item i with its old key; a ≠ old, so
	// they order (a, i) as they would without it.
	to := t.findLeaf(a, it)
	if from == to {
		lf := &t.leaves[from]
		lf.remove(j)
		k := lf.position(a, it)
		lf.insertAt(k, a, it)
		lf.prefix(min(j, k))
		t.fixUp(from)
		return
	}
	if t.leaves[from].n > minLeaf && t.leaves[to].n < leafCap {
		lf := &t.leaves[from]
		lf.remove(j)
		lf.prefix(j)
		lt := &t.leaves[to]
		k := lt.position(a, it)
		lt.insertAt(k, a, it)
		lt.prefix(k)
		t.where[i] = to
		t.fixUp2(from, to)
		return
	}
	t.delete(from, j)
	t.insert(a, it)
}

// findLeaf returns the leaf where item i with key a belongs: at each level
// the first child whose last item does not precede it, or the last child.
func (t *tree) findLeaf(a float64, i int32) int32 {
	v := t.root
	for h := t.height; h > 0; h-- {
		nd := &t.inners[v]
		lo, hi := 0, int(nd.n)-1
		for lo < hi {
			m := int(uint(lo+hi) >> 1)
			if before(nd.last[m], nd.lastItem[m], a, i) {
				lo = m + 1
			} else {
				hi = m
			}
		}
		v = nd.child[lo]
	}
	return v
}

// position returns the slot where item i with key a belongs in the leaf:
// the first whose item it precedes.
func (lf *leaf) position(a float64, i int32) int {
	lo, hi := 0, int(lf.n)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if before(a, i, lf.key[m], lf.item[m]) {
			hi = m
		} else {
			lo = m + 1
		}
	}
	return lo
}

// remove deletes slot j, leaving the prefix sums from j on stale.
func (lf *leaf) remove(j int) {
	n := int(lf.n)
	copy(lf.key[j:n-1], lf.key[j+1:n])
	copy(lf.item[j:n-1], lf.item[j+1:n])
	lf.n--
}

// insertAt puts item i with key a in slot k, leaving the prefix sums from k
// on stale; the leaf has room.
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

// fixUp2 is fixUp for two leaves: the walks go up side by side (the leaves
// are at the same depth) and merge where the paths meet, so the nodes
// above are recomputed once.
func (t *tree) fixUp2(a, b int32) {
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

// delete removes slot j of leaf l, rebalances and fixes the sums.
//
// Each node a split, borrow or merge changes is recomputed from its
// children, bottom up, and so is the parent that gains or loses an entry;
// all such nodes are the leaf's ancestors or their children, so one walk up
// from the surviving leaf makes every entry exact.
func (t *tree) delete(l int32, j int) {
	lf := &t.leaves[l]
	lf.remove(j)
	lf.prefix(j)
	t.fixUp(t.rebalanceLeaf(l))
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
			sf.n--
			lf.insertAt(0, sf.key[sf.n], sf.item[sf.n])
			t.where[lf.item[0]] = l
			lf.prefix(0)
			t.refresh(p, k-1, true)
			return l
		}
	}
	if k+1 < int(nd.n) {
		if s := nd.child[k+1]; t.leaves[s].n > minLeaf {
			sf := &t.leaves[s]
			lf.insertAt(int(lf.n), sf.key[0], sf.item[0])
			t.where[sf.item[0]] = l
			lf.prefix(int(lf.n) - 1)
			sf.remove(0)
			sf.prefix(0)
			t.refresh(p, k, true)
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
	xf.prefix(m)
	t.freeLeafNode(y)
	t.removeChild(p, ky, true)
	t.rebalanceInner(p, 1)
	return x
}

// removeChild drops slot k of inner node v and recomputes it from k − 1.
func (t *tree) removeChild(v int32, k int, leafKids bool) {
	nd := &t.inners[v]
	copy(nd.child[k:nd.n-1], nd.child[k+1:nd.n])
	nd.n--
	t.refresh(v, max(k-1, 0), leafKids)
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
			sd.n--
			c := sd.child[sd.n]
			copy(nd.child[1:nd.n+1], nd.child[:nd.n])
			nd.child[0] = c
			nd.n++
			t.setParent(c, leafKids, v)
			t.refresh(v, 0, leafKids)
			t.refresh(g, k-1, false)
			return
		}
	}
	if k+1 < int(gd.n) {
		if s := gd.child[k+1]; t.inners[s].n > minInner {
			sd := &t.inners[s]
			c := sd.child[0]
			copy(sd.child[:sd.n-1], sd.child[1:sd.n])
			sd.n--
			t.refresh(s, 0, leafKids)
			nd.child[nd.n] = c
			nd.n++
			t.setParent(c, leafKids, v)
			t.refresh(v, int(nd.n)-1, leafKids)
			t.refresh(g, k, false)
			return
		}
	}
	ky := k + 1
	if k > 0 {
		ky = k
	}
	x, y := gd.child[ky-1], gd.child[ky]
	xd, yd := &t.inners[x], &t.inners[y]
	m := int(xd.n)
	copy(xd.child[m:], yd.child[:yd.n])
	xd.n += yd.n
	t.adopt(x, m, leafKids)
	t.refresh(x, m, leafKids)
	t.freeInnerNode(y)
	t.removeChild(g, ky, false)
	t.rebalanceInner(g, level+1)
}

// insert puts item i with key a in its leaf, splitting it and its
// ancestors as needed, and fixes the sums.
func (t *tree) insert(a float64, i int32) {
	l := t.findLeaf(a, i)
	if lf := &t.leaves[l]; lf.n < leafCap {
		k := lf.position(a, i)
		lf.insertAt(k, a, i)
		lf.prefix(k)
		t.where[i] = l
		t.fixUp(l)
		return
	}
	r := t.newLeaf() // may move the leaves: take pointers after it
	lf, rf := &t.leaves[l], &t.leaves[r]
	const half = leafCap / 2
	copy(rf.key[:], lf.key[half:])
	copy(rf.item[:], lf.item[half:])
	rf.n, lf.n = leafCap-half, half
	for _, it := range rf.item[:rf.n] {
		t.where[it] = r
	}
	dst, dl := lf, l
	if !before(a, i, rf.key[0], rf.item[0]) {
		dst, dl = rf, r
	}
	dst.insertAt(dst.position(a, i), a, i)
	t.where[i] = dl
	lf.prefix(0)
	rf.prefix(0)
	t.insertChild(l, r, 1)
	t.fixUp(dl)
}

// insertChild puts node nc right after its sibling c, level levels above
// the leaves, in c's parent, splitting the parent if it is full, or makes
// a new root of the two.
func (t *tree) insertChild(c, nc int32, level int) {
	leafKids := level == 1
	p := t.parent(c, leafKids)
	if p == nilNode {
		root := t.newInner()
		nd := &t.inners[root]
		nd.child[0], nd.child[1] = c, nc
		nd.n = 2
		t.adopt(root, 0, leafKids)
		t.refresh(root, 0, leafKids)
		t.root = root
		t.height++
		return
	}
	k := t.indexOf(p, c)
	if nd := &t.inners[p]; nd.n < innerCap {
		copy(nd.child[k+2:nd.n+1], nd.child[k+1:nd.n])
		nd.child[k+1] = nc
		nd.n++
		t.setParent(nc, leafKids, p)
		t.refresh(p, k, leafKids)
		return
	}
	q := t.newInner() // may move the inner nodes: take pointers after it
	nd, qd := &t.inners[p], &t.inners[q]
	const half = innerCap / 2
	copy(qd.child[:], nd.child[half:])
	qd.n, nd.n = innerCap-half, half
	dst, at := nd, k+1
	if at > half {
		dst, at = qd, at-half
	}
	copy(dst.child[at+1:dst.n+1], dst.child[at:dst.n])
	dst.child[at] = nc
	dst.n++
	t.adopt(p, 0, leafKids)
	t.adopt(q, 0, leafKids)
	t.refresh(p, 0, leafKids)
	t.refresh(q, 0, leafKids)
	t.insertChild(p, q, level+1)
}
