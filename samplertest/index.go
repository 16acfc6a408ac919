package samplertest

import (
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"

	"github.com/reweighted/reweighted/driver"
	"pgregory.net/rapid"
)

// indexer is a backend built on package driver that exposes its index, as
// driver.Driver does.
type indexer interface{ Index() driver.Index }

// Property: what the driver trusts of an index holds against exact
// arithmetic, after deep and adversarial histories (keys spanning up to 120
// binades, runs of updates that crowd a band of keys, fall geometrically or
// go to 0, ties, subnormals) on up to 300 items:
//
//   - Select and Rank are inverse, and follow the canonical order of the
//     exact oracle, as Walk does, with Key's keys;
//   - every sum the index hands the driver is within γ_D = D·u/(1 − D·u),
//     u = 2^-53, D = SumDepth(), of the exact sum: Total; Cut's sum at the
//     ρ it returns, which is the exact ρ, at every edge bound; and the
//     partial sums SelectSum compares with its target, probed by targets
//     just outside γ_D of each exact partial sum S(r): below S(r)·(1 − γ_D)
//     it must stop at rank r or before, at S(r)·(1 + γ_D) or above it must
//     pass rank r;
//   - SelectSum's answer keeps its contract whatever the target: the rank
//     it returns has a partial sum above the target and the rank before it
//     one at most the target (within γ_D), with that item's Rank and Key;
//     item −1 comes with the rank after the last partial sum at most the
//     target, n + 1 when none exceeds it.
//
// The driver's error bound, and so its exact ρ and the accuracy of every
// p, rests on the second point: a SumDepth below the real depth of a
// backend's sums, or a sum formed otherwise than by additions, fails it.
func indexSumsProperty(newSampler New) func(*rapid.T) {
	return func(t *rapid.T) {
		n := rapid.OneOf(rapid.IntRange(1, 40), rapid.IntRange(41, 300)).Draw(t, "n")
		s := newSampler(n)
		x, ok := s.(indexer)
		if !ok {
			t.Skip("no Index method")
		}
		ix := x.Index()
		keys := make([]float64, n)
		// The largest key exponent keeps n keys of 53 bits below MaxSum.
		top := rapid.IntRange(-1074+53, hugeExp(n)+20).Draw(t, "top exponent")
		span := rapid.IntRange(0, 120).Draw(t, "binades")
		rng := rand.New(rand.NewPCG(rapid.Uint64().Draw(t, "seed"), 3))
		key := func() float64 {
			m := float64(rng.Int64N(1<<53-1) + 1)
			return math.Ldexp(m, top-53-rng.IntN(span+1))
		}
		set := func(i int, a float64) {
			if err := s.Set(i, a); err != nil {
				t.Fatalf("Set(%d, %v): %v", i, a, err)
			}
			keys[i] = s.Key(i)
		}
		for i := range n {
			set(i, key())
		}
		for range rapid.IntRange(1, 2).Draw(t, "checks") {
			for range rapid.IntRange(0, 3*n).Draw(t, "steps") {
				i := rng.IntN(n)
				switch rng.IntN(7) {
				case 0:
					set(i, keys[rng.IntN(n)]) // a tie
				case 1:
					set(i, 0)
				case 2:
					set(i, math.Ldexp(float64(rng.IntN(1<<20)+1), -1074))
				case 3:
					// A run of items in a narrow band: they crowd into one
					// node of a tree, which splits.
					a := key()
					for k := range 1 + rng.IntN(min(n, 40)) {
						set((i+k)%n, a*(1+float64(k)*0x1p-40))
					}
				case 4:
					// A run falling a binade at a time: each key is below
					// the rounding of the sums above it.
					a := key()
					for k := range 1 + rng.IntN(min(n, 60)) {
						set((i+k)%n, math.Ldexp(a, -k))
					}
				default:
					set(i, key())
				}
			}
			if err := CheckIndex(ix, keys, EdgeEps(n)); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// CheckIndex checks, against the exact oracle of keys, what the driver
// trusts of ix, an index holding keys: Select and Rank inverse and in
// canonical order, Walk in that order, and every sum it hands out (Total,
// Cut's at every bound of epss, SelectSum's) within γ_D of the exact sum,
// D = ix.SumDepth(). It returns the first failure.
func CheckIndex(ix driver.Index, keys []float64, epss []float64) error {
	n := len(keys)
	if ix.Len() != n {
		return fmt.Errorf("index: Len() = %d, want %d", ix.Len(), n)
	}
	if n == 0 {
		return nil
	}
	ex := Oracle(keys, 0)
	for r, i := range ex.Order {
		if got := ix.Select(r + 1); got != i {
			return fmt.Errorf("index: Select(%d) = %d, exact order has item %d", r+1, got, i)
		}
		if got := ix.Rank(i); got != r+1 {
			return fmt.Errorf("index: Rank(%d) = %d, exact rank %d", i, got, r+1)
		}
		if math.Float64bits(ix.Key(i)) != math.Float64bits(keys[i]) {
			return fmt.Errorf("index: Key(%d) = %v, want %v", i, ix.Key(i), keys[i])
		}
	}
	var err error
	r := 0
	ix.Walk(1, n, func(i int, a float64) {
		if err == nil && (r >= n || i != ex.Order[r] || math.Float64bits(a) != math.Float64bits(keys[i])) {
			err = fmt.Errorf("index: Walk gives item %d, key %v at rank %d of the exact order", i, a, r+1)
		}
		r++
	})
	if err != nil {
		return err
	}
	if r != n {
		return fmt.Errorf("index: Walk(1, %d) visits %d items", n, r)
	}
	depth := ix.SumDepth()
	if depth < 1 {
		return fmt.Errorf("index: SumDepth() = %d", depth)
	}
	// γ_D = D·u/(1 − D·u) = D/(2^53 − D).
	gamma := new(big.Rat).SetFrac64(int64(depth), 1<<53-int64(depth))
	one := big.NewRat(1, 1)
	below := new(big.Rat).Sub(one, gamma)
	above := new(big.Rat).Add(one, gamma)
	// within reports whether the float s is within γ_D of the exact sum.
	within := func(s float64, exact *big.Rat) bool {
		d := new(big.Rat).SetFloat64(s)
		if d == nil {
			return false
		}
		d.Sub(d, exact)
		return d.Abs(d).Cmp(new(big.Rat).Mul(gamma, exact)) <= 0
	}
	total := ex.Prefix[n]
	if !within(ix.Total(), total) {
		return fmt.Errorf("index: Total() = %v, exact %v: beyond γ_%d", ix.Total(), ratFloat(total), depth)
	}
	if total.Sign() == 0 {
		return nil // Cut and SelectSum are called only on a positive sum
	}
	// Cut, through a Driver of its own over the index, which hands Cut the
	// exact predicate of each bound.
	spy := &cutSpy{Index: ix}
	d := driver.New(spy)
	for _, eps := range epss {
		if eps == 0 {
			continue // the driver takes Total for ρ = n
		}
		spy.calls = 0
		if _, _, err := d.Solve(eps); err != nil {
			return fmt.Errorf("index: Solve(%v): %w", eps, err)
		}
		rho := ex.rhoAt(eps)
		if spy.calls != 1 || spy.rho != rho {
			return fmt.Errorf("index: Cut at ε = %v: ρ = %d in %d calls, exact ρ = %d", eps, spy.rho, spy.calls, rho)
		}
		if !within(spy.sum, ex.Prefix[rho]) {
			return fmt.Errorf("index: Cut at ε = %v: S(%d) = %v, exact %v: beyond γ_%d", eps, rho, spy.sum, ratFloat(ex.Prefix[rho]), depth)
		}
	}
	// SelectSum, at the driver's scale for a tiny total.
	scale := 1.0
	if ratFloat(total) < 0x1p-500 {
		_, e := math.Frexp(ratFloat(total))
		scale = math.Ldexp(1, min(-e, 1000))
	}
	scaleR := new(big.Rat).SetFloat64(scale)
	// selectSum calls SelectSum(target, scale) and checks its answer.
	selectSum := func(target float64) (int, error) {
		item, rank, a := ix.SelectSum(target, scale)
		tr := new(big.Rat).SetFloat64(target)
		// The partial sum before the rank returned was at most the target:
		// S(rank − 1)·(1 − γ_D)·scale ≤ target.
		if rank < 1 || rank > n+1 {
			return rank, fmt.Errorf("index: SelectSum(%v, %v) = (%d, %d): rank out of range", target, scale, item, rank)
		}
		lo := new(big.Rat).Mul(ex.Prefix[rank-1], below)
		if lo.Mul(lo, scaleR).Cmp(tr) > 0 {
			return rank, fmt.Errorf("index: SelectSum(%v, %v) = (%d, %d), but S(%d) = %v exceeds the target beyond γ_%d",
				target, scale, item, rank, rank-1, ratFloat(ex.Prefix[rank-1]), depth)
		}
		if item < 0 {
			return rank, nil
		}
		if rank > n || ex.Order[rank-1] != item || math.Float64bits(a) != math.Float64bits(keys[item]) {
			return rank, fmt.Errorf("index: SelectSum(%v, %v) = (%d, %d, %v), not an item of the exact order with its rank and key",
				target, scale, item, rank, a)
		}
		// Its own partial sum exceeded the target: S(rank)·(1 + γ_D)·scale > target.
		hi := new(big.Rat).Mul(ex.Prefix[rank], above)
		if hi.Mul(hi, scaleR).Cmp(tr) <= 0 {
			return rank, fmt.Errorf("index: SelectSum(%v, %v) = (%d, %d), but S(%d) = %v is below the target beyond γ_%d",
				target, scale, item, rank, rank, ratFloat(ex.Prefix[rank]), depth)
		}
		return rank, nil
	}
	for r := 1; r <= n; r++ {
		// The largest float below S(r)·(1 − γ_D)·scale, where the partial
		// sum at rank r already exceeds the target.
		lo := new(big.Rat).Mul(ex.Prefix[r], below)
		tLo := floatBelow(lo.Mul(lo, scaleR))
		got, err := selectSum(tLo)
		if err != nil {
			return err
		}
		if got > r {
			return fmt.Errorf("index: SelectSum(%v, %v) = rank %d, past rank %d, whose exact S(%d) = %v: its partial sum is below S·(1 − γ_%d)",
				tLo, scale, got, r, r, ratFloat(ex.Prefix[r]), depth)
		}
		// The largest float at most S(r)·(1 + γ_D)·scale, which the partial
		// sum at rank r does not exceed.
		hi := new(big.Rat).Mul(ex.Prefix[r], above)
		hi.Mul(hi, scaleR)
		tHi := floatBelow(hi)
		if f, _ := hi.Float64(); new(big.Rat).SetFloat64(f).Cmp(hi) == 0 {
			tHi = f
		}
		got, err = selectSum(tHi)
		if err != nil {
			return err
		}
		if got <= r {
			return fmt.Errorf("index: SelectSum(%v, %v) = rank %d, not past rank %d, whose exact S(%d) = %v: its partial sum is above S·(1 + γ_%d)",
				tHi, scale, got, r, r, ratFloat(ex.Prefix[r]), depth)
		}
	}
	return nil
}

// rhoAt returns the exact ρ of the keys of e at the bound eps, as Oracle
// would, without the rest of Oracle's work.
func (e *Exact) rhoAt(eps float64) int {
	x := *e
	if eps == 1/float64(e.N) {
		x.Uniform, x.Eps = true, big.NewRat(1, int64(e.N))
	} else {
		x.Uniform, x.Eps = false, new(big.Rat).SetFloat64(eps)
	}
	rho := 0
	for r := 1; r <= e.N; r++ {
		if x.Holds(r) {
			rho = r
		}
	}
	return rho
}

// floatBelow returns the largest float64 strictly below x > 0.
func floatBelow(x *big.Rat) float64 {
	f, _ := x.Float64()
	for f > 0 && new(big.Rat).SetFloat64(f).Cmp(x) >= 0 {
		f = math.Nextafter(f, 0)
	}
	return f
}

// cutSpy is an index that records what Cut returns.
type cutSpy struct {
	driver.Index
	rho, calls int
	sum        float64
}

func (c *cutSpy) Cut(p driver.Cutoff) (int, float64) {
	c.rho, c.sum = c.Index.Cut(p)
	c.calls++
	return c.rho, c.sum
}
