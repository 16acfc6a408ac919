package bench

import (
	"fmt"
	"math/rand/v2"
)

// Floor is a perfectly balanced binary search tree of the size of ost's
// (32-byte nodes, int32 links) that does nothing but descend. It measures
// the memory floor under any tree whose nodes live at the slot of their
// item: a step of ost must make at least two such descents along random
// paths (one to draw an item, one to reinsert it), while gonum's Weighted
// descends an implicit heap whose top levels share cache lines.
type Floor struct {
	nodes []floorNode
	root  int32
}

type floorNode struct {
	key         float64
	left, right int32
	// ost's node also holds a sum, a parent link and a size.
	_ [16]byte
}

// Layouts of a Floor.
const (
	// RandomSlots places node k of the in-order sequence at a random slot,
	// as ost's item-indexed nodes end up after random updates.
	RandomSlots = "random-slots"
	// BFSOrder places the nodes level by level, root first, as an implicit
	// heap does.
	BFSOrder = "bfs-order"
)

// NewFloor builds a tree over the keys n−1, …, 1, 0 (in-order from the
// largest, as in ost) in the given layout, with slots drawn from seed.
func NewFloor(n int, layout string, seed uint64) (*Floor, error) {
	if n < 1 {
		return nil, fmt.Errorf("bench: NewFloor(%d): need at least one node", n)
	}
	f := &Floor{nodes: make([]floorNode, n)}
	slot := make([]int32, n) // in-order position → slot
	switch layout {
	case RandomSlots:
		for i, p := range rand.New(rand.NewPCG(seed, 1)).Perm(n) {
			slot[i] = int32(p)
		}
	case BFSOrder:
		// Breadth-first numbering of the midpoint-split tree.
		type span struct{ lo, hi int }
		q := []span{{0, n}}
		for next := int32(0); len(q) > 0; q = q[1:] {
			s := q[0]
			if s.lo >= s.hi {
				continue
			}
			mid := s.lo + (s.hi-s.lo)/2
			slot[mid] = next
			next++
			q = append(q, span{s.lo, mid}, span{mid + 1, s.hi})
		}
	default:
		return nil, fmt.Errorf("bench: NewFloor: unknown layout %q", layout)
	}
	var build func(lo, hi int) int32
	build = func(lo, hi int) int32 {
		if lo >= hi {
			return -1
		}
		mid := lo + (hi-lo)/2
		v := &f.nodes[slot[mid]]
		v.key = float64(n - 1 - mid)
		v.left = build(lo, mid)
		v.right = build(mid+1, hi)
		return slot[mid]
	}
	f.root = build(0, n)
	return f, nil
}

// Count returns the number of keys greater than or equal to x, found by
// one root-to-leaf descent whose every step depends on the node before.
func (f *Floor) Count(x float64) int {
	c := 0
	for v := f.root; v >= 0; {
		nd := &f.nodes[v]
		if nd.key >= x {
			// The keys are n−1 … 0, so n − key of them are ≥ key; the
			// descent passes the smallest key ≥ x.
			c = len(f.nodes) - int(nd.key) // keys only shrink to the right
			v = nd.right
		} else {
			v = nd.left
		}
	}
	return c
}

// FloorImpl names the floor in tables, and TwoDescents its workload.
const (
	FloorImpl   = "floor"
	TwoDescents = "two-descents"
)

// PrepareFloor builds a Floor of n nodes at random slots and returns one
// TwoDescents operation: two descents to random keys, the least that a step
// of ost does (draw an item, reinsert it).
func PrepareFloor(n int, seed uint64) (run func(), err error) {
	f, err := NewFloor(n, RandomSlots, seed)
	if err != nil {
		return nil, err
	}
	rng := rand.New(rand.NewPCG(seed, uint64(n)))
	sink := 0
	return func() {
		sink += f.Count(rng.Float64()*float64(n)) + f.Count(rng.Float64()*float64(n))
	}, nil
}
