package srg

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/reweighted/reweighted"
	all "github.com/reweighted/reweighted/internal/backends"
	"github.com/reweighted/reweighted/internal/cputime"
	"github.com/reweighted/reweighted/libsvm"
	"github.com/reweighted/reweighted/ost"
)

// period is the number of distinct rows of the benchmark problem: rows
// repeat with this period so that n = 2^20, d = 100 needs 13 MB of features
// instead of 1.3 GB. The sampler and the key table have the full size n.
const period = 1 << 14

// periodic repeats the rows of a data set up to n examples.
type periodic struct {
	base *libsvm.Dataset
	n    int
}

func (p periodic) Len() int                       { return p.n }
func (p periodic) Dim() int                       { return p.base.Dim() }
func (p periodic) Row(i int) ([]int32, []float64) { return p.base.Row(i % period) }

// BenchmarkIteration times one iteration (batch 1) of SGD and of SRG on each
// sampler backend (and on ost with the Bernoulli update), on dense synthetic
// least squares. SRG's keys are first
// filled with the gradient norms at x0 (naive: only up to n = 2^16, since its
// O(n) Set makes the fill O(n²); above that it starts from zero keys, and its
// per-iteration cost is O(n) either way).
func BenchmarkIteration(b *testing.B) {
	type backend struct {
		name string
		new  func(n int) reweighted.Distribution
	}
	var backends []backend
	for _, b := range all.Every() {
		backends = append(backends, backend{"srg-" + b.Name, b.Dist})
	}
	for _, d := range []int{10, 100} {
		var base *libsvm.Dataset
		for lg := 14; lg <= 20; lg++ {
			n := 1 << lg
			// Built on first use, so that a -bench filter skips the setup.
			var p *Problem
			var x0 []float64
			setup := func(b *testing.B) {
				if p != nil {
					return
				}
				if base == nil {
					base = libsvm.Synthetic(1, period, d)
				}
				y := make([]float64, n)
				for i := range y {
					y[i] = base.Labels[i%period]
				}
				var err error
				if p, err = NewProblem(periodic{base, n}, y, Squared, 0); err != nil {
					b.Fatal(err)
				}
				rng := rand.New(rand.NewPCG(2, 3))
				x0 = make([]float64, d)
				for j := range x0 {
					x0[j] = rng.NormFloat64()
				}
			}
			size := fmt.Sprintf("n=%d/d=%d", n, d)
			b.Run("impl=sgd/"+size, func(b *testing.B) {
				setup(b)
				benchSteps(b, p, Options{Method: SGD, Schedule: benchSchedule(p), X0: x0}, false)
			})
			for _, be := range backends {
				b.Run("impl="+be.name+"/"+size, func(b *testing.B) {
					setup(b)
					fill := be.name != "srg-naive" || n <= 1<<16
					benchSteps(b, p, Options{Method: SRG, Schedule: benchSchedule(p), X0: x0, NewSampler: be.new}, fill)
				})
			}
			// Algorithm 1's Bernoulli update skips Set with probability
			// 1 − ε/p; at ε = 1/(2n) it updates half the time on average.
			b.Run("impl=srg-ost-bernoulli/"+size, func(b *testing.B) {
				setup(b)
				benchSteps(b, p, Options{Method: SRG, Schedule: benchSchedule(p), X0: x0, Bernoulli: true,
					NewSampler: func(n int) reweighted.Distribution { return ost.New(n) }}, true)
			})
		}
	}
}

// BenchmarkBatch times one iteration on a mini-batch of m = 128 (the
// paper's experiments), without and with replacement, for SGD and for SRG on
// each tree backend, on the synthetic problem of BenchmarkIteration with
// d = 10 and SRG's keys filled at x0. It reports the time per example
// (ns/example, and the thread's cpu-ns/example), which an epoch multiplies
// by n.
func BenchmarkBatch(b *testing.B) {
	const m, d = 128, 10
	base := libsvm.Synthetic(1, period, d)
	for _, lg := range []int{14, 20} {
		n := 1 << lg
		var p *Problem
		var x0 []float64
		setup := func(b *testing.B) {
			if p != nil {
				return
			}
			y := make([]float64, n)
			for i := range y {
				y[i] = base.Labels[i%period]
			}
			var err error
			if p, err = NewProblem(periodic{base, n}, y, Squared, 0); err != nil {
				b.Fatal(err)
			}
			rng := rand.New(rand.NewPCG(2, 3))
			x0 = make([]float64, d)
			for j := range x0 {
				x0[j] = rng.NormFloat64()
			}
		}
		for _, proto := range []Protocol{WithoutReplacement, WithReplacement} {
			size := fmt.Sprintf("protocol=%s/n=%d", [...]string{"with", "without"}[proto], n)
			b.Run("impl=sgd/"+size, func(b *testing.B) {
				setup(b)
				benchBatch(b, p, Options{Method: SGD, Schedule: benchSchedule(p), Batch: m, Protocol: proto, X0: x0})
			})
			for _, be := range all.Every() {
				if be.LinearSet {
					continue
				}
				b.Run("impl=srg-"+be.Name+"/"+size, func(b *testing.B) {
					setup(b)
					benchBatch(b, p, Options{Method: SRG, Schedule: benchSchedule(p), Batch: m, Protocol: proto, X0: x0,
						NewSampler: be.Dist})
				})
			}
		}
	}
}

// benchBatch runs iterations of o (SRG's keys filled at x0) and reports the
// time per example.
func benchBatch(b *testing.B, p *Problem, o Options) {
	benchRun(b, p, o, o.Method == SRG, o.Batch, "example")
}

// benchSchedule is the synthetic experiment's constant schedule.
func benchSchedule(p *Problem) Schedule {
	return Constant{Alpha: 0.5 / p.Lmax(), Eps: 0.5 / float64(p.Len())}
}

func benchSteps(b *testing.B, p *Problem, o Options, fill bool) {
	benchRun(b, p, o, fill, 1, "op")
}

// benchRun times iterations of o, SRG's keys filled at x0 if fill, and
// reports the wall and thread CPU time per unit, per units of an iteration
// (the thread's CPU time stays meaningful on a machine shared with other
// work).
func benchRun(b *testing.B, p *Problem, o Options, fill bool, per int, unit string) {
	opt, err := newOptimizer(p, o)
	if err != nil {
		b.Fatal(err)
	}
	if fill {
		for i, a := range p.GradNorms(o.X0) {
			if err := opt.smp.Set(i, a); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportAllocs()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	c0, ok := cputime.Thread()
	for b.Loop() {
		if err := opt.step(); err != nil {
			b.Fatal(err)
		}
	}
	units := float64(b.N * per)
	if per > 1 {
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/units, "ns/"+unit)
	}
	if c1, ok1 := cputime.Thread(); ok && ok1 {
		b.ReportMetric(float64(c1-c0)/units, "cpu-ns/"+unit)
	}
}
