package segtree

import "unsafe"

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
