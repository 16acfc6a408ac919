package samplertest

import (
	"flag"
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/reweighted/reweighted"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// StateMachine is the model-based property: random sequences of Set (every
// kind of key, ties, neighbouring floats, keys on the cutoff of Lemma 1,
// keys at MaxSum), rejected calls and queries, against a model that holds
// the keys and decides everything in exact arithmetic. The invariant, after
// every action, is that Key returns the model's keys and, if the sampler
// has a Check() error method, that it passes. Use it with rapid.Check or
// rapid.MakeFuzz.
func StateMachine(newSampler New) func(*rapid.T) { return StateMachineN(newSampler, 48) }

// StateMachineN is StateMachine on up to maxN items, for longer sweeps.
func StateMachineN(newSampler New, maxN int) func(*rapid.T) {
	return func(t *rapid.T) {
		n := rapid.IntRange(1, maxN).Draw(t, "n")
		m := &model{s: newSampler(n), keys: make([]float64, n), eps: Eps(n).Draw(t, "eps")}
		index := rapid.IntRange(0, n-1)
		t.Repeat(map[string]func(*rapid.T){
			"": func(t *rapid.T) {
				for i, a := range m.keys {
					if math.Float64bits(m.s.Key(i)) != math.Float64bits(a) {
						t.Fatalf("Key(%d) = %v, model %v", i, m.s.Key(i), a)
					}
				}
				if c, ok := m.s.(Checker); ok {
					require.NoError(t, c.Check(), "invariant")
				}
			},
			"Set": func(t *rapid.T) {
				m.set(t, index.Draw(t, "i"), Key(n).Draw(t, "a"))
			},
			"SetTie": func(t *rapid.T) {
				m.set(t, index.Draw(t, "i"), m.keys[index.Draw(t, "j")])
			},
			"SetNeighbour": func(t *rapid.T) {
				// The next float up or down from another key.
				a := m.keys[index.Draw(t, "j")]
				dir := rapid.SampledFrom([]float64{0, math.Inf(1)}).Draw(t, "dir")
				m.set(t, index.Draw(t, "i"), math.Nextafter(a, dir))
			},
			"SetNearCutoff": func(t *rapid.T) {
				// Put the key of rank r+1 on its cutoff ε·λ(r+1), or a few
				// ulps off, for the current ε, at a rank r where the
				// predicate holds.
				if n < 2 || m.eps == 0 {
					t.Skip("no cutoff")
				}
				ex := Oracle(m.keys, m.eps)
				r := rapid.IntRange(1, max(1, min(ex.Rho, n-1))).Draw(t, "rank")
				a := nudge(tieValue(n, r+1, ex.Eps, ex.Prefix[r]), rapid.IntRange(-3, 3).Draw(t, "ulps"))
				m.set(t, ex.Order[r], a)
			},
			"SetBand": func(t *rapid.T) {
				// A run of items gets keys from a narrow band: in a tree
				// they crowd into one node, which splits, and leave others,
				// which merge.
				lo := index.Draw(t, "lo")
				a := Key(n).Draw(t, "a")
				for k := range rapid.IntRange(1, min(n, 40)).Draw(t, "count") {
					m.set(t, (lo+k)%n, math.Ldexp(a, -(k%2)))
				}
			},
			"SetHuge": func(t *rapid.T) {
				// Accepted exactly when the exact sum stays within MaxSum.
				f := rapid.Float64Range(0.05, 1.2).Draw(t, "fraction of MaxSum")
				m.set(t, index.Draw(t, "i"), f*reweighted.MaxSum)
			},
			"SetBad": func(t *rapid.T) {
				before := Observe(m.s)
				i := rapid.IntRange(-2, n+1).Draw(t, "i")
				a := rapid.SampledFrom([]float64{math.NaN(), math.Inf(1), math.Inf(-1), -1, -5e-324,
					reweighted.MaxSum * 1.5, 1}).Draw(t, "a")
				if i >= 0 && i < n && a == 1 {
					i = n // keep the call invalid
				}
				err := m.s.Set(i, a)
				if i < 0 || i >= n {
					require.ErrorIs(t, err, reweighted.ErrIndex)
				} else {
					require.ErrorIs(t, err, reweighted.ErrKey)
				}
				require.Equal(t, before, Observe(m.s), "rejected Set(%d, %v) changed the sampler", i, a)
			},
			"SetBatch": func(t *rapid.T) {
				m.setBatch(t, n)
			},
			"DrawBatch": func(t *rapid.T) {
				requireSameBatch(t, m.s, m.eps, rapid.Uint64().Draw(t, "seed"), rapid.Bool().Draw(t, "replace"),
					rapid.IntRange(0, n).Draw(t, "m"))
			},
			"Bound": func(t *rapid.T) {
				m.eps = Eps(n).Draw(t, "eps")
			},
			"Verify": func(t *rapid.T) {
				require.NoError(t, Verify(m.s, m.keys, m.eps, []float64{U().Draw(t, "u")}))
			},
		})
	}
}

// model is the state machine's model: the keys, and the bound that queries
// and cutoff keys use.
type model struct {
	s    reweighted.Sampler
	keys []float64
	eps  float64
}

// set calls Set(i, a) and checks its answer against the exact sum of the
// keys: accepted, and applied, exactly when that sum stays within MaxSum;
// rejected with nothing changed otherwise.
func (m *model) set(t *rapid.T, i int, a float64) {
	sum := new(big.Rat).SetFloat64(a)
	for j, b := range m.keys {
		if j != i {
			sum.Add(sum, new(big.Rat).SetFloat64(b))
		}
	}
	fits := sum.Cmp(new(big.Rat).SetFloat64(reweighted.MaxSum)) <= 0
	before := Observe(m.s)
	err := m.s.Set(i, a)
	if !fits {
		require.ErrorIs(t, err, reweighted.ErrKey, "Set(%d, %v) with the exact sum past MaxSum", i, a)
		require.Equal(t, before, Observe(m.s), "a rejected Set(%d, %v) changed the sampler", i, a)
		return
	}
	require.NoError(t, err, "Set(%d, %v) with the exact sum within MaxSum", i, a)
	m.keys[i] = a + 0
}

// setBatch draws a batch of up to 8 entries (any key, ties, keys near
// MaxSum, now and then one bad entry) and calls SetBatch, through the
// sampler's fast path if it has one: accepted, with each item taking its
// last key, exactly when every entry is valid and the exact sum of the keys
// after the batch stays within MaxSum; otherwise rejected with the first
// bad entry's sentinel, or ErrKey, and nothing changed.
func (m *model) setBatch(t *rapid.T, n int) {
	size := rapid.IntRange(0, 8).Draw(t, "size")
	items, keys := make([]int, size), make([]float64, size)
	for k := range size {
		items[k] = rapid.IntRange(0, n-1).Draw(t, "i")
		keys[k] = rapid.OneOf(Key(n), rapid.SampledFrom(m.keys),
			rapid.Map(rapid.Float64Range(0.05, 1.2), func(f float64) float64 { return f * reweighted.MaxSum })).Draw(t, "a")
	}
	if size > 0 && rapid.IntRange(0, 4).Draw(t, "bad") == 0 {
		k := rapid.IntRange(0, size-1).Draw(t, "bad entry")
		if rapid.Bool().Draw(t, "bad index") {
			items[k] = rapid.SampledFrom([]int{-1, n}).Draw(t, "bad i")
		} else {
			keys[k] = rapid.SampledFrom([]float64{math.NaN(), -1, math.Inf(1)}).Draw(t, "bad a")
		}
	}
	// The first bad entry decides the error; a key past MaxSum is bad
	// even where a later entry replaces it.
	var want error
	for k, i := range items {
		if i < 0 || i >= n {
			want = reweighted.ErrIndex
			break
		}
		if a := keys[k]; !(a >= 0 && a <= reweighted.MaxSum) {
			want = reweighted.ErrKey
			break
		}
	}
	after := append([]float64(nil), m.keys...)
	if want == nil {
		for k, i := range items {
			after[i] = keys[k] + 0
		}
		sum := new(big.Rat)
		for _, a := range after {
			sum.Add(sum, new(big.Rat).SetFloat64(a))
		}
		if sum.Cmp(new(big.Rat).SetFloat64(reweighted.MaxSum)) > 0 {
			want = reweighted.ErrKey
		}
	}
	before := Observe(m.s)
	err := batchSetter(m.s)(items, keys)
	if want != nil {
		require.ErrorIs(t, err, want, "SetBatch(%v, %v)", items, keys)
		require.Equal(t, before, Observe(m.s), "a rejected SetBatch(%v, %v) changed the sampler", items, keys)
		return
	}
	require.NoError(t, err, "SetBatch(%v, %v) with the exact sum within MaxSum", items, keys)
	m.keys = after
}

// Property: Load(keys), where the sampler has it, over a sampler that held
// other keys, gives what the same keys set in a random order give (the
// exact ρ, the distribution within 1e-12), both pass Check, and a rejected
// Load changes nothing.
func loadProperty(newSampler New) func(*rapid.T) {
	return func(t *rapid.T) {
		n := rapid.OneOf(rapid.IntRange(1, 40), rapid.IntRange(41, 400)).Draw(t, "n")
		s := newSampler(n)
		l, ok := s.(loader)
		if !ok {
			t.Skip("no Load method")
		}
		keys := Keys(n).Draw(t, "keys")
		// Start from other keys, so that Load must replace them all.
		for i := range n {
			require.NoError(t, s.Set(i, float64(i%5)))
		}
		before := Observe(s)
		bad := append([]float64(nil), keys...)
		bad[rapid.IntRange(0, n-1).Draw(t, "bad item")] = rapid.SampledFrom([]float64{math.NaN(), -1, math.Inf(1), reweighted.MaxSum * 1.01}).Draw(t, "bad key")
		require.ErrorIs(t, l.Load(bad), reweighted.ErrKey)
		require.ErrorIs(t, l.Load(keys[:n-1]), reweighted.ErrBatch)
		require.Equal(t, before, Observe(s), "a rejected Load changed the sampler")
		require.NoError(t, l.Load(keys))
		set := newSampler(n)
		for _, i := range rapid.Permutation(seq(n)).Draw(t, "order") {
			require.NoError(t, set.Set(i, keys[i]))
		}
		for _, x := range []reweighted.Sampler{s, set} {
			if c, ok := x.(Checker); ok {
				require.NoError(t, c.Check())
			}
		}
		// Verify checks Key(i) of every item, bit for bit.
		eps := Eps(n).Draw(t, "eps")
		require.NoError(t, Verify(s, keys, eps, []float64{U().Draw(t, "u")}))
		for _, e := range append(EdgeEps(n), eps) {
			requireSameDistribution(t, s, set, seq(n), e)
		}
	}
}

// Postcondition: Probs, where the sampler has it, returns Prob of every
// item, bit for bit, reusing dst when it has room.
func probsProperty(newSampler New) func(*rapid.T) {
	return func(t *rapid.T) {
		n, keys, eps := draw(t)
		s := fill(t, newSampler, keys)
		p, ok := s.(prober)
		if !ok {
			t.Skip("no Probs method")
		}
		dst := make([]float64, 3, n+3)
		got, err := p.Probs(eps, dst)
		require.NoError(t, err)
		require.Len(t, got, n)
		require.Equal(t, &dst[:1][0], &got[:1][0], "Probs did not reuse dst")
		for i := range n {
			q, err := s.Prob(i, eps)
			require.NoError(t, err)
			require.Equal(t, math.Float64bits(q), math.Float64bits(got[i]), "Probs[%d] = %v, Prob = %v", i, got[i], q)
		}
		_, err = p.Probs(math.NaN(), nil)
		require.ErrorIs(t, err, reweighted.ErrEpsilon)
	}
}

// testNegativeSize: New panics for n < 0, as make does.
func testNegativeSize(t TB, newSampler New) {
	require.Panics(t, func() { newSampler(-1) })
}

// testErrorOrder: with several arguments wrong, the error is the first in
// the contract's order: ErrEmpty, then the arguments in signature order.
func testErrorOrder(t TB, newSampler New) {
	s := fill(t, newSampler, []float64{1, 2, 3})
	require.ErrorIs(t, errProb(s.Prob(5, math.NaN())), reweighted.ErrIndex, "Prob(bad i, bad ε)")
	require.ErrorIs(t, errSolve(s.Sample(-1, 2)), reweighted.ErrEpsilon, "Sample(bad ε, bad u)")
	require.ErrorIs(t, s.Set(3, math.NaN()), reweighted.ErrIndex, "Set(bad i, bad a)")
	require.ErrorIs(t, s.Set(-1, -1), reweighted.ErrIndex, "Set(bad i, bad a)")
	if p, ok := s.(prober); ok {
		_, err := p.Probs(2, nil)
		require.ErrorIs(t, err, reweighted.ErrEpsilon)
	}
}

// Property: the read methods (Len, Key, Solve, Sample, Prob, Probs) may run
// concurrently; they answer as they do one at a time. Run it with -race. The
// keys 1, …, 40 repeated make the predicate tight at some ranks, so the
// exact decision runs concurrently too.
func testConcurrentReads(t TB, newSampler New) {
	const n, queries = 1000, 300
	keys := make([]float64, n)
	for i := range keys {
		keys[i] = float64(i%40 + 1)
	}
	s := fill(t, newSampler, keys)
	rng := rand.New(rand.NewPCG(5, 6))
	type query struct {
		eps, u float64
		j      int
	}
	qs := make([]query, queries)
	for k := range qs {
		qs[k] = query{EpsFromBits(byte(rng.IntN(6)), rng.Uint64(), n), rng.Float64(), rng.IntN(n)}
	}
	answer := func(q query) string {
		rho, lambda, err1 := s.Solve(q.eps)
		i, p, err2 := s.Sample(q.eps, q.u)
		pj, err3 := s.Prob(q.j, q.eps)
		out := fmt.Sprint(rho, lambda, err1, i, p, err2, pj, err3, s.Key(q.j), s.Len())
		if pr, ok := s.(prober); ok {
			ps, err := pr.Probs(q.eps, nil)
			out += fmt.Sprint(err, ps[q.j])
		}
		return out
	}
	want := make([]string, queries)
	for k, q := range qs {
		want[k] = answer(q)
	}
	var wg sync.WaitGroup
	got := make([][]string, 4)
	for g := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range qs {
				q := qs[(k+g*queries/4)%queries]
				got[g] = append(got[g], answer(q))
			}
		}()
	}
	wg.Wait()
	for g := range got {
		for k := range qs {
			require.Equal(t, want[(k+g*queries/4)%queries], got[g][k], "goroutine %d, query %d", g, k)
		}
	}
}

// RunStateMachine checks StateMachineN on up to maxN items, or, with long,
// on up to longN items over histories of about 1,000 steps (10 of them),
// unless the command line sets rapid.steps or rapid.checks. Every action
// that queries runs the exact oracle, O(n log n) in big rationals, which
// bounds how long a history can be.
func RunStateMachine(t *testing.T, newSampler New, maxN, longN int, long bool) {
	if long {
		maxN = longN
		SetDefaultFlag(t, "rapid.steps", "1000")
		SetDefaultFlag(t, "rapid.checks", "10")
	}
	rapid.Check(t, StateMachineN(newSampler, maxN))
}

// Sizes sets the sizes of the kit's checks for the duration of the test,
// unless the command line sets them: rapid's checks of every property
// (-rapid.checks) and the draws of every χ² test (-samplertest.draws). A
// module's default test run can run fewer checks than rapid's 100, and its
// long run, under a -long flag, more checks and draws, such as 1,000 and
// 10^6; a draws of 0 keeps the kit's default.
func Sizes(t *testing.T, checks, draws int) {
	SetDefaultFlag(t, "rapid.checks", strconv.Itoa(checks))
	if draws > 0 {
		SetDefaultFlag(t, "samplertest.draws", strconv.Itoa(draws))
	}
}

// SetDefaultFlag sets a flag, such as rapid.steps, for the duration of the
// test unless the command line set it: for longer sweeps under a -long flag.
func SetDefaultFlag(t *testing.T, name, value string) {
	if onCommandLine(name) {
		return
	}
	old := flag.Lookup(name).Value.String()
	require.NoError(t, flag.Set(name, value))
	t.Cleanup(func() { require.NoError(t, flag.Set(name, old)) })
}

// onCommandLine reports whether the command line names the flag. Not
// flag.Visit, which also lists the flags that an earlier SetDefaultFlag set
// and restored.
func onCommandLine(name string) bool {
	for _, a := range os.Args[1:] {
		if a == "--" {
			break
		}
		a = strings.TrimPrefix(strings.TrimPrefix(a, "-"), "-")
		if a == name || strings.HasPrefix(a, name+"=") {
			return true
		}
	}
	return false
}
