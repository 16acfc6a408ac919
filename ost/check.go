package ost

import (
	"fmt"
	"math"
	"unsafe"

	"github.com/reweighted/reweighted/driver"
)

// bytesPerItem is the memory the tree holds for each item.
func bytesPerItem() int { return int(unsafe.Sizeof(node{})) }

// check verifies every invariant of the tree from scratch and returns an
// error naming the first broken one and its node: the red-black properties,
// parent links, canonical in-order, every size and sum recomputed, and
// every item reachable exactly once. (The driver's Check counts the zero
// keys.)
func (t *tree) Check() error {
	n := len(t.nodes)
	switch {
	case n == 0 && t.root == nilNode:
		return nil
	case t.root < 0 || int(t.root) >= n:
		return fmt.Errorf("root %d out of range with %d items", t.root, n)
	}
	if t.nodes[t.root].parent != nilNode {
		return fmt.Errorf("root %d: parent %d, want nil", t.root, t.nodes[t.root].parent)
	}
	if t.nodes[t.root].red() {
		return fmt.Errorf("root %d is red", t.root)
	}
	c := checker{t: t, seen: make([]bool, n), prev: nilNode}
	if _, err := c.walk(t.root, 0); err != nil {
		return err
	}
	if c.count != n {
		return fmt.Errorf("tree reaches %d nodes, want %d", c.count, n)
	}
	return nil
}

type checker struct {
	t     *tree
	seen  []bool
	prev  int32 // last node visited in order
	count int
}

// walk checks the subtree of v at the given depth in order and returns its
// black height. Once both children pass, their stored sizes and sums are
// those of their subtrees' keys, so checking v's against its children's
// checks them against its keys.
func (c *checker) walk(v int32, depth int) (black int, err error) {
	if v == nilNode {
		return 1, nil
	}
	t := c.t
	if v < 0 || int(v) >= len(t.nodes) {
		return 0, fmt.Errorf("link %d out of range", v)
	}
	if c.seen[v] {
		return 0, fmt.Errorf("node %d reached twice", v)
	}
	if depth > 2*64 {
		return 0, fmt.Errorf("node %d: depth %d, too deep for a red-black tree", v, depth)
	}
	c.seen[v] = true
	nd := &t.nodes[v]
	for _, ch := range nd.child {
		if ch != nilNode && ch >= 0 && int(ch) < len(t.nodes) && t.nodes[ch].parent != v {
			return 0, fmt.Errorf("node %d: child %d has parent %d", v, ch, t.nodes[ch].parent)
		}
		if nd.red() && t.isRed(ch) {
			return 0, fmt.Errorf("red node %d has red child %d", v, ch)
		}
	}
	if k := nd.key; math.IsNaN(k) || math.IsInf(k, 0) || k < 0 || math.Signbit(k) {
		return 0, fmt.Errorf("node %d: invalid key %v", v, k)
	}
	bl, err := c.walk(nd.child[0], depth+1)
	if err != nil {
		return 0, err
	}
	if c.prev != nilNode && !driver.Before(t.nodes[c.prev].key, c.prev, nd.key, v) {
		return 0, fmt.Errorf("in-order: node %d (key %v) after node %d (key %v)", v, nd.key, c.prev, t.nodes[c.prev].key)
	}
	c.prev = v
	c.count++
	br, err := c.walk(nd.child[1], depth+1)
	if err != nil {
		return 0, err
	}
	if bl != br {
		return 0, fmt.Errorf("node %d: black height %d on the left, %d on the right", v, bl, br)
	}
	if want := t.size(nd.child[0]) + 1 + t.size(nd.child[1]); nd.size() != want {
		return 0, fmt.Errorf("node %d: size %d, want %d", v, nd.size(), want)
	}
	if want := t.sum(nd.child[0]) + nd.key + t.sum(nd.child[1]); nd.sum != want {
		return 0, fmt.Errorf("node %d: sum %v, want %v from its keys", v, nd.sum, want)
	}
	if !nd.red() {
		bl++
	}
	return bl, nil
}
