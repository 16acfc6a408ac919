package btree

import "encoding"

// The saved state of a Sampler is that of reweighted.AppendState.
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
