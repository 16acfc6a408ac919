package ost

import (
	"encoding"
	"fmt"
	"math/bits"

	"github.com/reweighted/reweighted"
)

// The saved state of a Sampler is that of reweighted.AppendState, with
// its shape.
var (
	_ encoding.BinaryMarshaler   = (*Sampler)(nil)
	_ encoding.BinaryAppender    = (*Sampler)(nil)
	_ encoding.BinaryUnmarshaler = (*Sampler)(nil)
)

// Clone returns an independent copy of s, in O(n) copies of its nodes: a
// write to one never shows in the other, and each may be used from its own
// goroutine.
func (s *Sampler) Clone() *Sampler {
	c := &Sampler{t: tree{nodes: append([]node(nil), s.t.nodes...), root: s.t.root}}
	c.Driver = s.Driver.Rebind(&c.t)
	return c
}

// Resize makes the index one of n items, all keys 0, for UnmarshalBinary.
func (t *tree) Resize(n int) { *t = New(n).t }

// shapeTag names the extension of a saved state that holds the shape of
// an ost tree.
const shapeTag = "OST1"

// The shape, the extension an ost sampler writes under its tag, is
// specified byte by byte beside the saved state itself, in the module's
// docs/sampler.md: three bits per node in preorder (a left child, a right
// child, red), packed from the low bit of each byte up, the last byte's
// unused bits 0. The items take the nodes in canonical order, which the
// keys give, so the bits and the keys decide every link, colour, size and
// sum: a restored tree adds its sums as the saved one did.

// ShapeSize returns the length of the shape's extension.
func (t *tree) ShapeSize() int { return len(shapeTag) + (3*len(t.nodes)+7)/8 }

// AppendShape appends the shape's extension to b.
func (t *tree) AppendShape(b []byte) []byte {
	b = append(b, shapeTag...)
	w := bitWriter{b: b}
	t.appendNode(&w, t.root)
	return w.b
}

// bitWriter appends bits to b, from the low bit of each byte up.
type bitWriter struct {
	b   []byte
	bit uint // bits written to the last byte, 0 to 7
}

func (w *bitWriter) put(x bool) {
	if w.bit == 0 {
		w.b = append(w.b, 0)
	}
	if x {
		w.b[len(w.b)-1] |= 1 << w.bit
	}
	w.bit = (w.bit + 1) % 8
}

func (t *tree) appendNode(w *bitWriter, v int32) {
	if v == nilNode {
		return
	}
	n := &t.nodes[v]
	w.put(n.child[0] != nilNode)
	w.put(n.child[1] != nilNode)
	w.put(n.red())
	t.appendNode(w, n.child[0])
	t.appendNode(w, n.child[1])
}

// RestoreShape replaces the tree by one over keys in the shape ext holds,
// if ext is an ost shape, in O(n log n): the sort of Build, then O(n).
func (t *tree) RestoreShape(keys []float64, ext []byte) (bool, error) {
	if len(ext) < len(shapeTag) || string(ext[:len(shapeTag)]) != shapeTag {
		return false, nil
	}
	shape := ext[len(shapeTag):]
	n := len(keys)
	if want := (3*n + 7) / 8; len(shape) != want {
		return true, fmt.Errorf("%w: an ost shape of %d bytes for %d items, want %d", reweighted.ErrFormat, len(shape), n, want)
	}
	r := shapeReader{
		t:     tree{nodes: make([]node, n), root: nilNode},
		shape: shape,
		order: canonical(keys),
		// A red-black tree of n nodes is at most 2·log2(n + 1) deep; Check
		// refuses any deeper one, and the bound keeps the recursion short.
		maxDepth: 2 * bits.Len(uint(n+1)),
	}
	for i, a := range keys {
		r.t.nodes[i] = node{key: a, child: [2]int32{nilNode, nilNode}, parent: nilNode}
	}
	if n > 0 {
		root, err := r.node(nilNode, 0)
		if err != nil {
			return true, err
		}
		r.t.root = root
	}
	if r.next != n {
		return true, fmt.Errorf("%w: an ost shape of %d nodes for %d items", reweighted.ErrFormat, r.next, n)
	}
	if used := 3 * n % 8; used != 0 && shape[len(shape)-1]>>used != 0 {
		return true, fmt.Errorf("%w: an ost shape with bits set past its last node", reweighted.ErrFormat)
	}
	if err := r.t.Check(); err != nil {
		return true, fmt.Errorf("%w: an ost shape that breaks the tree: %v", reweighted.ErrFormat, err)
	}
	*t = r.t
	return true, nil
}

// shapeReader builds a tree from a shape's bits.
type shapeReader struct {
	t        tree
	shape    []byte
	order    []int32 // the items in canonical order
	bit      int     // bits read
	next     int     // nodes given an item: the rank of the next, from 0
	maxDepth int
}

func (r *shapeReader) get() bool {
	x := r.shape[r.bit/8]>>(r.bit%8)&1 != 0
	r.bit++
	return x
}

// node reads the subtree whose root's bits come next, at the given depth
// under parent, gives its nodes the next items in canonical order, and
// returns its root.
func (r *shapeReader) node(parent int32, depth int) (int32, error) {
	if depth > r.maxDepth {
		return nilNode, fmt.Errorf("%w: an ost shape deeper than a red-black tree of %d nodes", reweighted.ErrFormat, len(r.order))
	}
	if r.bit+3 > 8*len(r.shape) || r.next >= len(r.order) {
		return nilNode, fmt.Errorf("%w: an ost shape of more nodes than the %d items", reweighted.ErrFormat, len(r.order))
	}
	left, right, red := r.get(), r.get(), r.get()
	// The node's item is the next in canonical order once its left subtree
	// has taken the ones before.
	var kids [2]int32
	var err error
	if left {
		// Its parent is the node's item, not known yet: set below.
		if kids[0], err = r.node(nilNode, depth+1); err != nil {
			return nilNode, err
		}
	} else {
		kids[0] = nilNode
	}
	if r.next >= len(r.order) {
		return nilNode, fmt.Errorf("%w: an ost shape of more nodes than the %d items", reweighted.ErrFormat, len(r.order))
	}
	v := r.order[r.next]
	r.next++
	kids[1] = nilNode
	if right {
		if kids[1], err = r.node(v, depth+1); err != nil {
			return nilNode, err
		}
	}
	nd := &r.t.nodes[v]
	nd.child, nd.parent = kids, parent
	nd.setRed(red)
	if kids[0] != nilNode {
		r.t.nodes[kids[0]].parent = v
	}
	r.t.fix(v)
	return v, nil
}
