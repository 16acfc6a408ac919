package fuzz

import (
	"cmp"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/reweighted/reweighted"
	"github.com/reweighted/reweighted/naive"
	"github.com/reweighted/reweighted/samplertest"
)

// randomKey draws a key of every kind the contract names (zeros, ties,
// subnormals, huge keys), small enough that n of them stay below MaxSum.
func randomKey(rng *rand.Rand, n int) float64 {
	return samplertest.KeyFromBits(byte(rng.IntN(6)), rng.Uint64(), n)
}

// randomEps draws a valid bound for n items, edges included.
func randomEps(rng *rand.Rand, n int) float64 {
	return samplertest.EpsFromBits(byte(rng.IntN(6)), rng.Uint64(), n)
}

// run is one history: n items, steps steps, keys drawn by key.
type run struct {
	n, steps int
	key      func(rng *rand.Rand, n int) float64
}

// historyRuns lists the histories of Histories and LawHistories.
func historyRuns(long bool) []run {
	// Rounding everywhere: every sum of these keys rounds.
	floats := func(rng *rand.Rand, n int) float64 { return rng.Float64() }
	// Few distinct keys: long runs of ties, exact sums.
	ties := func(rng *rand.Rand, n int) float64 { return float64(rng.IntN(4)) }
	// A narrow band: items crowd into a few nodes of a tree, which split,
	// and leave others, which merge; and into one group of a sampler that
	// groups keys by exponent and leading bits.
	band := func(rng *rand.Rand, n int) float64 { return 1 + rng.Float64()/1024 }
	// Sizes around the node capacities of the trees (a B+-tree node
	// holds 16; two inner levels start past 256 items), so that nodes
	// split, borrow and merge at every level.
	runs := []run{
		{1, 200, randomKey}, {2, 500, randomKey}, {3, 2000, randomKey}, {5, 2000, randomKey}, {7, 2000, randomKey},
		{17, 3000, randomKey}, {33, 3000, randomKey}, {64, 3000, randomKey}, {150, 3000, randomKey},
		{300, 3000, randomKey}, {1000, 2000, randomKey}, {5000, 2000, randomKey},
		{50, 2000, floats}, {1000, 1000, floats}, {50, 2000, ties}, {1000, 1000, ties}, {300, 3000, band},
	}
	if long {
		return append(runs, run{10_000, 20_000, randomKey}, run{2000, 20_000, randomKey},
			run{10_000, 20_000, floats}, run{10_000, 20_000, ties})
	}
	// The default run: every size and kind of key, a third of the steps.
	for k := range runs {
		runs[k].steps = max(200, runs[k].steps/3)
	}
	return runs
}

// historyStep makes one step of a history on tr and on nv, the naive
// reference, and in keys: a Set, or one time in eight a batch (through
// tr's fast path if it has one, against naive's Set of each entry in turn:
// items repeated, ties, and batches of SRG's size). It returns the last
// item set and its key.
func historyStep(t *testing.T, rng *rand.Rand, r run, tr reweighted.Distribution, nv *naive.Sampler, keys []float64) (int, float64) {
	i, a := rng.IntN(r.n), r.key(rng, r.n)
	if rng.IntN(4) == 0 {
		a = keys[rng.IntN(r.n)] // a tie
	}
	if rng.IntN(8) != 0 {
		require.NoError(t, tr.Set(i, a))
		require.NoError(t, nv.Set(i, a))
		keys[i] = a
		return i, a
	}
	m := 1 + rng.IntN(min(2*r.n, 300))
	items, batch := make([]int, m), make([]float64, m)
	for e := range items {
		items[e], batch[e] = rng.IntN(r.n), r.key(rng, r.n)
		if rng.IntN(4) == 0 {
			batch[e] = keys[rng.IntN(r.n)]
		}
	}
	require.NoError(t, reweighted.SetBatch(tr, items, batch))
	for e, j := range items {
		require.NoError(t, nv.Set(j, batch[e]))
		keys[j] = batch[e]
	}
	return items[m-1], batch[m-1]
}

// Histories runs long seeded histories of Set and SetBatch on a sampler
// that newSampler makes, with every key kind the contract names (zeros,
// ties, subnormals, huge keys, long runs of ties, narrow bands that crowd a
// tree's nodes), at sizes around the node capacities of the module's
// trees, and compares every answer with the naive backend's, which applies
// a batch as a Set per entry (samplertest.Compare): the same ρ (exact in
// both), λ and probabilities, and the same item but where u sits within
// samplertest.UDist of an exact interval's edge. It also checks the sampler
// against the exact oracle (samplertest.Verify) at regular steps and its
// invariants (a Check() error method, if it has one) on the way. Without
// long each history runs a third of its steps (at least 200); with long,
// all of them, and histories of 10^4 items and 2·10^4 steps (minutes).
func Histories(t *testing.T, newSampler func(int) reweighted.Sampler, long bool) {
	for k, r := range historyRuns(long) {
		rng := rand.New(rand.NewPCG(uint64(k), 0x5eed))
		tr, nv := newSampler(r.n), naive.New(r.n)
		keys := make([]float64, r.n)
		disagree, atEdge := 0, 0
		for step := range r.steps {
			i, a := historyStep(t, rng, r, tr, nv, keys)
			require.Equal(t, math.Float64bits(a), math.Float64bits(tr.Key(i)), "Key(%d) after Set", i)
			// Check is O(n): after every step up to 300 items, spaced
			// out above.
			if c, ok := tr.(interface{ Check() error }); ok && (r.n <= 300 || step%37 == 0) {
				require.NoError(t, c.Check(), "n=%d step %d", r.n, step)
			}
			eps, u := randomEps(rng, r.n), rng.Float64()
			// A boundary query sorts the keys and may call Verify: space
			// them out for large n.
			edge := step%max(10, r.n/20) == 9
			if edge {
				eps, u = edgeQuery(rng, keys, tr)
			}
			if step%max(10, r.n/4) == 5 {
				require.NoError(t, samplertest.Verify(tr, keys, eps, []float64{u, rng.Float64()}), "against the oracle, n=%d step %d", r.n, step)
			}
			j := rng.IntN(r.n)
			qa, err := tr.Prob(j, eps)
			require.NoError(t, err)
			qb, err := nv.Prob(j, eps)
			require.NoError(t, err)
			require.InDelta(t, qb, qa, 1e-9*max(qa, qb)+math.SmallestNonzeroFloat64, "Prob(%d, %v), n=%d step %d", j, eps, r.n, step)
			edges, err := samplertest.Compare(tr, nv, keys, eps, []float64{u})
			require.NoError(t, err, "against naive, n=%d step %d", r.n, step)
			if edges > 0 {
				if edge {
					atEdge++
				} else {
					disagree++
				}
			}
		}
		t.Logf("run %d, n=%d: %d steps, %d disagreements at random queries, %d at %d queries on a boundary",
			k, r.n, r.steps, disagree, atEdge, r.steps/max(10, r.n/20))
		// A random u or ε lands within rounding of a boundary with
		// probability about 1e-15: away from the boundary queries, the two
		// backends must agree exactly.
		require.Zero(t, disagree, "n=%d: disagreements away from boundaries", r.n)
	}
}

// LawHistories runs the histories of Histories on a sampler of either kind
// that newDist makes — a law-exact one has no Sample — and compares what
// needs no map from u to an item with the naive backend's: the keys, ρ
// (exact in both), λ and every Prob (Probs, if the sampler has it, bit for
// bit as Prob); at boundary bounds as well as random ones, each random one
// held for about eight steps. At regular steps
// it checks the sampler against the exact oracle, its draws and per-attempt
// law included (samplertest.VerifyLaw), and draws a batch without
// replacement: distinct items, each with p > 0 and the p that Prob returns.
// Its Check, if it has one, runs on the way. long is Histories'.
func LawHistories(t *testing.T, newDist func(int) reweighted.Distribution, long bool) {
	for k, r := range historyRuns(long) {
		rng := rand.New(rand.NewPCG(uint64(k), 0x5eed))
		tr, nv := newDist(r.n), naive.New(r.n)
		keys := make([]float64, r.n)
		src := rand.NewPCG(uint64(k), 0x1a3)
		m := min(r.n, 8)
		items, probs := make([]int, m), make([]float64, m)
		var all []float64
		held := randomEps(rng, r.n)
		for step := range r.steps {
			i, a := historyStep(t, rng, r, tr, nv, keys)
			require.Equal(t, math.Float64bits(a), math.Float64bits(tr.Key(i)), "Key(%d) after Set", i)
			if c, ok := tr.(interface{ Check() error }); ok && (r.n <= 300 || step%37 == 0) {
				require.NoError(t, c.Check(), "n=%d step %d", r.n, step)
			}
			// A bound held for about eight steps at a time, as SRG holds
			// its own: a sampler that keeps its solution from one update
			// to the next is queried after updates it followed.
			if rng.IntN(8) == 0 {
				held = randomEps(rng, r.n)
			}
			eps := held
			if step%max(10, r.n/20) == 9 {
				eps, _ = edgeQuery(rng, keys, tr)
			}
			rho, lambda, err := tr.Solve(eps)
			require.NoError(t, err)
			rhoN, lambdaN, err := nv.Solve(eps)
			require.NoError(t, err)
			require.Equal(t, rhoN, rho, "ρ at ε = %v, n=%d step %d", eps, r.n, step)
			require.InDelta(t, lambdaN, lambda, 2e-9*lambdaN, "λ at ε = %v, n=%d step %d", eps, r.n, step)
			// Every Prob where n is small, spaced out above.
			if r.n <= 64 || step%max(10, r.n/50) == 3 {
				all, err = nv.Probs(eps, all)
				require.NoError(t, err)
				tv := 0.0
				for j, q := range all {
					p, err := tr.Prob(j, eps)
					require.NoError(t, err)
					tv += math.Abs(p - q)
				}
				require.LessOrEqual(t, tv/2, 2*samplertest.TV, "total variation from naive at ε = %v, n=%d step %d", eps, r.n, step)
			}
			if step%max(10, r.n/4) == 5 {
				require.NoError(t, samplertest.VerifyLaw(tr, keys, eps), "against the oracle, n=%d step %d", r.n, step)
				require.NoError(t, reweighted.DrawBatch(tr, eps, src, false, items, probs))
				seen := map[int]bool{}
				for e, j := range items {
					require.False(t, seen[j], "item %d twice in a batch", j)
					seen[j] = true
					p, err := tr.Prob(j, eps)
					require.NoError(t, err)
					require.Equal(t, math.Float64bits(p), math.Float64bits(probs[e]), "p of item %d in a batch", j)
					if p == 0 {
						// Only in DrawBatch's fallback: every item left has p* = 0.
						require.Zero(t, eps)
					}
				}
			}
		}
	}
}

// edgeQuery returns a bound ε at which the predicate of Lemma 1 is tight at
// a random rank, in float arithmetic, and a u on the boundary between two
// items under that ε: the queries where rounding decides.
func edgeQuery(rng *rand.Rand, keys []float64, s reweighted.Distribution) (eps, u float64) {
	n := len(keys)
	sorted := slices.Clone(keys)
	slices.SortFunc(sorted, func(a, b float64) int { return cmp.Compare(b, a) })
	prefix := make([]float64, n+1)
	for r, a := range sorted {
		prefix[r+1] = prefix[r] + a
	}
	r := 1 + rng.IntN(n)
	a := sorted[r-1]
	// a·(1 − (n−r)ε) = ε·S(r) at ε = a/(S(r) + (n−r)a).
	eps = 0
	if d := prefix[r] + float64(n-r)*a; d > 0 {
		eps = min(a/d, 1/float64(n))
	}
	rho, lambda, err := s.Solve(eps)
	if err != nil || lambda == 0 {
		return eps, rng.Float64()
	}
	q := 1 + rng.IntN(rho)
	u = prefix[q] / lambda
	if rng.IntN(2) == 0 {
		u = math.Nextafter(u, 0)
	}
	if !(u >= 0 && u < 1) {
		u = rng.Float64()
	}
	return eps, u
}
