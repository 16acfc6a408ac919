package btree

import (
	"encoding"
	"fmt"

	"github.com/reweighted/reweighted"
)

// The saved state of a Sampler is that of reweighted.AppendState, with
// its shape.
var (
	_ encoding.BinaryMarshaler   = (*Sampler)(nil)
	_ encoding.BinaryAppender    = (*Sampler)(nil)
	_ encoding.BinaryUnmarshaler = (*Sampler)(nil)
)

// Clone returns an independent copy of s, in O(n) copies of its nodes,
// with their spare room: a write to one never shows in the other, and each
// may be used from its own goroutine. The copy makes its own working
// memory for batches at its first.
func (s *Sampler) Clone() *Sampler {
	t := &s.t
	c := &Sampler{t: tree{
		leaves:    append(make([]leaf, 0, cap(t.leaves)), t.leaves...),
		inners:    append(make([]inner, 0, cap(t.inners)), t.inners...),
		where:     append([]int32(nil), t.where...),
		root:      t.root,
		height:    t.height,
		freeLeaf:  t.freeLeaf,
		freeInner: t.freeInner,
	}}
	c.Driver = s.Driver.Rebind(&c.t)
	return c
}

// Resize makes the index one of n items, all keys 0, for UnmarshalBinary.
func (t *tree) Resize(n int) { *t = New(n).t }

// shapeTag names the extension of a saved state that holds the shape of
// a btree.
const shapeTag = "BTR1"

// The shape, the extension a btree sampler writes under its tag, is
// specified byte by byte beside the saved state itself, in the module's
// docs/sampler.md: one byte per node, the number of items of each leaf in
// rank order, then level by level up to the root the number of children of
// each inner node in rank order. The items fill the leaves in canonical
// order, which the keys give, so the sizes and the keys decide every
// entry, total and prefix sum: a restored tree adds its sums as the saved
// one did.

// shape is the sizes of a tree's nodes: levels[0] the items of each leaf,
// levels[h] the children of each inner node h levels above the leaves,
// each in rank order.
type shape struct{ levels [][]uint8 }

// levelsOf returns the nodes of the tree level by level, leaves first.
func (t *tree) levelsOf() [][]int32 {
	if t.root == nilNode {
		return nil
	}
	lv := make([][]int32, t.height+1)
	lv[t.height] = []int32{t.root}
	for h := t.height; h > 0; h-- {
		for _, v := range lv[h] {
			nd := &t.inners[v]
			lv[h-1] = append(lv[h-1], nd.child[:nd.n]...)
		}
	}
	return lv
}

// ShapeSize returns the length of the shape's extension.
func (t *tree) ShapeSize() int {
	size := len(shapeTag)
	for _, l := range t.levelsOf() {
		size += len(l)
	}
	return size
}

// AppendShape appends the shape's extension to b.
func (t *tree) AppendShape(b []byte) []byte {
	b = append(b, shapeTag...)
	for h, l := range t.levelsOf() {
		for _, v := range l {
			if h == 0 {
				b = append(b, uint8(t.leaves[v].n))
			} else {
				b = append(b, uint8(t.inners[v].n))
			}
		}
	}
	return b
}

// RestoreShape replaces the tree by one over keys in the shape ext holds,
// if ext is a btree shape, in O(n log n): the sort of Build, then O(n).
func (t *tree) RestoreShape(keys []float64, ext []byte) (bool, error) {
	if len(ext) < len(shapeTag) || string(ext[:len(shapeTag)]) != shapeTag {
		return false, nil
	}
	sh, err := readShape(len(keys), ext[len(shapeTag):])
	if err != nil {
		return true, err
	}
	n := len(keys)
	r := tree{where: make([]int32, n)}
	if n > 0 {
		nodes := 0
		for _, l := range sh.levels[1:] {
			nodes += len(l)
		}
		r.leaves = make([]leaf, 0, len(sh.levels[0]))
		r.inners = make([]inner, 0, nodes)
	}
	r.fill(canonical(keys), keys, &sh)
	if err := r.Check(); err != nil {
		return true, fmt.Errorf("%w: a btree shape that breaks the tree: %v", reweighted.ErrFormat, err)
	}
	*t = r
	return true, nil
}

// readShape reads the sizes of the nodes of a tree of n items, refusing
// sizes that do not add up level by level, leaves of fewer than minLeaf
// items and inner nodes of fewer than minInner children but at the root
// (of 1 item and 2 children at least), and a level that is not the root's
// but holds one node: so the tree holds at most n/minLeaf + 1 leaves, and
// at most as many inner nodes, whatever the bytes.
func readShape(n int, b []byte) (shape, error) {
	var sh shape
	if n == 0 {
		if len(b) != 0 {
			return sh, fmt.Errorf("%w: a btree shape of %d bytes for no items", reweighted.ErrFormat, len(b))
		}
		return sh, nil
	}
	// count is the number of entries the next level up must cover: the
	// items, then the nodes of the level below.
	count, low, low0 := n, minLeaf, 1
	for {
		if len(sh.levels) > maxHeight {
			return sh, fmt.Errorf("%w: a btree shape of more than %d levels", reweighted.ErrFormat, maxHeight+1)
		}
		sum, at := 0, 0
		for sum < count {
			if at == len(b) {
				return sh, fmt.Errorf("%w: a btree shape ends inside level %d", reweighted.ErrFormat, len(sh.levels))
			}
			k := int(b[at])
			at++
			root := at == 1 && k == count // the only node of its level
			if k > leafCap || k < low && !(root && k >= low0) {
				return sh, fmt.Errorf("%w: a btree node of %d entries at level %d", reweighted.ErrFormat, k, len(sh.levels))
			}
			sum += k
		}
		if sum != count {
			return sh, fmt.Errorf("%w: the btree nodes of level %d hold %d entries, want %d", reweighted.ErrFormat, len(sh.levels), sum, count)
		}
		sh.levels = append(sh.levels, b[:at])
		b = b[at:]
		if at == 1 {
			break
		}
		count, low, low0 = at, minInner, 2
	}
	if len(b) != 0 {
		return sh, fmt.Errorf("%w: %d bytes after a btree shape", reweighted.ErrFormat, len(b))
	}
	return sh, nil
}
