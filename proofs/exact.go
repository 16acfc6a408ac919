package proofs

import (
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"strings"

	"github.com/reweighted/reweighted/samplertest"
)

// ratFloat converts x to the nearest float64.
func ratFloat(x *big.Rat) float64 {
	f, _ := x.Float64()
	return f
}

// ratio returns x/y as a float64.
func ratio(x, y *big.Rat) float64 {
	if y.Sign() == 0 {
		if x.Sign() == 0 {
			return 0
		}
		return math.Inf(1)
	}
	return ratFloat(new(big.Rat).Quo(x, y))
}

// drawInstance draws keys and ε for the exact checks: general keys, or one
// time in four an instance with an exact tie of the predicate, a third of
// them moved off the tie by one ulp of ε, where a float comparison may well
// land on the other side.
func drawInstance(r *rand.Rand, maxN int) ([]float64, float64) {
	n := 1 + r.IntN(maxN)
	if r.IntN(4) == 0 {
		keys, eps := tieInstance(r, n)
		switch r.IntN(3) {
		case 0:
			eps = math.Nextafter(eps, 0)
		case 1:
			eps = math.Nextafter(eps, 1)
		}
		return keys, eps
	}
	return drawKeys(r, n), drawEps(r, n)
}

// prefixShape checks Proposition 1 on one instance in exact arithmetic: the
// ranks where a_π(r) ≥ ελ(r) are exactly 1..ρ. It returns the largest
// a_π(r)/(ελ(r)) over ranks r > ρ (which must be < 1) and the number of
// ranks where the predicate holds with equality.
func prefixShape(e *samplertest.Exact) (worst float64, ties int, err error) {
	failed := 0
	for r := 1; r <= e.N; r++ {
		lhs := new(big.Rat).Mul(e.Keys[e.Order[r-1]], e.C(r))
		rhs := new(big.Rat).Mul(e.Eps, e.Prefix[r])
		c := lhs.Cmp(rhs)
		if c == 0 {
			ties++
		}
		if c >= 0 && failed > 0 {
			return 0, 0, fmt.Errorf("predicate fails at rank %d but holds at rank %d", failed, r)
		}
		if c < 0 {
			if r == 1 {
				return 0, 0, fmt.Errorf("predicate fails at rank 1")
			}
			if failed == 0 {
				failed = r
			}
			worst = math.Max(worst, ratio(lhs, rhs))
		}
	}
	return worst, ties, nil
}

func checkProposition1(cfg Config) (Result, error) {
	r := newRand(cfg, 2)
	res := Result{Pass: true}
	ties, tails := 0, 0
	for range scale(cfg, 3000, 10) {
		keys, eps := drawInstance(r, 24)
		e := samplertest.Oracle(keys, eps)
		worst, t, err := prefixShape(e)
		res.Instances++
		if err != nil {
			res.Pass = false
			res.Notes = fmt.Sprintf("keys %v ε %v: %v", keys, eps, err)
			return res, nil
		}
		if e.Rho < e.N {
			tails++
		}
		ties += t
		res.WorstRatio = math.Max(res.WorstRatio, worst)
	}
	res.Notes = fmt.Sprintf("prefix shape held on all; %d instances with a failing tail, max a_π(r)/(ελ(r)) after ρ = %.17g (< 1 exactly); %d exact ties of the predicate",
		tails, res.WorstRatio, ties)
	return res, nil
}

// algorithm2 is Algorithm 2's binary search for ρ, run on the exact
// predicate of e.
func algorithm2(e *samplertest.Exact) int {
	l, rr, c := 1, e.N, 0
	for l <= rr {
		m := (l + rr) / 2
		if e.Holds(m) {
			c, l = m, m+1
		} else {
			rr = m - 1
		}
	}
	return c
}

// tv returns the total variation distance between the exact distributions
// of e under ρ = a and ρ = b.
func tv(e *samplertest.Exact, a, b int) float64 {
	d := new(big.Rat)
	for i := range e.N {
		x := new(big.Rat).Sub(e.ProbAt(i, a), e.ProbAt(i, b))
		d.Add(d, x.Abs(x))
	}
	return ratFloat(d) / 2
}

func checkLemma2(cfg Config) (Result, error) {
	r := newRand(cfg, 3)
	res := Result{Pass: true}
	solves := 0
	for range scale(cfg, 2000, 10) {
		keys, eps := drawInstance(r, 24)
		e := samplertest.Oracle(keys, eps)
		res.Instances++
		if !e.AllZero {
			if got := algorithm2(e); got != e.Rho {
				res.Pass = false
				res.Notes = fmt.Sprintf("keys %v ε %v: exact Algorithm 2 gives ρ = %d, definition %d", keys, eps, got, e.Rho)
				return res, nil
			}
		}
		for _, b := range backends {
			s, err := load(b, keys)
			if err != nil {
				return res, fmt.Errorf("%s: %w", b.Name, err)
			}
			rho, lambda, err := s.Solve(eps)
			if err != nil {
				return res, fmt.Errorf("%s: %w", b.Name, err)
			}
			solves++
			if rho != e.Rho {
				res.Pass = false
				res.Notes = fmt.Sprintf("%s: keys %v ε %v: ρ = %d, exact ρ = %d (TV %.3g); ", b.Name, keys, eps, rho, e.Rho, tv(e, rho, e.Rho))
				return res, nil
			}
			if !e.AllZero && !samplertest.CloseRel(lambda, e.Lambda, 1e-9) {
				res.Pass = false
				res.Notes = fmt.Sprintf("%s: keys %v ε %v: λ = %v, exact λ = %v", b.Name, keys, eps, lambda, ratFloat(e.Lambda))
				return res, nil
			}
			if !e.AllZero && e.Lambda.Sign() > 0 {
				// λ's error over the bound the check allows: 1e-9 of λ,
				// and one step of the subnormal grid, which a λ too small
				// to carry 30 bits cannot beat (over 1e-9 of λ alone, a λ
				// of 1e-318 would show some 10^5).
				res.WorstRatio = math.Max(res.WorstRatio, samplertest.RelErrRatio(lambda, e.Lambda, 1e-9))
			}
		}
	}
	res.Notes += fmt.Sprintf("exact Algorithm 2 = definition of ρ on all; every backend's Solve returns the exact ρ on all (%d solves); ratio is λ's error over its bound, 1e-9 of λ plus one step of the subnormal grid", solves)
	return res, nil
}

// prop2Ratios returns, for one instance with some positive key and
// ε ≤ 1/2n, the exact minimum J over Δ(ε) divided by each bound of
// Proposition 2, B1 = (Σa)²/(1−(n−ρ)ε), B2 = (Σa)²/(1−nε) and
// B3 = (1+2nε)(Σa)², and the ratios of consecutive bounds B1/B2 and B2/B3.
func prop2Ratios(e *samplertest.Exact) (jb1, jb2, jb3, b12, b23 float64) {
	j := new(big.Rat)
	for i, a := range e.Keys {
		if a.Sign() == 0 {
			continue
		}
		t := new(big.Rat).Mul(a, a)
		j.Add(j, t.Quo(t, e.P[i]))
	}
	s2 := new(big.Rat).Mul(e.Prefix[e.N], e.Prefix[e.N])
	n := big.NewRat(int64(e.N), 1)
	b1 := new(big.Rat).Quo(s2, e.C(e.Rho))
	nEps := new(big.Rat).Mul(n, e.Eps)
	b2 := new(big.Rat).Quo(s2, new(big.Rat).Sub(big.NewRat(1, 1), nEps))
	b3 := new(big.Rat).Mul(s2, nEps.Add(nEps.Add(nEps, nEps), big.NewRat(1, 1))) // (1+2nε)(Σa)²
	return ratio(j, b1), ratio(j, b2), ratio(j, b3), ratio(b1, b2), ratio(b2, b3)
}

// prop2Worst returns the largest of the five ratios; every one must be ≤ 1.
func prop2Worst(e *samplertest.Exact) float64 {
	a, b, c, d, f := prop2Ratios(e)
	return max(a, b, c, d, f)
}

// prop2Search climbs toward the largest J/B3 for n keys at ε = 1/2n, where
// the last bound is loosest, by random local moves (scale one key, zero it,
// copy another) from a random start. It returns the best ratio and its keys.
func prop2Search(r *rand.Rand, n, steps int) (best float64, keys []float64, eps float64) {
	keys = drawKeys(r, n)
	keys[0] = 1
	eps = 1 / float64(2*n)
	score := func(k []float64, e float64) float64 {
		_, _, jb3, _, _ := prop2Ratios(samplertest.Oracle(k, e))
		return jb3
	}
	best = score(keys, eps)
	for range steps {
		k := append([]float64(nil), keys...)
		i := r.IntN(n)
		switch r.IntN(3) {
		case 0:
			k[i] *= math.Exp(r.NormFloat64())
		case 1:
			k[i] = 0
		default:
			k[i] = k[r.IntN(n)]
		}
		allZero := true
		for _, a := range k {
			allZero = allZero && a == 0
		}
		if allZero || math.IsInf(k[i], 0) || k[i] > 1e200 {
			continue
		}
		if s := score(k, eps); s >= best {
			best, keys = s, k
		}
	}
	return best, keys, eps
}

func checkProposition2(cfg Config) (Result, error) {
	r := newRand(cfg, 4)
	res := Result{Pass: true}
	var w [5]float64
	for range scale(cfg, 2000, 10) {
		n := 1 + r.IntN(16)
		keys := drawKeys(r, n)
		eps := drawEps(r, n) / 2
		if r.IntN(4) == 0 {
			keys, eps = tieInstance(r, n)
			if eps > 1/float64(2*n) {
				eps /= 2
			}
		}
		e := samplertest.Oracle(keys, eps)
		if e.AllZero {
			continue // the proposition assumes a positive key
		}
		res.Instances++
		a, b, c, d, f := prop2Ratios(e)
		for i, x := range []float64{a, b, c, d, f} {
			w[i] = math.Max(w[i], x)
		}
		if worst := max(a, b, c, d, f); worst > 1 {
			res.Pass = false
			res.Notes = fmt.Sprintf("keys %v ε %v: ratio %v > 1; ", keys, eps, worst)
		}
	}
	// Climb toward the worst case of the last bound at a few sizes: the
	// supremum for n keys is n/(n+1), one positive key at ε = 1/2n.
	var search []string
	for _, n := range []int{2, 4, 8} {
		best, keys, _ := prop2Search(r, n, scale(cfg, 150, 5))
		res.Instances++
		if best > 1 {
			res.Pass = false
		}
		w[2] = math.Max(w[2], best)
		search = append(search, fmt.Sprintf("n=%d: %.6f (sup n/(n+1) = %.6f, %s)", n, best, float64(n)/float64(n+1), plural(positive(keys), "positive key")))
	}
	res.WorstRatio = max(w[0], w[1], w[2], w[3], w[4])
	res.Notes += fmt.Sprintf("max J/B1 = %.6f, J/B2 = %.6f, J/B3 = %.6f, B1/B2 = %.6f, B2/B3 = %.6f; climb toward worst J/B3 at ε = 1/2n: %s",
		w[0], w[1], w[2], w[3], w[4], strings.Join(search, "; "))
	return res, nil
}

func positive(keys []float64) int {
	c := 0
	for _, a := range keys {
		if a > 0 {
			c++
		}
	}
	return c
}

// plural returns "1 thing" or "k things".
func plural(k int, thing string) string {
	if k == 1 {
		return "1 " + thing
	}
	return fmt.Sprintf("%d %ss", k, thing)
}
