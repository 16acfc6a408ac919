package srg

import (
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
// of 1 allocate nothing in epochs 35 to 39, and batches of 128 at most
// once in ten epochs from epoch 70 to 119 (4 times, measured, where the
// first epoch allocates some 250 times).
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

	if raceEnabled {
		return // levels' batches take scratch memory from a sync.Pool
	}
	opt, iters := newEpochOptimizer(t, p, s, Options{Method: SRG})
	runEpoch(t, opt, 19*iters)
	require.LessOrEqual(t, epochAllocs(t, opt, iters, 50), 5, "levels, batch 128, epochs 70 to 119")
}
