package ost

import "encoding"

// The saved state of a Sampler is that of reweighted.AppendState.
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
