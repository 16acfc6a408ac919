package btree

import (
	"fmt"
	"math"

	"github.com/reweighted/reweighted/driver"
)

// Check verifies every invariant of the tree from scratch and returns an
// error naming the first broken one and its node: links in range and each
// node reached once, parent links, all leaves at the same depth, the fill
// factor, canonical order across the leaves, the item → leaf map, and every
// count, sum, prefix sum and separator recomputed from the keys.
func (t *tree) Check() error {
	n := len(t.where)
	if (n == 0) != (t.root == nilNode) {
		return fmt.Errorf("root %d with %d items", t.root, n)
	}
	if n == 0 {
		return nil
	}
	c := checker{
		t:         t,
		seenLeaf:  make([]bool, len(t.leaves)),
		seenInner: make([]bool, len(t.inners)),
		seenItem:  make([]bool, n),
		prevItem:  nilNode,
		prevKey:   math.Inf(1),
	}
	if _, err := c.node(t.root, t.height, nilNode); err != nil {
		return err
	}
	// The items reached are distinct and in range, so reaching n of them
	// reaches each once, and leaf checked each one's entry of where.
	if c.count != n {
		return fmt.Errorf("tree reaches %d items, want %d", c.count, n)
	}
	return nil
}

type checker struct {
	t                   *tree
	seenLeaf, seenInner []bool
	seenItem            []bool
	prevItem            int32 // last item visited in order
	prevKey             float64
	count               int
}

// node checks the subtree of v, h levels above the leaves, whose parent is
// p, and returns its summary recomputed from the keys alone.
func (c *checker) node(v int32, h int, p int32) (summary, error) {
	t := c.t
	if h == 0 {
		return c.leaf(v, p)
	}
	if v < 0 || int(v) >= len(t.inners) {
		return summary{}, fmt.Errorf("link: inner node %d out of range", v)
	}
	if c.seenInner[v] {
		return summary{}, fmt.Errorf("link: inner node %d reached twice", v)
	}
	c.seenInner[v] = true
	nd := &t.inners[v]
	if nd.parent != p {
		return summary{}, fmt.Errorf("parent: inner node %d has parent %d, want %d", v, nd.parent, p)
	}
	lo := int32(minInner)
	if p == nilNode {
		lo = 2
	}
	if nd.n < lo || nd.n > innerCap {
		return summary{}, fmt.Errorf("fill: inner node %d has %d children, want %d to %d", v, nd.n, lo, innerCap)
	}
	var cnt int32
	var psum float64
	for k := range int(nd.n) {
		s, err := c.node(nd.child[k], h-1, v)
		if err != nil {
			return summary{}, err
		}
		cnt += s.cnt
		if nd.cnt[k] != cnt {
			return summary{}, fmt.Errorf("count: inner node %d child %d: prefix count %d, want %d", v, k, nd.cnt[k], cnt)
		}
		if nd.sum[k] != s.sum {
			return summary{}, fmt.Errorf("sum: inner node %d child %d: sum %v, want %v from the keys", v, k, nd.sum[k], s.sum)
		}
		psum += s.sum
		if nd.psum[k] != psum {
			return summary{}, fmt.Errorf("prefix sum: inner node %d child %d: %v, want %v", v, k, nd.psum[k], psum)
		}
		if nd.last[k] != s.last || nd.lastItem[k] != s.lastItem {
			return summary{}, fmt.Errorf("separator: inner node %d child %d: last (%v, %d), want (%v, %d)",
				v, k, nd.last[k], nd.lastItem[k], s.last, s.lastItem)
		}
	}
	k := nd.n - 1
	return summary{cnt, psum, nd.last[k], nd.lastItem[k]}, nil
}

// leaf checks leaf l whose parent is p.
func (c *checker) leaf(l, p int32) (summary, error) {
	t := c.t
	if l < 0 || int(l) >= len(t.leaves) {
		return summary{}, fmt.Errorf("link: leaf %d out of range", l)
	}
	if c.seenLeaf[l] {
		return summary{}, fmt.Errorf("link: leaf %d reached twice", l)
	}
	c.seenLeaf[l] = true
	lf := &t.leaves[l]
	if lf.parent != p {
		return summary{}, fmt.Errorf("parent: leaf %d has parent %d, want %d", l, lf.parent, p)
	}
	lo := int32(minLeaf)
	if p == nilNode {
		lo = 1
	}
	if lf.n < lo || lf.n > leafCap {
		return summary{}, fmt.Errorf("fill: leaf %d has %d items, want %d to %d", l, lf.n, lo, leafCap)
	}
	for j := range int(lf.n) {
		i, a := lf.item[j], lf.key[j]
		if i < 0 || int(i) >= len(t.where) {
			return summary{}, fmt.Errorf("item: leaf %d slot %d holds item %d, out of range", l, j, i)
		}
		if c.seenItem[i] {
			return summary{}, fmt.Errorf("item: item %d held twice (leaf %d slot %d)", i, l, j)
		}
		c.seenItem[i] = true
		if math.IsNaN(a) || math.IsInf(a, 0) || a < 0 || math.Signbit(a) {
			return summary{}, fmt.Errorf("key: item %d has invalid key %v", i, a)
		}
		if c.prevItem != nilNode && !driver.Before(c.prevKey, c.prevItem, a, i) {
			return summary{}, fmt.Errorf("order: item %d (key %v) after item %d (key %v)", i, a, c.prevItem, c.prevKey)
		}
		c.prevItem, c.prevKey = i, a
		if t.where[i] != l {
			return summary{}, fmt.Errorf("where: item %d in leaf %d, mapped to %d", i, l, t.where[i])
		}
		c.count++
	}
	for j := int(lf.n); j < leafCap; j++ {
		if math.Float64bits(lf.key[j]) != 0 {
			return summary{}, fmt.Errorf("key: leaf %d unused slot %d holds key %v, want 0", l, j, lf.key[j])
		}
	}
	sum := leafSum(&lf.key)
	if lf.total != sum {
		return summary{}, fmt.Errorf("sum: leaf %d: total %v, want %v from its keys", l, lf.total, sum)
	}
	k := lf.n - 1
	return summary{lf.n, sum, lf.key[k], lf.item[k]}, nil
}
