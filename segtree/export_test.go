package segtree

import (
	"github.com/reweighted/reweighted/driver"
	"slices"
	"unsafe"
)

// BytesPerItem is the memory of a Tree per item.
const BytesPerItem = bytesPerItem

// Depth returns the largest number of internal nodes on a root-to-leaf path.
func (s *Sampler) Depth() int { return s.t.depth(s.t.root) }

func (t *trie) depth(ref int32) int {
	if ref < 0 {
		return 0
	}
	nd := &t.nodes[ref]
	return 1 + max(t.depth(nd.child[0]), t.depth(nd.child[1]))
}

// NodeSize is the size of one slot.
const NodeSize = unsafe.Sizeof(node{})

// Clone returns a deep copy of s.
func (s *Sampler) Clone() *Sampler {
	c := &Sampler{t: s.t}
	c.t.nodes = slices.Clone(s.t.nodes)
	c.Driver = driver.New(&c.t)
	return c
}
