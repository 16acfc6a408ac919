package btree

// Clone returns a deep copy of the sampler, for comparing states.
func (s *Sampler) Clone() *Sampler {
	c := &Sampler{t: s.t}
	c.t.leaves = append([]leaf(nil), s.t.leaves...)
	c.t.inners = append([]inner(nil), s.t.inners...)
	c.t.where = append([]int32(nil), s.t.where...)
	c.core.Init(&c.t)
	return c
}

// Height returns the number of inner levels above the leaves.
func (s *Sampler) Height() int { return s.t.height }

// Bytes returns the bytes the tree holds: its node slices at their
// capacity and the item → leaf map.
func (s *Sampler) Bytes() int { return s.t.bytes() }

// Fill returns the mean number of items per leaf in use.
func (s *Sampler) Fill() float64 {
	return float64(s.Len()) / float64(s.t.leavesInUse())
}

// LeafCap is the number of slots of a leaf.
const LeafCap = leafCap
