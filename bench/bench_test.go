package bench_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"

	"github.com/reweighted/reweighted"
	"github.com/reweighted/reweighted/bench"
	"github.com/reweighted/reweighted/internal/cputime"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

func benchmark(b *testing.B, op bench.Op) {
	sizes := bench.Sizes(10, 20)
	if op == bench.SampleCutoff {
		sizes = bench.Sizes(6, 14)
	}
	bench.Run(b, op, sizes, bench.Impls...)
}

// BenchmarkStep is one SRG step: Sample at ε = 1/(2n), then Set.
func BenchmarkStep(b *testing.B) { benchmark(b, bench.Step) }

// BenchmarkStepEps0 is one step at ε = 0, where gonum's Weighted competes.
func BenchmarkStepEps0(b *testing.B) { benchmark(b, bench.StepEps0) }

// BenchmarkSet is Set of a random item alone.
func BenchmarkSet(b *testing.B) { benchmark(b, bench.SetOnly) }

// BenchmarkSample is Sample at ε = 1/(2n) alone.
func BenchmarkSample(b *testing.B) { benchmark(b, bench.Sample) }

// BenchmarkSampleCutoff is Sample on keys placed exactly on the cutoff of
// Lemma 1: the adversarial cost of the exact decision.
func BenchmarkSampleCutoff(b *testing.B) { benchmark(b, bench.SampleCutoff) }

// BenchmarkSolveCutoff is Solve at ε = 1/(2n) on keys of which half lie
// within a relative 10^-9 of the cutoff: every backend on the same keys.
func BenchmarkSolveCutoff(b *testing.B) { benchmark(b, bench.SolveCutoff) }

// BenchmarkSingleStep is one SRG step on a batch of one through the
// package's functions: reweighted.Draw at ε = 1/(2n), then Set of the
// drawn item to a new key, with Exp(1) keys and with lognormal keys, at
// n = 2^10, 2^16 and 2^20; gonum's Weighted does Take then Reweight.
func BenchmarkSingleStep(b *testing.B) { singleStep(b, bench.SingleStep) }

// BenchmarkSingleStepEps0 is BenchmarkSingleStep at ε = 0, where the law
// is gonum's: every item in proportion to its key.
func BenchmarkSingleStepEps0(b *testing.B) { singleStep(b, bench.SingleStepEps0) }

// singleStep runs op, a single step, on every implementation with Exp(1)
// and lognormal keys at n = 2^10, 2^16 and 2^20.
func singleStep(b *testing.B, op bench.Op) {
	for _, impl := range bench.Impls {
		for _, l := range []bench.KeyLaw{bench.Exp, bench.LogNormal} {
			for _, n := range []int{1 << 10, 1 << 16, 1 << 20} {
				if !impl.Supports(op, n) {
					continue
				}
				b.Run(fmt.Sprintf("impl=%s/keys=%s/n=%d", impl.Name, l, n), func(b *testing.B) {
					runOf(b, impl, op, n, l)
				})
			}
		}
	}
}

// BenchmarkDrawAdversarial is reweighted.Draw at ε = 1/(2n), each draw
// after an update (the drawn item's key moved by one ulp), on the keys
// that are hardest to decide: at n = 1000, 999 of them within a relative
// 10^-7 of each other just below the cutoff (keys=ties); at n = 2^16,
// half of them within a relative 10^-9 of the cutoff (keys=cutoff,
// SolveCutoff's); and, for reference, on Exp(1) keys at the same n
// (keys=exp). gonum's Weighted, which has no bound ε, does Take then
// Reweight to the key moved so, on the same keys.
func BenchmarkDrawAdversarial(b *testing.B) {
	for _, impl := range bench.Impls {
		for _, c := range []struct {
			op   bench.Op
			name string
			n    int
		}{{bench.DrawTies, "ties", 1000}, {bench.DrawOnly, "exp", 1000}, {bench.DrawCutoff, "cutoff", 1 << 16}, {bench.DrawOnly, "exp", 1 << 16}} {
			if !impl.Supports(c.op, c.n) {
				continue
			}
			b.Run(fmt.Sprintf("impl=%s/keys=%s/n=%d", impl.Name, c.name, c.n), func(b *testing.B) {
				runOf(b, impl, c.op, c.n, bench.Exp)
			})
		}
	}
}

// runOf times op on impl at size n with keys of law l.
func runOf(b *testing.B, impl bench.Impl, op bench.Op, n int, l bench.KeyLaw) {
	run, _, err := bench.PrepareOf(impl, op, n, 1, l)
	require.NoError(b, err)
	b.ReportAllocs()
	for b.Loop() {
		run()
	}
}

// BenchmarkBatchStep is one mini-batch step of SRG: m = 128 draws without
// replacement at ε = 1/(2n), then the m new keys, set as one batch; gonum's
// Weighted does m Take and m Reweight. ns/item is the time per item of the
// batch, comparable with BenchmarkStep's ns/op; cpu-ns/item the same in
// the thread's CPU time (Linux only).
func BenchmarkBatchStep(b *testing.B) {
	for _, impl := range bench.Impls {
		for _, n := range bench.Sizes(10, 20) {
			if n > impl.MaxN {
				continue
			}
			b.Run(fmt.Sprintf("impl=%s/n=%d", impl.Name, n), func(b *testing.B) {
				batchStep(b, impl, n, bench.AbsNormal)
			})
		}
	}
}

// BenchmarkBatchStepKeys is BenchmarkBatchStep with Exp(1) keys and with
// lognormal keys (exp of N(0, 3²)), at n = 2^10, 2^16 and 2^20: the keys
// that spread over few and over many binades.
func BenchmarkBatchStepKeys(b *testing.B) { batchStepKeys(b, false) }

// BenchmarkBatchStepKeysEps0 is BenchmarkBatchStepKeys at ε = 0.
func BenchmarkBatchStepKeysEps0(b *testing.B) { batchStepKeys(b, true) }

// batchStepKeys runs the batch steps, at ε = 0 if eps0 and 1/(2n) if not,
// on every implementation with Exp(1) and lognormal keys at n = 2^10, 2^16
// and 2^20.
func batchStepKeys(b *testing.B, eps0 bool) {
	for _, impl := range bench.Impls {
		for _, l := range []bench.KeyLaw{bench.Exp, bench.LogNormal} {
			for _, n := range []int{1 << 10, 1 << 16, 1 << 20} {
				if n > impl.MaxN {
					continue
				}
				eps := 1 / float64(2*n)
				if eps0 {
					eps = 0
				}
				b.Run(fmt.Sprintf("impl=%s/keys=%s/n=%d", impl.Name, l, n), func(b *testing.B) {
					batchStepAt(b, impl, n, l, eps)
				})
			}
		}
	}
}

// batchStep times the batch steps of impl at size n with keys of law l.
func batchStep(b *testing.B, impl bench.Impl, n int, l bench.KeyLaw) {
	batchStepAt(b, impl, n, l, 1/float64(2*n))
}

// batchStepAt times the batch steps of impl at size n with keys of law l
// at the bound eps.
func batchStepAt(b *testing.B, impl bench.Impl, n int, l bench.KeyLaw, eps float64) {
	run, err := bench.PrepareBatchAt(impl, n, bench.BatchSize, 1, l, eps)
	require.NoError(b, err)
	b.ReportAllocs()
	// The thread's CPU time as well as the wall time: on a shared machine
	// the wall time also counts the time other processes hold the core.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	c0, cpuOK := cputime.Thread()
	for b.Loop() {
		run()
	}
	c1, _ := cputime.Thread()
	items := float64(b.N * bench.BatchSize)
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/items, "ns/item")
	if cpuOK {
		b.ReportMetric(float64((c1-c0).Nanoseconds())/items, "cpu-ns/item")
	}
}

// newOps are the workloads beside Ops that every implementation runs.
var newOps = []bench.Op{bench.SolveCutoff, bench.SingleStep, bench.SingleStepEps0, bench.DrawOnly, bench.DrawTies, bench.DrawCutoff}

// Every workload runs without error on every implementation that supports
// it, and the backends allocate nothing per operation.
func TestWorkloads(t *testing.T) {
	for _, impl := range bench.Impls {
		for _, op := range append(slices.Clone(bench.Ops), newOps...) {
			if !impl.Supports(op, 1024) {
				continue
			}
			run, perItem, err := bench.Prepare(impl, op, 1024, 7)
			require.NoError(t, err)
			require.Positive(t, perItem, "%s/%s bytes per item", impl.Name, op)
			allocs := testing.AllocsPerRun(100, run)
			if impl.New != nil || impl.Law != nil {
				require.Zero(t, allocs, "%s/%s allocations per op", impl.Name, op)
			}
		}
	}
	_, _, err := bench.Prepare(bench.Impls[0], bench.Step, 1<<17, 1)
	require.Error(t, err, "naive is not benchmarked past its MaxN")
	for _, impl := range bench.Impls {
		for _, l := range bench.KeyLaws {
			for _, eps := range []float64{1.0 / 2048, 0} {
				run, err := bench.PrepareBatchAt(impl, 1024, bench.BatchSize, 7, l, eps)
				require.NoError(t, err)
				// levels' groups grow to their steady sizes in the first
				// batches (4 allocations a batch at ε = 0 on |N(0, 1)|
				// keys without this warm-up), which do not recur.
				if impl.Law != nil {
					for range 20 {
						run()
					}
				}
				allocs := testing.AllocsPerRun(20, run)
				if impl.New != nil || impl.Law != nil {
					require.Zero(t, allocs, "%s batch step allocations, %s keys, ε = %g", impl.Name, l, eps)
				}
			}
		}
	}
	_, err = bench.PrepareBatch(bench.Impls[0], 1<<17, bench.BatchSize, 1)
	require.Error(t, err, "naive is not benchmarked past its MaxN")
}

// spyCounts counts the calls a workload makes to its sampler, and keeps
// the bound ε of the last draw.
type spyCounts struct {
	draws, sets int
	eps         float64
}

// spySampler and spyLaw count the draws (Sample, or Draw and DrawBatch)
// and the Sets made on a sampler of each kind.
type spySampler struct {
	reweighted.Sampler
	c *spyCounts
}

func (s spySampler) Sample(eps, u float64) (int, float64, error) {
	s.c.draws++
	s.c.eps = eps
	return s.Sampler.Sample(eps, u)
}

func (s spySampler) Set(i int, a float64) error { s.c.sets++; return s.Sampler.Set(i, a) }

type spyLaw struct {
	reweighted.LawSampler
	c *spyCounts
}

func (s spyLaw) Draw(eps float64, src rand.Source) (int, float64, error) {
	s.c.draws++
	s.c.eps = eps
	return s.LawSampler.Draw(eps, src)
}

func (s spyLaw) DrawBatch(eps float64, src rand.Source, replace bool, items []int, probs []float64) error {
	s.c.draws++
	s.c.eps = eps
	return s.LawSampler.DrawBatch(eps, src, replace, items, probs)
}

func (s spyLaw) Set(i int, a float64) error { s.c.sets++; return s.LawSampler.Set(i, a) }

// Prepare, PrepareOf and PrepareBatch build the sampler of the Impl they
// are given, of either kind, not gonum's in its place, and their workloads
// run on it: a constructor that counts its calls is called once by each,
// its sampler holds the keys, and one run of the workload draws from it
// (every workload but Set and Solve) and sets a key in it (the steps and
// Set) as many times as the workload says.
func TestWorkloadsUseTheirSampler(t *testing.T) {
	type want struct{ draws, sets int }
	wants := map[bench.Op]want{
		bench.Step: {1, 1}, bench.StepEps0: {1, 1}, bench.SetOnly: {0, 1}, bench.Sample: {1, 0},
		bench.SolveCutoff: {0, 0}, bench.SingleStep: {1, 1}, bench.SingleStepEps0: {1, 1}, bench.DrawOnly: {1, 1}, bench.DrawTies: {1, 1},
		bench.DrawCutoff: {1, 1},
	}
	// The bound of the steps' draws at n = 256.
	wantEps := map[bench.Op]float64{
		bench.Step: 1.0 / 512, bench.StepEps0: 0, bench.SingleStep: 1.0 / 512, bench.SingleStepEps0: 0,
	}
	for _, impl := range bench.Impls {
		if impl.New == nil && impl.Law == nil {
			continue
		}
		calls := 0
		var made reweighted.Distribution
		var counts spyCounts
		spy := bench.Impl{Name: impl.Name, MaxN: impl.MaxN, SortedFill: impl.SortedFill}
		if impl.New != nil {
			spy.New = func(n int) reweighted.Sampler {
				calls++
				s := spySampler{impl.New(n), &counts}
				made = s
				return s
			}
		} else {
			spy.Law = func(n int) reweighted.Distribution {
				calls++
				made = spyLaw{impl.Law(n).(reweighted.LawSampler), &counts}
				return made
			}
		}
		for _, op := range append(slices.Clone(bench.Ops), newOps...) {
			w, ok := wants[op]
			require.True(t, ok, "the test knows %s", op)
			calls = 0
			run, _, err := bench.PrepareOf(spy, op, 256, 3, bench.Exp)
			require.NoError(t, err)
			require.Equal(t, 1, calls, "%s/%s", impl.Name, op)
			_, lambda, err := made.Solve(0)
			require.NoError(t, err)
			require.Positive(t, lambda, "%s/%s: the keys are in the sampler", impl.Name, op)
			counts = spyCounts{}
			run()
			require.Equal(t, w, want{counts.draws, counts.sets}, "%s/%s: draws and Sets of one run", impl.Name, op)
			if eps, ok := wantEps[op]; ok {
				require.Equal(t, eps, counts.eps, "%s/%s: the draws' bound", impl.Name, op)
			}
		}
		for _, eps := range []float64{1.0 / 512, 0} {
			calls = 0
			run, err := bench.PrepareBatchAt(spy, 256, bench.BatchSize, 3, bench.Exp, eps)
			require.NoError(t, err)
			require.Equal(t, 1, calls, "%s batch step", impl.Name)
			counts = spyCounts{eps: -1}
			run()
			require.Positive(t, counts.draws, "%s batch step draws from the sampler", impl.Name)
			require.Equal(t, eps, counts.eps, "%s batch step: the draws' bound", impl.Name)
		}
	}
}

// BenchmarkDescent is one root-to-leaf descent of a bare balanced tree in
// the layout of ost (nodes at random slots) and of an implicit heap (nodes in
// breadth-first order): the memory floor of the backends' descents.
func BenchmarkDescent(b *testing.B) {
	for _, layout := range []string{bench.RandomSlots, bench.BFSOrder} {
		for _, n := range bench.Sizes(10, 20) {
			b.Run(fmt.Sprintf("impl=%s/n=%d", layout, n), func(b *testing.B) {
				f, err := bench.NewFloor(n, layout, 1)
				require.NoError(b, err)
				rng := rand.New(rand.NewPCG(2, uint64(n)))
				c := 0
				for b.Loop() {
					c += f.Count(rng.Float64() * float64(n))
				}
				require.Positive(b, c)
			})
		}
	}
}

// Property: in both layouts, Count(x) is the number of keys among
// 0, 1, …, n−1 that are ≥ x, counted here by formula.
func TestFloorCounts(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(1, 3000).Draw(t, "n")
		x := rapid.Float64Range(-2, float64(n)+2).Draw(t, "x")
		want := n - min(n, max(0, int(math.Ceil(x))))
		for _, layout := range []string{bench.RandomSlots, bench.BFSOrder} {
			f, err := bench.NewFloor(n, layout, rapid.Uint64().Draw(t, "seed"))
			require.NoError(t, err)
			require.Equal(t, want, f.Count(x), "%s: n=%d x=%v", layout, n, x)
		}
	})
}

func TestFloorRejects(t *testing.T) {
	_, err := bench.NewFloor(0, bench.RandomSlots, 1)
	require.ErrorContains(t, err, "at least one node")
	_, err = bench.NewFloor(8, "spiral", 1)
	require.ErrorContains(t, err, `unknown layout "spiral"`)
}
