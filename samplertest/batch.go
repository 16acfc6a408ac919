package samplertest

import (
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/reweighted/reweighted"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// The batch operations of the root package and their optional fast paths,
// which the kit probes: reweighted.DrawBatch over a BatchSampler, and
// reweighted.SetBatch over a BatchSetter.

// uniform is the number DrawBatch documents for one draw of src.
func uniform(src rand.Source) float64 { return float64(src.Uint64()>>11) * 0x1p-53 }

// RefDrawBatch is DrawBatch one draw at a time, as its doc describes it, for
// comparing item for item: each draw is s.Sample(eps, u) of the next u of
// src; without replacement a draw of an item already drawn is rejected, and
// after 64 rejections in a row the next u is mapped by inversion over the
// items left, in index order, of Prob, times 2^1022 if their total is
// below 2^-1022 (uniformly among them if they all have p* = 0).
// Membership is a linear scan: it is the reference, not the fast path.
func RefDrawBatch(s reweighted.Sampler, eps float64, src rand.Source, replace bool, m int) ([]int, []float64, error) {
	items, probs := make([]int, 0, m), make([]float64, 0, m)
	for len(items) < m {
		if replace {
			i, p, err := s.Sample(eps, uniform(src))
			if err != nil {
				return nil, nil, err
			}
			items, probs = append(items, i), append(probs, p)
			continue
		}
		drawn := false
		for range 64 {
			i, p, err := s.Sample(eps, uniform(src))
			if err != nil {
				return nil, nil, err
			}
			if !slices.Contains(items, i) {
				items, probs, drawn = append(items, i), append(probs, p), true
				break
			}
		}
		if drawn {
			continue
		}
		u := uniform(src)
		var left []int
		var ps []float64
		total := 0.0
		for i := range s.Len() {
			if slices.Contains(items, i) {
				continue
			}
			p, err := s.Prob(i, eps)
			if err != nil {
				return nil, nil, err
			}
			left, ps, total = append(left, i), append(ps, p), total+p
		}
		if total == 0 {
			items, probs = append(items, left[int(u*float64(len(left)))]), append(probs, 0)
			continue
		}
		// A total below the least normal float: every p times 2^1022, an
		// exact scaling, so that u·total is not on the grid of subnormals.
		scale := 1.0
		if total < 0x1p-1022 {
			scale = 0x1p1022
		}
		t, acc, item, p := u*(total*scale), 0.0, -1, 0.0
		for k, q := range ps {
			if q > 0 {
				acc += q * scale
				item, p = left[k], q
				if t < acc {
					break
				}
			}
		}
		items, probs = append(items, item), append(probs, p)
	}
	return items, probs, nil
}

// requireSameBatch asserts that DrawBatch on s returns what RefDrawBatch
// returns from a source of the same seed, item for item and p for p (bit
// for bit), and leaves the source where RefDrawBatch leaves it.
func requireSameBatch(t TB, s reweighted.Sampler, eps float64, seed uint64, replace bool, m int) {
	want, wantP, err := RefDrawBatch(s, eps, rand.NewPCG(seed, 1), replace, m)
	require.NoError(t, err)
	src := rand.NewPCG(seed, 1)
	items, probs := make([]int, m), make([]float64, m)
	require.NoError(t, reweighted.DrawBatch(s, eps, src, replace, items, probs))
	require.Equal(t, want, items, "DrawBatch(ε = %v, replace = %v, m = %d): items", eps, replace, m)
	for k := range probs {
		require.Equal(t, math.Float64bits(wantP[k]), math.Float64bits(probs[k]), "probs[%d] = %v, one at a time %v", k, probs[k], wantP[k])
	}
	ref := rand.NewPCG(seed, 1)
	_, _, _ = RefDrawBatch(s, eps, ref, replace, m)
	require.Equal(t, ref.Uint64(), src.Uint64(), "DrawBatch used another count of numbers of src than one at a time")
}

// requireSampleBatch asserts that SampleBatch maps every u as Sample does,
// bit for bit, into separate slices and with probs sharing us, and that bad
// arguments are rejected before anything is written.
func requireSampleBatch(t TB, b reweighted.BatchSampler, s reweighted.Sampler, eps float64, us []float64) {
	m := len(us)
	items, probs := make([]int, m), make([]float64, m)
	require.NoError(t, b.SampleBatch(eps, us, items, probs))
	shared, sharedItems := slices.Clone(us), make([]int, m)
	require.NoError(t, b.SampleBatch(eps, shared, sharedItems, shared))
	for k, u := range us {
		i, p, err := s.Sample(eps, u)
		require.NoError(t, err)
		require.Equal(t, [2]uint64{uint64(i), math.Float64bits(p)}, [2]uint64{uint64(items[k]), math.Float64bits(probs[k])},
			"SampleBatch at ε = %v, u = %v (draw %d): item %d p %v; Sample: item %d p %v", eps, u, k, items[k], probs[k], i, p)
		require.Equal(t, [2]uint64{uint64(i), math.Float64bits(p)}, [2]uint64{uint64(sharedItems[k]), math.Float64bits(shared[k])},
			"SampleBatch with probs = us at ε = %v, u = %v (draw %d)", eps, u, k)
	}
	if m == 0 {
		return
	}
	for _, bad := range []float64{math.NaN(), -1, 1} {
		x := slices.Clone(us)
		x[m-1] = bad
		it, ps := slices.Repeat([]int{-7}, m), slices.Repeat([]float64{-7}, m)
		require.ErrorIs(t, b.SampleBatch(eps, x, it, ps), reweighted.ErrUniform, "SampleBatch with u = %v", bad)
		require.Equal(t, slices.Repeat([]int{-7}, m), it, "a rejected SampleBatch wrote items")
		require.Equal(t, slices.Repeat([]float64{-7}, m), ps, "a rejected SampleBatch wrote probs")
	}
	require.ErrorIs(t, b.SampleBatch(eps, us, items[:m-1], probs), reweighted.ErrBatch)
	require.ErrorIs(t, b.SampleBatch(math.NaN(), us, items, probs), reweighted.ErrEpsilon)
}

// batchUs draws uniform numbers for a batch: spread ones, repeats, the
// edges 0 and 1⁻, and the floats next to the edges of the exact intervals.
func batchUs(t *rapid.T, keys []float64, eps float64) []float64 {
	us := rapid.SliceOfN(U(), 0, 3*len(keys)+4).Draw(t, "us")
	ex := Oracle(keys, eps)
	for _, i := range rapid.SliceOfN(rapid.IntRange(0, len(keys)-1), 0, 6).Draw(t, "edge items") {
		lo, _ := ex.Interval(i, ex.Rho)
		u := ratFloat(lo)
		if u < 1 {
			us = append(us, u, math.Nextafter(u, 0), min(math.Nextafter(u, 1), math.Nextafter(1, 0)))
		}
	}
	return us
}

// Property: DrawBatch returns, item for item and p for p, what Sample one
// draw at a time returns for the same numbers of src (RefDrawBatch), with
// and without replacement, at every kind of bound and on keys with ties,
// zeros and subnormals; and a sampler with the BatchSampler fast path maps
// any list of u, sorted or not, with repeats and the interval edges, as
// Sample does.
func batchDrawProperty(newSampler New) func(*rapid.T) {
	return func(t *rapid.T) {
		n := rapid.OneOf(rapid.IntRange(1, 12), rapid.IntRange(13, 80)).Draw(t, "n")
		keys := Keys(n).Draw(t, "keys")
		s := fill(t, newSampler, keys)
		eps := rapid.OneOf(Eps(n), rapid.SampledFrom(EdgeEps(n))).Draw(t, "eps")
		seed := rapid.Uint64().Draw(t, "seed")
		for _, replace := range []bool{false, true} {
			m := rapid.IntRange(0, n).Draw(t, "m")
			requireSameBatch(t, s, eps, seed, replace, m)
		}
		if b, ok := s.(reweighted.BatchSampler); ok {
			requireSampleBatch(t, b, s, eps, batchUs(t, keys, eps))
		}
	}
}

// testBatchDrawFallback: DrawBatch equals the one-at-a-time draws on the
// path through the explicit conditional distribution: at ε = 0 a key holds
// almost all the mass, and the last items left have p* = 0.
func testBatchDrawFallback(t TB, newSampler New) {
	for _, keys := range [][]float64{
		{1e12, 1, 2, 3, 0, 0},
		{0, 1e240, 0, 5e-324, 1, 0, 0, 1e240},
		{0x1p-1074, 0x1p-1074, 0, 0x1p-1070},
	} {
		s := fill(t, newSampler, keys)
		for seed := range uint64(20) {
			requireSameBatch(t, s, 0, seed, false, len(keys))
			requireSameBatch(t, s, 0, seed, false, len(keys)-1)
		}
	}
}

// batchEntries draws a batch of changes to a sampler holding keys: items
// with repeats, and keys fresh, equal to another item's (ties), equal to
// the item's own (no change), −0, or the next float after another key.
func batchEntries(t *rapid.T, keys []float64) ([]int, []float64) {
	n := len(keys)
	m := rapid.IntRange(0, 2*n+2).Draw(t, "m")
	items, batch := make([]int, m), make([]float64, m)
	for k := range m {
		i := rapid.IntRange(0, n-1).Draw(t, "item")
		items[k] = i
		switch rapid.IntRange(0, 4).Draw(t, "kind") {
		case 0:
			batch[k] = keys[rapid.IntRange(0, n-1).Draw(t, "tie")]
		case 1:
			batch[k] = keys[i]
		case 2:
			batch[k] = math.Copysign(0, -1)
		case 3:
			batch[k] = math.Nextafter(keys[rapid.IntRange(0, n-1).Draw(t, "neighbour")], math.Inf(1))
		default:
			batch[k] = Key(n).Draw(t, "key")
		}
	}
	return items, batch
}

// batchSetter returns the SetBatch of s: its own if it has the fast path,
// else the root package's fallback.
func batchSetter(s reweighted.Sampler) func([]int, []float64) error {
	if b, ok := s.(reweighted.BatchSetter); ok {
		return b.SetBatch
	}
	return func(items []int, keys []float64) error { return reweighted.SetBatch(s, items, keys) }
}

// Property: SetBatch leaves the sampler as Set of each entry in turn does:
// the last key of each item, bit for bit; the exact ρ, λ, p* and draws of
// the exact oracle (Verify); the same item as the sequential sampler for
// every u but within UDist of an edge (Compare); and a sound structure.
func batchSetProperty(newSampler New) func(*rapid.T) {
	return func(t *rapid.T) {
		n := rapid.OneOf(rapid.IntRange(1, 12), rapid.IntRange(13, 120)).Draw(t, "n")
		keys := Keys(n).Draw(t, "keys")
		batched, seq := fill(t, newSampler, keys), fill(t, newSampler, keys)
		for range rapid.IntRange(1, 3).Draw(t, "batches") {
			items, batch := batchEntries(t, keys)
			// Keys from Key(n) keep any n of them within MaxSum.
			require.NoError(t, batchSetter(batched)(items, batch), "SetBatch(%v, %v)", items, batch)
			for k, i := range items {
				require.NoError(t, seq.Set(i, batch[k]))
				keys[i] = batch[k] + 0
			}
			for i, a := range keys {
				require.Equal(t, math.Float64bits(a), math.Float64bits(batched.Key(i)), "Key(%d) after SetBatch", i)
			}
			if c, ok := batched.(Checker); ok {
				require.NoError(t, c.Check(), "after SetBatch")
			}
		}
		eps := Eps(n).Draw(t, "eps")
		us := append([]float64{U().Draw(t, "u")}, EdgeU...)
		require.NoError(t, Verify(batched, keys, eps, us[:1]))
		for _, e := range append(EdgeEps(n), eps) {
			_, err := Compare(batched, seq, keys, e, us)
			require.NoError(t, err, "SetBatch against Set one by one at ε = %v", e)
		}
	}
}

// RejectsBadBatch fills s, a sampler of at least three items, with keys
// summing to less than MaxSum/2, then makes batches that must be rejected
// as a whole, after valid entries that would change keys: lengths that
// differ, an index out of range, a NaN, infinite, negative or too large
// key, and keys each valid whose sum after the batch passes MaxSum (by as
// little as 2^-52 of it, or only in the final total, or from keys all
// small). Each must return its
// sentinel and leave state() as it was: Observe(s) for what a caller sees,
// or a deep copy of a backend's structure in its own tests. Batches whose
// final sum is within MaxSum, though a prefix of them is not, must be
// accepted. A sampler with a Check method must pass it at the end.
func RejectsBadBatch[S any](t require.TestingT, s reweighted.Sampler, state func() S) {
	n := s.Len()
	require.GreaterOrEqual(t, n, 3, "RejectsBadBatch needs three items")
	set := batchSetter(s)
	rng := rand.New(rand.NewPCG(uint64(n), 23))
	for i := range n {
		require.NoError(t, s.Set(i, KeyFromBits(byte(rng.IntN(6)), rng.Uint64(), 4*n)))
	}
	before := state()
	rejected := func(err, want error, format string, args ...any) {
		what := fmt.Sprintf(format, args...)
		require.ErrorIs(t, err, want, what)
		require.Equal(t, before, state(), "%s changed the sampler", what)
	}
	good := []int{0, n - 1, 1, 0}
	goodKeys := []float64{7, 0, 3.5, 2}
	rejected(set(good, goodKeys[:3]), reweighted.ErrBatch, "SetBatch of 4 items and 3 keys")
	for _, i := range []int{-1, n, math.MinInt, math.MaxInt} {
		for at := range len(good) + 1 {
			items := slices.Insert(slices.Clone(good), at, i)
			rejected(set(items, slices.Insert(slices.Clone(goodKeys), at, 1)), reweighted.ErrIndex, "SetBatch with item %d at %d", i, at)
		}
	}
	for _, a := range []float64{math.NaN(), math.Inf(1), math.Inf(-1), -1, -math.SmallestNonzeroFloat64,
		math.MaxFloat64, math.Nextafter(reweighted.MaxSum, math.Inf(1))} {
		for at := range len(good) + 1 {
			items := slices.Insert(slices.Clone(good), at, 2)
			rejected(set(items, slices.Insert(slices.Clone(goodKeys), at, a)), reweighted.ErrKey, "SetBatch with key %v at %d", a, at)
		}
	}
	// The rest of the keys sum to S < MaxSum/2; items 0 and 1 take keys
	// whose sum with S passes MaxSum, each alone fitting.
	rest := new(big.Rat)
	for i := 2; i < n; i++ {
		rest.Add(rest, new(big.Rat).SetFloat64(s.Key(i)))
	}
	room, _ := new(big.Rat).Sub(new(big.Rat).SetFloat64(reweighted.MaxSum), rest).Float64()
	half := math.Nextafter(room/2, math.Inf(1)) // 2·half > room, exactly
	for ; ; half = math.Nextafter(half, math.Inf(1)) {
		sum := new(big.Rat).Add(rest, new(big.Rat).SetFloat64(2*half))
		if sum.Cmp(new(big.Rat).SetFloat64(reweighted.MaxSum)) > 0 {
			break
		}
	}
	rejected(set([]int{0, 1}, []float64{half, half}), reweighted.ErrKey, "SetBatch past MaxSum by the final total")
	rejected(set([]int{0, 1, 0}, []float64{0, half, half}), reweighted.ErrKey, "SetBatch past MaxSum after a decrease of the same item")
	rejected(set([]int{1, 0, 1}, []float64{0, half, half}), reweighted.ErrKey, "SetBatch past MaxSum by the last key of a repeated item")
	if c, ok := s.(Checker); ok {
		require.NoError(t, c.Check())
	}
	// Accepted: the final keys fit, though a prefix of the batch does not.
	below := math.Nextafter(room/2, 0)
	require.NoError(t, set([]int{0, 0, 1}, []float64{reweighted.MaxSum, below, below}), "SetBatch whose final keys fit MaxSum")
	require.Equal(t, [2]float64{below, below}, [2]float64{s.Key(0), s.Key(1)})
	require.NoError(t, set([]int{1, 0, 0}, []float64{0, half, 0}), "SetBatch back")
	require.Equal(t, [2]float64{0, 0}, [2]float64{s.Key(0), s.Key(1)})
	if c, ok := s.(Checker); ok {
		require.NoError(t, c.Check())
	}
	// Past MaxSum from keys all small: a check that looks only at the
	// largest key the sampler holds, not at the batch's, would let it by.
	for i := range n {
		require.NoError(t, s.Set(i, 1))
	}
	before = state()
	h := reweighted.MaxSum / 2
	rejected(set([]int{0, 1}, []float64{h, h}), reweighted.ErrKey, "SetBatch past MaxSum from small keys")
	rejected(set([]int{1, 0}, []float64{h, h}), reweighted.ErrKey, "SetBatch past MaxSum from small keys")
}

// testBadBatch: every rejected batch returns its sentinel and changes
// nothing a caller can see.
func testBadBatch(t TB, newSampler New) {
	for _, n := range []int{3, 40} {
		s := newSampler(n)
		RejectsBadBatch(t, s, func() any { return Observe(s) })
	}
}

// testBatchZeroAllocs: DrawBatch of 128 items without and with
// replacement, and SetBatch of 128 keys, allocate nothing once warm.
func testBatchZeroAllocs(t TB, newSampler New) {
	const n, m = 2000, 128
	rng := rand.New(rand.NewPCG(5, 6))
	key := func() float64 { return math.Abs(rng.NormFloat64()) }
	s := newSampler(n)
	for i := range n {
		require.NoError(t, s.Set(i, key()))
	}
	src := rand.NewPCG(7, 8)
	items, probs, keys := make([]int, m), make([]float64, m), make([]float64, m)
	eps := 1 / float64(2*n)
	// DrawBatch and SetBatch take a Distribution: converting the Sampler
	// at each call would fill the runtime's cache of that conversion, and
	// allocate, at a random one of about 1000 calls. Users who hold a
	// Sampler pay that once per call site; the count below is of the
	// steady state.
	var d reweighted.Distribution = s
	// The probes of DrawBatch and SetBatch cache the type once (see
	// probeCalls); the cache is by type: a small sampler fills it.
	small := newSampler(1)
	for range probeCalls {
		_ = reweighted.DrawBatch(small, 0, src, true, items[:1], probs[:1])
		_ = reweighted.SetBatch(small, nil, nil)
	}
	for _, replace := range []bool{false, true} {
		step := func() {
			if err := reweighted.DrawBatch(d, eps, src, replace, items, probs); err != nil {
				panic(err)
			}
			for k := range keys {
				keys[k] = key()
			}
			// The sampler's own SetBatch, or the root package's fallback.
			if err := reweighted.SetBatch(d, items, keys); err != nil {
				panic(err)
			}
		}
		// Updates make the nodes of a tree settle: as many as testZeroAllocs
		// makes before counting.
		for range 4 * n / m {
			step()
		}
		if raceEnabled {
			// The race detector makes sync.Pool drop items at random, and
			// the batches keep their scratch in pools: the steps above
			// still ran, under the detector.
			continue
		}
		require.Zero(t, allocs(200, step), "allocations in 200 DrawBatch (replace = %v) and SetBatch", replace)
	}
}

// batchChecks are the checks of the batch operations, a subset of Run's.
var batchChecks = []string{"BatchDraw", "BatchDrawFallback", "BatchSet", "BadBatch", "BatchZeroAllocs", "StateMachine"}

// RunBatch checks the batch operations of the root package over the
// sampler that newSampler makes: the batch checks of Run and its state
// machine, which has batch actions. For testing the root package's
// fallbacks over a sampler without the fast paths.
func RunBatch(t *testing.T, newSampler New) {
	for _, c := range checks {
		if slices.Contains(batchChecks, c.name) {
			t.Run(c.name, func(t *testing.T) { c.run(t, newSampler) })
		}
	}
}
