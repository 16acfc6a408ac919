package btree_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/reweighted/reweighted/btree"
)

// filled returns a sampler of n items with |N(0,1)| keys, set in random
// order, as bench.Prepare fills it.
func filled(n int, rng *rand.Rand) *btree.Sampler {
	s := btree.New(n)
	for _, i := range rng.Perm(n) {
		x := rng.NormFloat64()
		if err := s.Set(i, max(x, -x)); err != nil {
			panic(err)
		}
	}
	return s
}

// BenchmarkOps times the parts of an SRG step on their own: Solve (one Cut
// descent), Sample at ε = 0 (one SelectSum descent and a Key), Set of a
// random item (Update) and Rank.
func BenchmarkOps(b *testing.B) {
	for _, n := range []int{1 << 10, 1 << 20} {
		rng := rand.New(rand.NewPCG(1, uint64(n)))
		// Fill the tree only for the sub-benchmarks that run.
		var s *btree.Sampler
		get := func() *btree.Sampler {
			if s == nil {
				s = filled(n, rng)
			}
			return s
		}
		eps := 1 / float64(2*n)
		b.Run(fmt.Sprintf("op=solve/n=%d", n), func(b *testing.B) {
			s := get()
			for b.Loop() {
				if _, _, err := s.Solve(eps); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("op=sample0/n=%d", n), func(b *testing.B) {
			s := get()
			for b.Loop() {
				if _, _, err := s.Sample(0, rng.Float64()); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("op=set/n=%d", n), func(b *testing.B) {
			s := get()
			for b.Loop() {
				x := rng.NormFloat64()
				if err := s.Set(rng.IntN(n), max(x, -x)); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("op=key/n=%d", n), func(b *testing.B) {
			s := get()
			for b.Loop() {
				_ = s.Key(rng.IntN(n))
			}
		})
	}
}

// BenchmarkWalk times Walk over half the items in rank order, the walk the
// driver's exact fallback makes; it reports nanoseconds per item.
func BenchmarkWalk(b *testing.B) {
	for _, n := range []int{1 << 16, 1 << 20} {
		rng := rand.New(rand.NewPCG(1, uint64(n)))
		s := filled(n, rng)
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			sum := 0.0
			for b.Loop() {
				s.WalkKeys(1, n/2, func(_ int, a float64) { sum += a })
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n/2), "ns/item")
		})
	}
}

// BenchmarkSteps times SRG steps (Sample at ε = 1/(2n), then Set of the
// drawn item) on a tree that has already run 10·n of them from a random
// fill, and reports the memory the tree then holds per item (node slices
// at their capacity and the item → leaf map) and the mean items per leaf.
func BenchmarkSteps(b *testing.B) {
	for _, n := range []int{1 << 10, 1 << 16} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			rng := rand.New(rand.NewPCG(1, uint64(n)))
			s := filled(n, rng)
			srgSteps(s, 10*n, rng)
			eps := 1 / float64(2*n)
			b.ReportAllocs()
			for b.Loop() {
				i, _, err := s.Sample(eps, rng.Float64())
				if err != nil {
					b.Fatal(err)
				}
				x := rng.NormFloat64()
				if err := s.Set(i, max(x, -x)); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(s.Bytes())/float64(n), "B/item")
			b.ReportMetric(s.Fill(), "items/leaf")
		})
	}
}
