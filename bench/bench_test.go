package bench_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/reweighted/reweighted"
	"github.com/reweighted/reweighted/bench"
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
func BenchmarkBatchStepKeys(b *testing.B) {
	for _, impl := range bench.Impls {
		for _, l := range []bench.KeyLaw{bench.Exp, bench.LogNormal} {
			for _, n := range []int{1 << 10, 1 << 16, 1 << 20} {
				if n > impl.MaxN {
					continue
				}
				b.Run(fmt.Sprintf("impl=%s/keys=%s/n=%d", impl.Name, l, n), func(b *testing.B) {
					batchStep(b, impl, n, l)
				})
			}
		}
	}
}

// batchStep times the batch steps of impl at size n with keys of law l.
func batchStep(b *testing.B, impl bench.Impl, n int, l bench.KeyLaw) {
	run, err := bench.PrepareBatchOf(impl, n, bench.BatchSize, 1, l)
	require.NoError(b, err)
	b.ReportAllocs()
	// The thread's CPU time as well as the wall time: on a shared machine
	// the wall time also counts the time other processes hold the core.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	c0, cpuOK := threadCPU()
	for b.Loop() {
		run()
	}
	c1, _ := threadCPU()
	items := float64(b.N * bench.BatchSize)
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/items, "ns/item")
	if cpuOK {
		b.ReportMetric(float64((c1-c0).Nanoseconds())/items, "cpu-ns/item")
	}
}

// Every workload runs without error on every implementation that supports
// it, and the backends allocate nothing per operation.
func TestWorkloads(t *testing.T) {
	for _, impl := range bench.Impls {
		for _, op := range append(bench.Ops, bench.SolveCutoff) {
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
			run, err := bench.PrepareBatchOf(impl, 1024, bench.BatchSize, 7, l)
			require.NoError(t, err)
			allocs := testing.AllocsPerRun(20, run)
			if impl.New != nil || impl.Law != nil {
				require.Zero(t, allocs, "%s batch step allocations, %s keys", impl.Name, l)
			}
		}
	}
	_, err = bench.PrepareBatch(bench.Impls[0], 1<<17, bench.BatchSize, 1)
	require.Error(t, err, "naive is not benchmarked past its MaxN")
}

// Prepare and PrepareBatch build the sampler of the Impl they are given,
// of either kind, not gonum's in its place: a constructor that counts its
// calls is called once by each, and its sampler holds the keys.
func TestWorkloadsUseTheirSampler(t *testing.T) {
	for _, impl := range bench.Impls {
		if impl.New == nil && impl.Law == nil {
			continue
		}
		calls := 0
		var made reweighted.Distribution
		spy := bench.Impl{Name: impl.Name, MaxN: impl.MaxN, SortedFill: impl.SortedFill}
		if impl.New != nil {
			spy.New = func(n int) reweighted.Sampler { calls++; s := impl.New(n); made = s; return s }
		} else {
			spy.Law = func(n int) reweighted.Distribution { calls++; made = impl.Law(n); return made }
		}
		for _, op := range append(bench.Ops, bench.SolveCutoff) {
			calls = 0
			_, _, err := bench.Prepare(spy, op, 256, 3)
			require.NoError(t, err)
			require.Equal(t, 1, calls, "%s/%s", impl.Name, op)
			_, lambda, err := made.Solve(0)
			require.NoError(t, err)
			require.Positive(t, lambda, "%s/%s: the keys are in the sampler", impl.Name, op)
		}
		calls = 0
		_, err := bench.PrepareBatch(spy, 256, bench.BatchSize, 3)
		require.NoError(t, err)
		require.Equal(t, 1, calls, "%s batch step", impl.Name)
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
