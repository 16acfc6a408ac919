package reweighted_test

import (
	"math/rand/v2"
	"runtime"
	"runtime/debug"
	"testing"

	"github.com/reweighted/reweighted"
	"github.com/reweighted/reweighted/btree"
	"github.com/stretchr/testify/require"
)

// viaSampler is a backend with both fast paths that this test binary
// converts to Sampler only: passed as a Distribution, it carries a method
// table that the runtime builds for the conversion between the two
// interfaces, not one the compiler emits.
type viaSampler struct{ *btree.Sampler }

// Property: Draw, DrawBatch and SetBatch probe the optional methods of a
// Sampler passed as a Distribution with one allocation per probe and
// dynamic type over a whole run (the runtime's cache of that probe taking
// the type), however the Distribution was made: once the caches hold the
// type, the calls allocate nothing. When the probes were made on the
// Distribution itself, the runtime missed its cache at every call for a
// method table built at run time and added the type again and again:
// about fifty allocations in these calls.
func TestProbesCacheOnce(t *testing.T) {
	var s reweighted.Sampler = viaSampler{btree.New(2)}
	var d reweighted.Distribution = s
	require.NoError(t, s.Set(0, 1))
	src := rand.NewPCG(1, 2)
	items, probs := make([]int, 1), make([]float64, 1)
	call := func() {
		if _, _, err := reweighted.Draw(d, 0, src); err != nil {
			panic(err)
		}
		if err := reweighted.DrawBatch(d, 0, src, true, items, probs); err != nil {
			panic(err)
		}
		if err := reweighted.SetBatch(d, nil, nil); err != nil {
			panic(err)
		}
	}
	// One P and no collection: the pooled scratch of SampleBatch, made by
	// the first call, is the one every later call takes.
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	call() // the scratch of SampleBatch
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range 1 << 20 {
		call()
	}
	runtime.ReadMemStats(&after)
	// The runtime caches a type at a probe at a random one of about
	// 1024·(size of the cache) misses, with an allocation: at most one at
	// each of the four probes. The slack of 4 is for the runtime's own
	// goroutines, whose allocations the count includes.
	require.LessOrEqual(t, after.Mallocs-before.Mallocs, uint64(4+4), "allocations in 2^20 Draw, DrawBatch and SetBatch: one per probe")
}
