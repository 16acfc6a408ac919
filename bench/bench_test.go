package bench_test

import (
	"fmt"
	"testing"

	"github.com/reweighted/reweighted/bench"
	"github.com/stretchr/testify/require"
)

func benchmark(b *testing.B, op bench.Op) {
	for _, impl := range bench.Impls {
		for _, n := range bench.Sizes(10, 20) {
			if !impl.Supports(op, n) {
				continue
			}
			b.Run(fmt.Sprintf("impl=%s/n=%d", impl.Name, n), func(b *testing.B) {
				run, perItem, err := bench.Prepare(impl, op, n, 1)
				require.NoError(b, err)
				b.ReportAllocs()
				for b.Loop() {
					run()
				}
				b.ReportMetric(perItem, "B/item")
			})
		}
	}
}

// BenchmarkStep is one SRG step: Sample at ε = 1/(2n), then Set.
func BenchmarkStep(b *testing.B) { benchmark(b, bench.Step) }

// BenchmarkStepEps0 is one step at ε = 0, where gonum's Weighted competes.
func BenchmarkStepEps0(b *testing.B) { benchmark(b, bench.StepEps0) }

// BenchmarkSet is Set of a random item alone.
func BenchmarkSet(b *testing.B) { benchmark(b, bench.SetOnly) }

// BenchmarkSample is Sample at ε = 1/(2n) alone.
func BenchmarkSample(b *testing.B) { benchmark(b, bench.Sample) }

// Every workload runs without error on every implementation that supports
// it, and the backends allocate nothing per operation.
func TestWorkloads(t *testing.T) {
	for _, impl := range bench.Impls {
		for _, op := range bench.Ops {
			if !impl.Supports(op, 1024) {
				continue
			}
			run, perItem, err := bench.Prepare(impl, op, 1024, 7)
			require.NoError(t, err)
			require.Positive(t, perItem, "%s/%s bytes per item", impl.Name, op)
			allocs := testing.AllocsPerRun(100, run)
			if impl.New != nil {
				require.Zero(t, allocs, "%s/%s allocations per op", impl.Name, op)
			}
		}
	}
	_, _, err := bench.Prepare(bench.Impls[0], bench.Step, 1<<17, 1)
	require.Error(t, err, "naive is not benchmarked past its MaxN")
}
