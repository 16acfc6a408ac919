package samplertest

import (
	"fmt"
	"math"
	"math/big"
	"math/bits"
	"math/rand/v2"

	"github.com/reweighted/reweighted"
)

// treeBug names the ways the sum trees of prioritised experience replay
// break, each planted in sumTree so that the kit can be shown to catch it.
type treeBug int

const (
	// sound: float64 sums, each parent recomputed from its children, and a
	// find that never enters a subtree of sum 0.
	sound treeBug = iota
	// float32Sums: the sums are stored in float32.
	float32Sums
	// deltaSums: a Set adds the change to the leaf and every ancestor
	// instead of recomputing them, so sums drift.
	deltaSums
	// zeroLeaf: the find goes left when the rest of u·S is at most the
	// left sum, not below it: at u = 0, or where the rest is exactly 0,
	// it returns a weight-0 item that begins a subtree.
	zeroLeaf
	// paddingLeaf: the find enters the right subtree whenever the rest of
	// u·S reaches the left sum, even when the right one is 0, on a tree
	// padded to a power of two: where u·S rounds up to S (subnormal
	// sums), it returns padding leaves, indices n and above.
	paddingLeaf
	// heapOrder: the n leaves at n + i of a heap of 2n nodes, n not rounded
	// up to a power of two: the sums are right but, for such n, the leaves
	// lie on two levels and the descent visits them out of index order.
	heapOrder
)

var bugNames = map[treeBug]string{
	sound: "sound", float32Sums: "float32 sums", deltaSums: "sums by deltas",
	zeroLeaf: "find reaches weight-0 leaves", paddingLeaf: "find reaches padding leaves",
	heapOrder: "leaves at n + i, out of order",
}

// sumTree is the array sum tree of prioritised replay: node 1 the root,
// node p's children 2p and 2p + 1, item i at leaf size + i. It keeps the
// exact sum of its weights as an integer of units of 2^-1074 for the
// MaxSum check and ErrEmpty, so that the bug planted is the only one.
type sumTree struct {
	bug   treeBug
	over  float64 // when above 0, the leaves of odd items hold their weight times over
	n     int
	size  int // leaves: n for heapOrder, else n rounded up to a power of two
	keys  []float64
	node  []float64
	exact big.Int
}

var maxSumUnits = units(new(big.Int), reweighted.MaxSum)

func newSumTree(n int, bug treeBug) *sumTree {
	size := 1
	if n > 1 {
		size = 1 << bits.Len(uint(n-1))
	}
	if bug == heapOrder {
		size = max(n, 1)
	}
	return &sumTree{bug: bug, n: n, size: size, keys: make([]float64, n), node: make([]float64, 2*size)}
}

func (s *sumTree) Len() int          { return s.n }
func (s *sumTree) Key(i int) float64 { return s.keys[i] }

func (s *sumTree) Set(i int, a float64) error {
	if s.n == 0 {
		return reweighted.ErrEmpty
	}
	if i < 0 || i >= s.n {
		return fmt.Errorf("%w: %d", reweighted.ErrIndex, i)
	}
	if math.IsNaN(a) || math.IsInf(a, 0) || a < 0 {
		return fmt.Errorf("%w: %v", reweighted.ErrKey, a)
	}
	a += 0 // −0 + 0 = +0
	var x, y big.Int
	x.Sub(&s.exact, units(&y, s.keys[i]))
	x.Add(&x, units(&y, a))
	if x.Cmp(maxSumUnits) > 0 {
		return fmt.Errorf("%w: the sum would pass MaxSum", reweighted.ErrKey)
	}
	s.exact.Set(&x)
	p := s.size + i
	switch s.bug {
	case deltaSums:
		d := a - s.keys[i]
		for ; p >= 1; p /= 2 {
			s.node[p] += d
		}
	case float32Sums:
		s.node[p] = float64(float32(a))
		for p /= 2; p >= 1; p /= 2 {
			s.node[p] = float64(float32(s.node[2*p] + s.node[2*p+1]))
		}
	default:
		s.node[p] = a
		if s.over > 0 && i%2 == 1 {
			s.node[p] = a * s.over
		}
		for p /= 2; p >= 1; p /= 2 {
			s.node[p] = s.node[2*p] + s.node[2*p+1]
		}
	}
	s.keys[i] = a
	return nil
}

func (s *sumTree) Total() (float64, error) {
	if s.exact.Sign() == 0 {
		return 0, reweighted.ErrEmpty
	}
	return s.node[1], nil
}

func (s *sumTree) Find(u float64) (int, error) {
	if s.exact.Sign() == 0 {
		return 0, reweighted.ErrEmpty
	}
	if !(u >= 0 && u < 1) {
		return 0, fmt.Errorf("%w: %v", reweighted.ErrUniform, u)
	}
	guard := s.bug != zeroLeaf && s.bug != paddingLeaf
	// A sum below 2^-969 is scaled by 2^600 (exactly): u·S would round
	// to the grid of subnormals, a step of a whole unit of a weight. The
	// tree with padding leaves reachable lacks it, as real trees do.
	scale := 1.0
	if s.node[1] < 0x1p-969 && s.bug != paddingLeaf {
		scale = 0x1p600
	}
	x, p := u*(s.node[1]*scale), 1
	for p < s.size {
		l := s.node[2*p] * scale
		switch {
		case x < l, s.bug == zeroLeaf && x == l:
			p = 2 * p
		case guard && s.node[2*p+1] == 0:
			p = 2 * p // u·S rounded up to the sum: stay on this side
		default:
			x -= l
			p = 2*p + 1
		}
	}
	return p - s.size, nil
}

func (s *sumTree) Draw(src rand.Source) (int, error) {
	return s.Find(float64(src.Uint64()>>11) * 0x1p-53)
}

// drawOnly hides a sampler's Find.
type drawOnly struct{ *sumTree }

func (drawOnly) Find() {}

// findOnly hides a sampler's Draw.
type findOnly struct{ *sumTree }

func (findOnly) Draw() {}

// neither hides both.
type neither struct{ *sumTree }

func (neither) Find() {}
func (neither) Draw() {}

var (
	_ reweighted.WeightedFinder = (*sumTree)(nil)
	_ reweighted.WeightedDrawer = (*sumTree)(nil)
	_ reweighted.WeightedDrawer = drawOnly{}
	_ reweighted.WeightedFinder = findOnly{}
)
