package levels

import (
	"math"
	"math/big"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/reweighted/reweighted"
	"github.com/reweighted/reweighted/samplertest"
)

// Property: after any history of draws, updates, batches and loads at a
// few bounds, the solution and table a sampler keeps are those a Solve
// from the top and a new table give (Check compares them, bit for bit),
// and Solve and Prob answer, bit for bit, as a sampler just loaded with
// the same keys, which keeps nothing.
func TestKeptIsASolve(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		keys, eps0 := hintState(t)
		n := len(keys)
		s := load(t, keys)
		epss := []float64{eps0, 1 / float64(2*n), 0, 1 / float64(n)}
		src := rand.NewPCG(rapid.Uint64().Draw(t, "seed"), 1)
		eps := eps0
		move := func(t *rapid.T, i int) float64 {
			a := keys[i]
			switch rapid.IntRange(0, 4).Draw(t, "move") {
			case 0:
				return math.Nextafter(a, math.Inf(1))
			case 1:
				return math.Nextafter(a, 0)
			case 2:
				return a * rapid.SampledFrom([]float64{0, 0.5, 0.99, 1.01, 4}).Draw(t, "factor")
			case 3:
				return keys[rapid.IntRange(0, n-1).Draw(t, "like")]
			}
			return keys[0] * rapid.Float64Range(0, 2).Draw(t, "scale")
		}
		t.Repeat(map[string]func(*rapid.T){
			"": func(t *rapid.T) {
				require.NoError(t, s.Check())
				fresh := load(t, keys)
				rho, lambda, err := s.Solve(eps)
				require.NoError(t, err)
				frho, flambda, err := fresh.Solve(eps)
				require.NoError(t, err)
				require.Equal(t, frho, rho, "ρ at ε = %v", eps)
				require.Equal(t, math.Float64bits(flambda), math.Float64bits(lambda), "λ at ε = %v", eps)
				i := rapid.IntRange(0, n-1).Draw(t, "probe")
				p, err := s.Prob(i, eps)
				require.NoError(t, err)
				fp, err := fresh.Prob(i, eps)
				require.NoError(t, err)
				require.Equal(t, math.Float64bits(fp), math.Float64bits(p), "Prob(%d) at ε = %v", i, eps)
			},
			"Eps": func(t *rapid.T) { eps = rapid.SampledFrom(epss).Draw(t, "eps") },
			"Draw": func(t *rapid.T) {
				i, p, err := s.Draw(eps, src)
				require.NoError(t, err)
				q, err := s.Prob(i, eps)
				require.NoError(t, err)
				require.Equal(t, math.Float64bits(q), math.Float64bits(p), "the p of a draw is Prob's")
			},
			"DrawSet": func(t *rapid.T) {
				for range rapid.IntRange(1, 8).Draw(t, "steps") {
					i, _, err := s.Draw(eps, src)
					require.NoError(t, err)
					a := move(t, i)
					if s.Set(i, a) == nil {
						keys[i] = a
					}
					require.NoError(t, s.Check())
				}
			},
			"Set": func(t *rapid.T) {
				i := rapid.IntRange(0, n-1).Draw(t, "i")
				a := move(t, i)
				if s.Set(i, a) == nil {
					keys[i] = a
				}
			},
			"SetBatch": func(t *rapid.T) {
				m := rapid.IntRange(1, 6).Draw(t, "m")
				items, ks := make([]int, m), make([]float64, m)
				for k := range items {
					items[k] = rapid.IntRange(0, n-1).Draw(t, "item")
					ks[k] = move(t, items[k])
				}
				if s.SetBatch(items, ks) == nil {
					for k, i := range items {
						keys[i] = ks[k]
					}
				}
			},
			"DrawBatch": func(t *rapid.T) {
				m := rapid.IntRange(1, min(n, 8)).Draw(t, "m")
				items, probs := make([]int, m), make([]float64, m)
				require.NoError(t, s.DrawBatch(eps, src, rapid.Bool().Draw(t, "replace"), items, probs))
			},
		})
	})
}

// Draws and updates one at a time on 2^14 Exp(1) keys at ε = 1/(2n): the
// sampler keeps the solution through nearly every update by following it
// (t* moves among the keys of its straddling unit), not by a new Solve,
// and its table by updating the rows that changed; what it keeps is a
// Solve's and a new table (Check), with the exact ρ of the oracle.
func TestKeptFollowsUpdates(t *testing.T) {
	const n, steps = 1 << 14, 3000
	rng := rand.New(rand.NewPCG(5, 6))
	keys := expKeys(rng, n)
	s := load(t, keys)
	eps := 1 / float64(2*n)
	src := rand.NewPCG(7, 8)
	for step := range steps {
		solves := s.solves.Load()
		i, _, err := reweighted.Draw(s, eps, src)
		require.NoError(t, err)
		if step > 0 {
			require.Equal(t, solves, s.solves.Load(), "step %d: a Draw with the solution kept makes no Solve", step)
		}
		keys[i] = rng.ExpFloat64()
		require.NoError(t, s.Set(i, keys[i]))
		require.True(t, s.kept.ok, "step %d: a draw came, the solution is kept", step)
		if step%100 == 0 {
			require.NoError(t, s.Check())
		}
	}
	require.NoError(t, s.Check())
	rho, _, err := s.Solve(eps)
	require.NoError(t, err)
	require.Equal(t, samplertest.Oracle(keys, eps).Rho, rho)
	t.Logf("%d updates followed (%d tables updated in place), %d solved", s.kept.followed, s.kept.retabled, s.kept.solved)
	require.Greater(t, s.kept.followed, 9*s.kept.solved)
	require.Greater(t, s.kept.retabled, s.kept.followed*9/10)
	// Updates without draws keep nothing, and cost no Solve.
	solved := s.kept.solved
	for range 100 {
		i := rng.IntN(n)
		keys[i] = rng.ExpFloat64()
		require.NoError(t, s.Set(i, keys[i]))
	}
	require.False(t, s.kept.ok)
	require.LessOrEqual(t, s.kept.solved, solved+1, "Sets with no draw between them solve at most once")
}

// The largest key alone in the top level moves up a level, then down
// two: the top level changes under a followed update, and the sums above
// t* are formed from the new top, as a Solve forms them (Check).
func TestKeptFollowsTheTop(t *testing.T) {
	const n = 1 << 16
	rng := rand.New(rand.NewPCG(9, 10))
	keys := expKeys(rng, n)
	keys[0] = 100
	s := load(t, keys)
	eps := 1 / float64(2*n)
	src := rand.NewPCG(11, 12)
	for step, a := range []float64{100.5, 130, 60, 101} {
		_, _, err := s.Draw(eps, src)
		require.NoError(t, err)
		followed, top := s.kept.followed, s.topLevel()
		require.NoError(t, s.Set(0, a))
		if step == 0 {
			require.Equal(t, 1, s.kept.solved, "the first update after the first draw keeps by a Solve")
		} else {
			require.NotEqual(t, top, s.topLevel())
			require.Equal(t, followed+1, s.kept.followed, "the update to %v is followed", a)
		}
		require.NoError(t, s.Check())
	}
}

// Draws one at a time on keys that do not change pay one Solve in all:
// the sampler's scratch holds the solution and table of the last read,
// for the same keys (its count of writes) and bound.
func TestRepeatedDrawsSolveOnce(t *testing.T) {
	const n = 1 << 12
	rng := rand.New(rand.NewPCG(13, 14))
	keys := expKeys(rng, n)
	s := load(t, keys)
	eps := 1 / float64(2*n)
	src := rand.NewPCG(15, 16)
	_, _, err := s.Draw(eps, src)
	require.NoError(t, err)
	sc := s.spareSc.Load()
	require.NotNil(t, sc)
	tests := sc.tests
	for range 100 {
		_, _, err := s.Draw(eps, src)
		require.NoError(t, err)
		_, err = s.Prob(rng.IntN(n), eps)
		require.NoError(t, err)
	}
	require.Same(t, sc, s.spareSc.Load())
	require.Equal(t, tests, sc.tests, "predicate tests after the first draw")
	// A draw at another bound, or after a write, solves again.
	_, _, err = s.Draw(eps/2, src)
	require.NoError(t, err)
	require.Greater(t, sc.tests, tests)
}

// Property: the writers keep the solution for the keepFor writes after a
// read that records its count (a fresh sampler's first), whether reads
// follow or not, and then drop it and pay nothing; a
// sampler no read ever asked keeps none; and in a loop of one draw and one
// update, where every update keeps it, the reads store their stamp once
// every keepFor steps, not every step.
func TestKeptForTheWritesAfterARead(t *testing.T) {
	const n = 1 << 10
	rng := rand.New(rand.NewPCG(21, 22))
	keys := expKeys(rng, n)
	s := load(t, keys)
	eps := 1 / float64(2*n)
	src := rand.NewPCG(23, 24)
	k := &s.kept
	set := func() {
		i := rng.IntN(n)
		keys[i] = rng.ExpFloat64()
		require.NoError(t, s.Set(i, keys[i]))
	}
	for range 3 * keepFor {
		set()
		require.False(t, k.ok, "no read ever: nothing kept")
	}
	require.Zero(t, k.followed+k.solved)
	_, _, err := s.Draw(eps, src)
	require.NoError(t, err)
	for w := 1; w <= keepFor+4; w++ {
		set()
		require.Equal(t, w <= keepFor, k.ok, "write %d after the read", w)
		if k.ok {
			require.NoError(t, s.Check())
		}
	}
	paid := k.followed + k.solved
	for range 2 * keepFor {
		set()
	}
	require.Equal(t, paid, k.followed+k.solved, "updates with no read since keepFor writes pay nothing")
	stamps := 0
	last := s.asked.ver.Load()
	const steps = 5 * keepFor
	for range steps {
		_, _, err := s.Draw(eps, src)
		require.NoError(t, err)
		if v := s.asked.ver.Load(); v != last {
			stamps, last = stamps+1, v
		}
		set()
		require.True(t, k.ok, "an update after a read keeps the solution")
	}
	require.NoError(t, s.Check())
	require.LessOrEqual(t, stamps, steps/keepFor+1, "the reads' stores of their stamp")
	require.Positive(t, stamps)
}

// t* inside a split group, among its sub-buckets, with sub-buckets above
// the one that straddles it (one key of n and n − 1 keys within a factor
// 1 + 2^-7 of 1 put it there at ε near 1/(2n)): updates within the group
// are followed, and what is kept is a Solve's (Check) with the oracle's ρ.
func TestKeptFollowsSplitGroup(t *testing.T) {
	const n = 3000
	rng := rand.New(rand.NewPCG(17, 18))
	keys := oneGroup(rng, n, 1)
	keys[0] = n
	s := load(t, keys)
	require.Positive(t, splitGroups(s))
	src := rand.NewPCG(19, 20)
	subAbove := 0
	for _, f := range []float64{1 - 0x1p-12, 1, 1 + 0x1p-12} {
		eps := f / float64(2*n)
		for step := range 400 {
			i, _, err := s.Draw(eps, src)
			require.NoError(t, err)
			keys[i] = 1 + rng.Float64()*0x1p-7
			if i == 0 {
				keys[i] = n * (1 + rng.Float64()*0x1p-20)
			}
			followed := s.kept.followed
			require.NoError(t, s.Set(i, keys[i]))
			if o := s.kept.o; s.kept.followed > followed && o.sub >= 0 {
				sb := s.level(o.lvl).sub[o.grp]
				if _, c := sumAbove(sb.occ, &sb.bc, &sb.bs, &sb.cnt, &sb.sum, o.sub); c > 0 {
					subAbove++
				}
			}
			if step%20 == 0 {
				require.NoError(t, s.Check(), "ε = %v, step %d", eps, step)
			}
		}
		rho, _, err := s.Solve(eps)
		require.NoError(t, err)
		ex := samplertest.Oracle(keys, eps).Rho
		require.Equal(t, ex, rho, "ε = %v", eps)
		require.True(t, ex > 1 && ex < n, "ρ = %d: t* lies in the cluster", ex)
	}
	t.Logf("%d updates followed in a sub-bucket below others, of %d followed", subAbove, s.kept.followed)
	require.Positive(t, subAbove)
}

// On 999 near-ties just below t* and one larger key, no key of the
// straddling unit is in the head; updates of the near-ties by an ulp are
// followed nonetheless (the unit's upper edge passes), not solved again.
func TestKeptFollowsNearTies(t *testing.T) {
	const n = 1000
	rng := rand.New(rand.NewPCG(21, 22))
	keys := make([]float64, n)
	keys[0] = 1
	eps := 1 / float64(2*n)
	// Below t* = ε·λ ≈ 1/(n + 1) for keys of the tail of mass ε each.
	for i := 1; i < n; i++ {
		keys[i] = 0.9 / float64(n+1) * (1 + rng.Float64()*1e-7)
	}
	s := load(t, keys)
	src := rand.NewPCG(23, 24)
	for step := range 500 {
		i, _, err := s.Draw(eps, src)
		require.NoError(t, err)
		keys[i] = math.Nextafter(keys[i], math.Inf(step%2))
		require.NoError(t, s.Set(i, keys[i]))
		if step%50 == 0 {
			require.NoError(t, s.Check())
		}
	}
	require.Equal(t, samplertest.Oracle(keys, eps).Rho, s.kept.o.rho)
	require.Equal(t, 1, s.kept.o.rho, "t* lies above the near-ties")
	t.Logf("%d updates followed, %d solved", s.kept.followed, s.kept.solved)
	require.Greater(t, s.kept.followed, 9*s.kept.solved)
}

// On lognormal keys at 2^10 (e^(3Z), Z standard normal), whose groups hold
// a key or two, an update of a large key moves t* by several groups, often
// by a level: the writer follows it from the unit where its estimate lies,
// not by a new Solve; what it keeps is a Solve's and a new table (Check,
// each step), with the exact ρ of the oracle.
func TestKeptFollowsFarMoves(t *testing.T) {
	const n, steps = 1 << 10, 3000
	rng := rand.New(rand.NewPCG(31, 32))
	logn := func() float64 { return math.Exp(3 * rng.NormFloat64()) }
	keys := make([]float64, n)
	for i := range keys {
		keys[i] = logn()
	}
	s := load(t, keys)
	eps := 1 / float64(2*n)
	src := rand.NewPCG(33, 34)
	far := 0
	for step := range steps {
		i, _, err := s.Draw(eps, src)
		require.NoError(t, err)
		before := s.kept.o
		followed := s.kept.followed
		keys[i] = logn()
		require.NoError(t, s.Set(i, keys[i]))
		require.NoError(t, s.Check(), "step %d", step)
		if o := s.kept.o; s.kept.followed > followed && (o.lvl != before.lvl || o.grp-before.grp > 1 || before.grp-o.grp > 1) {
			far++
		}
		if step%500 == 0 {
			require.Equal(t, samplertest.Oracle(keys, eps).Rho, s.kept.o.rho, "step %d", step)
		}
	}
	t.Logf("%d updates followed (%d to a unit two groups away or more), %d solved", s.kept.followed, far, s.kept.solved)
	require.Greater(t, far, steps/10)
	require.Greater(t, s.kept.followed, 9*s.kept.solved)
}

// t* moves down, out of the straddling sub-bucket into the gap below it,
// as the largest key shrinks: every key of the unit is then in the head,
// and the update must be solved again, not followed (the unit's lower
// edge passes); what is kept stays a Solve's (Check), step by step.
func TestKeptLeavesTheUnitBelow(t *testing.T) {
	const n = 3000
	rng := rand.New(rand.NewPCG(25, 26))
	keys := make([]float64, n)
	// Two clusters in sub-buckets of one split group, a gap between them.
	for i := range keys {
		keys[i] = 1 + rng.Float64()*0x1p-13
		if i%2 == 0 {
			keys[i] += 0x1p-9
		}
	}
	keys[0] = n
	s := load(t, keys)
	require.Positive(t, splitGroups(s))
	eps := 1 / float64(2*n)
	src := rand.NewPCG(27, 28)
	subs := map[int]bool{}
	for step := range 300 {
		if _, _, err := s.Draw(eps, src); err != nil {
			t.Fatal(err)
		}
		keys[0] *= 1 - 0x1p-14
		require.NoError(t, s.Set(0, keys[0]))
		require.NoError(t, s.Check(), "step %d", step)
		subs[s.kept.o.sub] = true
	}
	require.Equal(t, samplertest.Oracle(keys, eps).Rho, s.kept.o.rho)
	require.GreaterOrEqual(t, len(subs), 2, "t* crossed from one sub-bucket to another")
}

// Subnormal keys, t* between 1 and 2 units of 2^-1074 (the straddling
// unit is level 0, all in the tail): a zero key set to 2 units fills level
// 1, a new level in the head, and the kept table must be built anew, not
// updated in place (Check compares it with a new one).
func TestKeptNewLevelFromZero(t *testing.T) {
	u := math.SmallestNonzeroFloat64
	var keys []float64
	for range 100 {
		keys = append(keys, u)
	}
	keys = append(keys, 0)
	for range 10 {
		keys = append(keys, 18*u)
	}
	n := len(keys)
	s := load(t, keys)
	eps := 1 / float64(2*n)
	src := rand.NewPCG(29, 30)
	for _, c := range []struct {
		i int
		a float64
	}{{0, 0}, {100, 2 * u}} {
		_, _, err := s.Draw(eps, src)
		require.NoError(t, err)
		require.NoError(t, s.Set(c.i, c.a))
		keys[c.i] = c.a
		require.NoError(t, s.Check())
		require.Equal(t, 0, s.kept.o.lvl, "t* in level 0")
	}
	require.Equal(t, 1, s.kept.followed, "the second update is followed")
	require.Equal(t, 0, s.kept.retabled, "its table is built anew")
	require.Equal(t, samplertest.Oracle(keys, eps).Rho, s.kept.o.rho)
}

// Check compares the kept solution and every field of the kept table with
// a Solve's and a new table's: a change to any one of them is refused.
func TestCheckRefusesACorruptKeptSolution(t *testing.T) {
	const n = 1 << 10
	rng := rand.New(rand.NewPCG(9, 10))
	keys := expKeys(rng, n)
	s := load(t, keys)
	eps := 1 / float64(2*n)
	i, _, err := reweighted.Draw(s, eps, rand.NewPCG(11, 12))
	require.NoError(t, err)
	require.NoError(t, s.Set(i, 2*keys[i]))
	require.True(t, s.kept.ok, "a draw came: the solution is kept")
	require.NoError(t, s.Check())
	k := &s.kept
	require.NotEmpty(t, k.tab.rows)
	require.NotEmpty(t, k.tab.heads)
	bump := func(x *float64) func() {
		*x = math.Nextafter(*x, math.Inf(1))
		return func() { *x = math.Nextafter(*x, 0) }
	}
	inc := func(x *int) func() { *x++; return func() { *x-- } }
	changes := map[string]func() (undo func()){
		"ρ":              func() func() { return inc(&k.o.rho) },
		"s":              func() func() { return bump(&k.o.s) },
		"a row's weight": func() func() { return bump(&k.tab.rows[0].w) },
		"a row's sum":    func() func() { return bump(&k.tab.rows[len(k.tab.rows)-1].cum) },
		"a head level":   func() func() { k.tab.heads[0]++; return func() { k.tab.heads[0]-- } },
		"front":          func() func() { return inc(&k.tab.front) },
		"ts":             func() func() { return inc(&k.tab.ts) },
		"total":          func() func() { return bump(&k.tab.total) },
		"t*":             func() func() { return bump(&k.tab.tstar) },
		"strB":           func() func() { return bump(&k.tab.strB) },
		"partLo":         func() func() { k.tab.partLo++; return func() { k.tab.partLo-- } },
		"nTail":          func() func() { return inc(&k.tab.nTail) },
		"lvTail":         func() func() { return inc(&k.tab.lvTail) },
	}
	for name, change := range changes {
		undo := change()
		require.Error(t, s.Check(), "the kept %s changed", name)
		undo()
		require.NoError(t, s.Check(), "the kept %s restored", name)
	}
}

// The exact sum of the keys (wide), changed by adding and subtracting
// keys of every binade, subnormal ones and halfway cases included, rounds
// as big.Float rounds the sum of the same keys: to the nearest float,
// ties to even, in the top level's unit.
func TestWideSumRoundsOnce(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	exact := func(keys []float64) *big.Float {
		x := new(big.Float).SetPrec(4000)
		for _, a := range keys {
			x.Add(x, new(big.Float).SetFloat64(a))
		}
		return x
	}
	check := func(keys []float64, x *wide) {
		t.Helper()
		top := 0.0
		for _, a := range keys {
			top = max(top, a)
		}
		if top == 0 {
			return
		}
		l, _ := locate(top)
		ts := unitShift(l)
		want := exact(keys)
		want.SetMantExp(want, 1074-ts)
		w, _ := want.Float64()
		require.Equal(t, w, x.float(ts, sumBits(l, len(keys))), "keys %v", keys)
	}
	// Halfway between two floats, exactly and by a unit of 2^-1074 more
	// or less; and a sum carried and borrowed across words.
	for _, keys := range [][]float64{
		{1, 0x1p-53}, {1 + 0x1p-52, 0x1p-53}, {1, 0x1p-53, 0x1p-1074},
		{1 + 0x1p-52, 0x1p-53, 5e-324}, {1, 0x1p-53, 0x1p-70}, {0x1p600, 0x1p-1000, 0x1p-1074},
		{math.MaxFloat64 / 0x1p200, 0x1p-1074}, {5e-324, 3e-320}, {0x1p-1022, 0x1p-1023},
	} {
		var x wide
		for _, a := range keys {
			x.swap(0, a)
		}
		check(keys, &x)
		// The words carried into, then borrowed back to the first key alone.
		for _, a := range keys[1:] {
			x.swap(a, 0)
		}
		check(keys[:1], &x)
		// Each key in turn replaced by the first and back (swap): the
		// same carries and borrows, a key subtracted and one added.
		for _, a := range keys[1:] {
			x.swap(0, a)
		}
		for k := 1; k < len(keys); k++ {
			c := slices.Clone(keys)
			c[k] = keys[0]
			x.swap(keys[k], keys[0])
			check(c, &x)
			x.swap(keys[0], keys[k])
			check(keys, &x)
		}
	}
	// A key that carries past its two words and borrows back: the keys
	// of all-ones significands sum to the ones from 2^-105 to 2^0, and
	// 2^-105 (in the words of 2^-138 to 2^-10) in place of a zero key
	// carries into 2^1; a carry lost there leaves 2 − 2^-50.
	{
		ones := math.Nextafter(2, 0)
		keys := []float64{0, ones, ones * 0x1p-53}
		var x wide
		for _, a := range keys {
			x.swap(0, a)
		}
		keys[0] = 0x1p-105
		x.swap(0, keys[0])
		check(keys, &x)
		keys[0] = 0
		x.swap(0x1p-105, 0)
		check(keys, &x)
	}
	// A key changed within its two words (2^-40 to 3·2^-40, the words of
	// 2^-114 to 2^13) carries past them and borrows back: the ones of
	// 2^14 − 2^-39 fill the second word from 2^-39 up.
	{
		keys := []float64{0x1p14 - 0x1p-39, 0x1p-40}
		var x wide
		for _, a := range keys {
			x.swap(0, a)
		}
		check(keys, &x)
		keys[1] = 0x3p-40
		x.swap(0x1p-40, keys[1])
		check(keys, &x)
		keys[1] = 0x1p-40
		x.swap(0x3p-40, keys[1])
		check(keys, &x)
	}
	// Random keys of random binades, each replaced in turn, as Sets do.
	for range 200 {
		keys := make([]float64, 1+rng.IntN(8))
		key := func() float64 {
			switch rng.IntN(4) {
			case 0:
				return math.Float64frombits(rng.Uint64N(1 << 52)) // subnormal
			case 1:
				return math.Ldexp(1+float64(rng.IntN(4))*0x1p-52, rng.IntN(120)-60)
			default:
				return math.Ldexp(rng.Float64(), rng.IntN(1600)-900)
			}
		}
		var x wide
		for i := range keys {
			keys[i] = key()
			x.swap(0, keys[i])
		}
		check(keys, &x)
		for range 20 {
			i := rng.IntN(len(keys))
			old := keys[i]
			keys[i] = key()
			x.swap(old, keys[i])
			check(keys, &x)
		}
	}
}

// At ε = 0 Draw's integer proposal holds while the levels' bound weights,
// shifted to the lowest level's unit, sum below 2^62, and is dropped from
// that bound on, whether the writer keeps it across a Set or forms it
// anew: a key walked by factors of two from 2^-70 to 2^20 and back, past
// the bound both ways (its levels 54 and 55 above the lowest, or 55 below
// the top), with a Check (the kept proposal against a new one) after
// every step, and both sides of the bound reached.
func TestIntProposalBound(t *testing.T) {
	s := New(4)
	src := rand.NewPCG(1, 2)
	// Key 1 is the lowest from 2^-54 on, 54 levels below key 0's: the
	// walk into key 0's level makes that level's weight (65, then 146)
	// reach the bound's last bit, 2^8·2^54, by a kept update.
	for i, a := range []float64{1, 1.25 * 0x1p-54, 0x1p-3, 0x1p-3} {
		require.NoError(t, s.Set(i, a))
	}
	_, _, err := s.Draw(0, src)
	require.NoError(t, err)
	seen := map[bool]int{}
	step := func(e int) {
		t.Helper()
		_, _, err := s.Step(0, 3, math.Ldexp(1.25, e), src)
		require.NoError(t, err)
		require.NoError(t, s.Check())
		seen[s.kept.tab.iz.ok]++
	}
	for e := -70; e <= 20; e++ {
		step(e)
	}
	for e := 20; e >= -70; e-- {
		step(e)
	}
	require.Positive(t, seen[true])
	require.Positive(t, seen[false])
}
