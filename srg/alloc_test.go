package srg

import (
	"flag"
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/reweighted/reweighted/internal/paperdata"
)

// epochAllocs returns the allocations of epochs epochs of opt, run once
// untimed first (testing.AllocsPerRun's warm-up) and then counted.
func epochAllocs(t *testing.T, opt *optimizer, iters, epochs int) int {
	return int(testing.AllocsPerRun(1, func() { runEpoch(t, opt, iters*epochs) }))
}

// SRG's loop allocates nothing once warm, on mushrooms (the embedded set)
// with the problem and schedule of BenchmarkEpoch. With a sampler that
// allocates nothing (the stand-in, which draws uniformly), srg's own work
// allocates nothing, under both protocols, for batches of 128 and of 1
// (reweighted.Step), with Bernoulli updates or not. With levels, the
// default, an epoch allocates only when a group of the sampler outgrows
// every slice its pools hold, ever more rarely as the keys wander: batches
// of 1 allocate nothing in epochs 35 to 39 (batches of 128: see
// TestEpochAllocationsSets).
func TestEpochAllocations(t *testing.T) {
	ds, err := paperdata.Sets[0].Read()
	require.NoError(t, err)
	p, s := epochProblemOf(t, ds)
	n := p.Len()
	build := func(o Options) *optimizer {
		o.Schedule, o.Seed = s, 1
		opt, err := newOptimizer(p, o)
		require.NoError(t, err)
		return opt
	}
	for _, proto := range []Protocol{WithReplacement, WithoutReplacement} {
		for _, m := range []int{1, epochBatch} {
			for _, bern := range []bool{false, true} {
				opt := build(Options{Method: SRG, NewSampler: newUniformStandIn, Batch: m, Protocol: proto, Bernoulli: bern})
				iters := (n + m - 1) / m
				runEpoch(t, opt, iters)
				require.Zero(t, epochAllocs(t, opt, iters, 1), "stand-in, %v, batch %d, Bernoulli %v", proto, m, bern)
			}
		}
	}
	opt := build(Options{Method: SRG, Batch: 1})
	runEpoch(t, opt, 30*n)
	require.Zero(t, epochAllocs(t, opt, n, 5), "levels, batch 1, epochs 35 to 39")
}

// SRG on levels over 200 epochs (batches of 128 without replacement, seed
// 1, the problem of BenchmarkEpoch): after a warm-up of 20 epochs, few
// epochs allocate, each when the number of the sampler's groups of one
// size passes its high, or a large group reaches a size none had.
// Measured (epochs 21–50 / 51–200): mushrooms 1 / 2, phishing 0 / 0, w8a
// 3 / 7, ijcnn1 1 / 1. The bounds leave room for the order of the random
// numbers, which decides when a high is passed, and stay below what pools
// that do not follow their highs give (8 / 6, 2 / 3, 8 / 25, 18 / 13).
// mushrooms runs by default (under a second of CPU); with -long,
// phishing, and w8a and ijcnn1 from -data (about 20 s of CPU for the
// four).
func TestEpochAllocationsSets(t *testing.T) {
	if raceEnabled {
		t.Skip("levels' batches take scratch memory from a sync.Pool")
	}
	long := flag.Lookup("long")
	for _, c := range []struct {
		name   string
		bounds [2]int // most epochs that allocate in epochs 21–50, and 51–200
	}{{"mushrooms", [2]int{4, 4}}, {"phishing", [2]int{2, 2}}, {"w8a", [2]int{5, 12}}, {"ijcnn1", [2]int{5, 6}}} {
		t.Run(c.name, func(t *testing.T) {
			if c.name != "mushrooms" && (long == nil || long.Value.String() != "true") {
				t.Skip("needs -long")
			}
			p, s := epochProblemOf(t, readEpochSet(t, c.name))
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
			opt, iters := newEpochOptimizer(t, p, s, Options{Method: SRG}) // epoch 1
			runEpoch(t, opt, 19*iters)
			var epochs, allocs [2]int
			for e := 21; e <= 200; e++ {
				var before, after runtime.MemStats
				runtime.ReadMemStats(&before)
				runEpoch(t, opt, iters)
				runtime.ReadMemStats(&after)
				if m := int(after.Mallocs - before.Mallocs); m > 0 {
					r := min(e/51, 1)
					epochs[r]++
					allocs[r] += m
				}
			}
			t.Logf("epochs 21–50: %d allocate (%d allocations); epochs 51–200: %d (%d)", epochs[0], allocs[0], epochs[1], allocs[1])
			require.LessOrEqual(t, epochs[0], c.bounds[0], "epochs 21–50 that allocate")
			require.LessOrEqual(t, epochs[1], c.bounds[1], "epochs 51–200 that allocate")
		})
	}
}
