// Package bench holds the workloads that compare the sampler backends with
// each other and with gonum's stat/sampleuv.Weighted: one SRG step (Sample
// at ε = 1/(2n), then Set of the drawn item), the same at ε = 0, Set alone
// and Sample alone. The benchmarks of this package run them with
// sub-benchmarks named impl=X/n=N, so that
//
//	go test ./bench -bench . -count 10 > new.txt
//	benchstat -col /impl new.txt
//
// lines the backends up; cmd/srgreport runs the same workloads through
// testing.Benchmark to draw its scaling table and figure.
package bench

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"

	"github.com/reweighted/reweighted"
	"github.com/reweighted/reweighted/btree"
	"github.com/reweighted/reweighted/naive"
	"github.com/reweighted/reweighted/ost"
	"github.com/reweighted/reweighted/segtree"
	"gonum.org/v1/gonum/stat/sampleuv"
)

// Impl is one sampler under benchmark.
type Impl struct {
	Name string
	// MaxN is the largest n worth benchmarking (naive's Set is O(n)).
	MaxN int
	// New makes a sampler of n items; nil for gonum's Weighted, which has no
	// lower bound ε and so runs only the ε = 0 step.
	New func(n int) reweighted.Sampler
	// SortedFill gives the items their keys in canonical order (item 0 the
	// largest): naive's Set then moves nothing, a constant factor off its
	// O(n²) fill at the largest n. The others get their keys in random
	// order, so that the trees' nodes are scattered in memory as after a
	// long run, not laid out in key order as a sorted fill leaves them.
	SortedFill bool
}

// GonumWeighted names the gonum baseline.
const GonumWeighted = "gonum-weighted"

// Impls lists the implementations, backends first.
var Impls = []Impl{
	{Name: "naive", MaxN: 1 << 16, New: func(n int) reweighted.Sampler { return naive.New(n) }, SortedFill: true},
	{Name: "ost", MaxN: 1 << 20, New: func(n int) reweighted.Sampler { return ost.New(n) }},
	{Name: "segtree", MaxN: 1 << 20, New: func(n int) reweighted.Sampler { return segtree.New(n) }},
	{Name: "btree", MaxN: 1 << 20, New: func(n int) reweighted.Sampler { return btree.New(n) }},
	{Name: GonumWeighted, MaxN: 1 << 20},
}

// Op is a workload.
type Op string

// The workloads.
const (
	Step     Op = "step"      // Sample at ε = 1/(2n), then Set of the drawn item
	StepEps0 Op = "step-eps0" // the same at ε = 0
	SetOnly  Op = "set"       // Set of a uniformly chosen item
	Sample   Op = "sample"    // Sample at ε = 1/(2n)
)

// Ops lists the workloads.
var Ops = []Op{Step, StepEps0, SetOnly, Sample}

// Sizes returns n = 2^lo … 2^hi.
func Sizes(lo, hi int) []int {
	var s []int
	for k := lo; k <= hi; k++ {
		s = append(s, 1<<k)
	}
	return s
}

// Supports reports whether impl runs op at size n.
func (impl Impl) Supports(op Op, n int) bool {
	return n <= impl.MaxN && (impl.New != nil || op == StepEps0)
}

// key draws a key: the absolute value of a standard normal, the shape of
// gradient norms of a well-conditioned problem.
func key(rng *rand.Rand) float64 {
	x := rng.NormFloat64()
	return max(x, -x)
}

// Prepare builds impl at size n with random keys from seed and returns one
// operation of op as a function, and the heap bytes per item that the
// structure took.
func Prepare(impl Impl, op Op, n int, seed uint64) (run func(), bytesPerItem float64, err error) {
	if !impl.Supports(op, n) {
		return nil, 0, fmt.Errorf("bench: %s does not run %s at n = %d", impl.Name, op, n)
	}
	rng := rand.New(rand.NewPCG(seed, uint64(n)))
	keys := make([]float64, n)
	for i := range keys {
		keys[i] = key(rng)
	}
	if impl.SortedFill {
		slices.SortFunc(keys, func(a, b float64) int { return cmp.Compare(b, a) })
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	if impl.New == nil {
		w := sampleuv.NewWeighted(keys, rand.NewPCG(seed, 1))
		runtime.GC()
		runtime.ReadMemStats(&after)
		// Weighted copies the keys; keys must outlive the measurement, or
		// the GC frees them and hides the copy.
		runtime.KeepAlive(keys)
		return func() {
			i, ok := w.Take()
			if !ok {
				panic("bench: gonum Weighted is empty")
			}
			w.Reweight(i, key(rng))
		}, bytes(before, after, n), nil
	}
	s := impl.New(n)
	runtime.GC()
	runtime.ReadMemStats(&after)
	for i, a := range keys {
		if err := s.Set(i, a); err != nil {
			return nil, 0, err
		}
	}
	eps := 1 / float64(2*n)
	switch op {
	case Step, StepEps0:
		if op == StepEps0 {
			eps = 0
		}
		return func() {
			i, _, err := s.Sample(eps, rng.Float64())
			if err != nil {
				panic(err)
			}
			if err := s.Set(i, key(rng)); err != nil {
				panic(err)
			}
		}, bytes(before, after, n), nil
	case SetOnly:
		return func() {
			if err := s.Set(rng.IntN(n), key(rng)); err != nil {
				panic(err)
			}
		}, bytes(before, after, n), nil
	case Sample:
		return func() {
			if _, _, err := s.Sample(eps, rng.Float64()); err != nil {
				panic(err)
			}
		}, bytes(before, after, n), nil
	}
	return nil, 0, fmt.Errorf("bench: unknown op %q", op)
}

func bytes(before, after runtime.MemStats, n int) float64 {
	return float64(after.HeapAlloc-before.HeapAlloc) / float64(max(n, 1))
}
