package btree

// Height returns the number of inner levels above the leaves.
func (s *Sampler) Height() int { return s.t.height }

// Bytes returns the bytes the tree holds: its node slices at their
// capacity and the item → leaf map.
func (s *Sampler) Bytes() int { return s.t.bytes() }

// Fill returns the mean number of items per leaf in use.
func (s *Sampler) Fill() float64 {
	return float64(s.Len()) / float64(s.t.leavesInUse())
}

// LeafCap is the number of slots of a leaf.
const LeafCap = leafCap

// Corrupt breaks one invariant of New(300), a tree of two inner levels,
// for testing that Check reports it.
func (s *Sampler) Corrupt(what string) {
	t := &s.t
	root := &t.inners[t.root]
	mid := &t.inners[root.child[0]] // an inner node whose children are leaves
	l0 := mid.child[0]
	lf := &t.leaves[l0]
	switch what {
	case "order":
		lf.item[0], lf.item[1] = lf.item[1], lf.item[0]
		t.where[lf.item[0]], t.where[lf.item[1]] = l0, l0
	case "count":
		mid.cnt[0]++
	case "sum":
		lf.key[0] = 1 // total and the sums above stay 0
	case "prefix sum":
		mid.psum[1] = 1
	case "separator":
		mid.lastItem[0]++
	case "separator key":
		mid.last[0] = 1
	case "fill":
		// Split leaf 0 into two leaves of which the first is a quarter
		// full: order, counts, sums and links stay right, the fill does not.
		r := t.newLeaf()
		lf, rf := &t.leaves[l0], &t.leaves[r]
		for lf.n > leafCap/4 {
			lf.n--
			rf.insertAt(0, lf.key[lf.n], lf.item[lf.n])
			t.where[lf.item[lf.n]] = r
			lf.key[lf.n], lf.item[lf.n] = 0, 0
		}
		lf.total, rf.total = leafSum(&lf.key), leafSum(&rf.key)
		t.insertChild(l0, r, 1)
		t.fixUp(l0)
	case "parent":
		lf.parent = root.child[1]
	case "where":
		t.where[lf.item[0]] = mid.child[1]
	case "link":
		mid.child[1] = l0
	case "unused slot":
		lf.key[leafCap-1] = 1
	case "item":
		lf.item[0] = int32(len(t.where))
	case "leaf link out of range":
		mid.child[1] = int32(len(t.leaves))
	case "nil leaf link":
		mid.child[1] = nilNode
	case "inner link out of range":
		root.child[1] = int32(len(t.inners))
	case "inner node twice":
		root.child[1] = root.child[0]
	case "inner parent":
		t.inners[root.child[1]].parent = root.child[0]
	case "inner fill":
		root.n = 1
	case "root":
		t.root = nilNode
	case "lost item":
		// Leaf 0 drops its last item, and the counts and separators above
		// follow (every key is 0): only the number of items reached is
		// wrong.
		if lf.n <= minLeaf {
			panic("Corrupt: leaf 0 too small to lose an item")
		}
		lf.n--
		lf.item[lf.n] = 0
		for k := range mid.n {
			mid.cnt[k]--
		}
		mid.lastItem[0] = lf.item[lf.n-1]
		for k := range root.n {
			root.cnt[k]--
		}
	default:
		panic("Corrupt: unknown invariant " + what)
	}
}

// WalkKeys is the index's Walk.
func (s *Sampler) WalkKeys(from, to int, f func(int, float64)) { s.t.Walk(from, to, f) }

// CheckIndex is the tree's own Check, without the driver's count of zeros.
func (s *Sampler) CheckIndex() error { return s.t.Check() }

// SelectSum and SelectSums are the index's.
func (s *Sampler) SelectSum(target, scale float64) (int, int, float64) {
	return s.t.SelectSum(target, scale)
}
func (s *Sampler) SelectSums(targets []float64, scale float64, items, ranks []int, keys []float64) {
	s.t.SelectSums(targets, scale, items, ranks, keys)
}
