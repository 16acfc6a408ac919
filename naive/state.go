package naive

import "encoding"

// The saved state of a Sampler is that of reweighted.AppendState.
var (
	_ encoding.BinaryMarshaler   = (*Sampler)(nil)
	_ encoding.BinaryAppender    = (*Sampler)(nil)
	_ encoding.BinaryUnmarshaler = (*Sampler)(nil)
)

// Clone returns an independent copy of s, in O(n) copies of its arrays:
// a write to one never shows in the other, and each may be used from its
// own goroutine.
func (s *Sampler) Clone() *Sampler {
	c := &Sampler{idx: sorted{
		key:   append([]float64(nil), s.idx.key...),
		rank:  append([]int32(nil), s.idx.rank...),
		order: append([]int32(nil), s.idx.order...),
		hi:    append([]float64(nil), s.idx.hi...),
		lo:    append([]float64(nil), s.idx.lo...),
		sum:   append([]float64(nil), s.idx.sum...),
	}}
	c.Driver = s.Driver.Rebind(&c.idx)
	return c
}

// Resize makes the index one of n items, all keys 0, for UnmarshalBinary.
func (s *sorted) Resize(n int) { *s = New(n).idx }
