package segtree

import (
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
	c.core.Init(&c.t)
	return c
}

// Node is one entry of a tree's canonical serialization.
type Node struct {
	Slot  int32   // the slot of an internal node, −1 for a leaf
	Crit  int     // the critical bit of an internal node
	Count int     // items in the subtree
	Sum   float64 // key-sum of the subtree
	Item  int32   // the item of a leaf, −1 for an internal node
}

// Serialize lists the trie in pre-order.
func (s *Sampler) Serialize() []Node {
	t := &s.t
	var out []Node
	var walk func(ref int32)
	walk = func(ref int32) {
		if ref == nilRef {
			return
		}
		if ref < 0 {
			out = append(out, Node{Slot: -1, Count: 1, Sum: t.nodes[^ref].key, Item: ^ref})
			return
		}
		nd := &t.nodes[ref]
		out = append(out, Node{Slot: ref, Crit: int(nd.crit), Count: int(t.count(ref)), Sum: t.total(ref), Item: -1})
		walk(nd.child[0])
		walk(nd.child[1])
	}
	walk(t.root)
	return out
}
