package samplertest

import (
	"cmp"
	"math/big"
	"slices"
)

// Exact is Lemma 1 and Algorithm 4 computed in rational arithmetic from a
// vector of float keys. It shares no code with the backends.
type Exact struct {
	N       int
	Keys    []*big.Rat // by item, exact values of the float keys
	Eps     *big.Rat   // ε, read as exactly 1/n when Uniform
	Uniform bool       // ε == 1/float64(n)
	AllZero bool       // every key is 0: p is uniform
	Order   []int      // 0-based rank -> item, canonical order
	Rank    []int      // item -> 1-based rank
	Prefix  []*big.Rat // Prefix[r] = sum of the r largest keys, r = 0..n
	Rho     int        // ρ of Lemma 1 (n when AllZero)
	Lambda  *big.Rat   // λ(ρ) (0 when AllZero)
	P       []*big.Rat // p*, by item
}

// Oracle computes the exact p* of Lemma 1 for keys and ε. It panics for an
// empty key vector, and expects keys and ε that the contract accepts.
func Oracle(keys []float64, eps float64) *Exact {
	n := len(keys)
	if n == 0 {
		panic("samplertest: Oracle of no keys")
	}
	e := &Exact{N: n, Keys: make([]*big.Rat, n), Order: make([]int, n), Rank: make([]int, n)}
	for i, a := range keys {
		e.Keys[i] = new(big.Rat).SetFloat64(a)
		e.Order[i] = i
	}
	e.AllZero = allZero(keys)
	if eps == 1/float64(n) {
		e.Uniform = true
		e.Eps = big.NewRat(1, int64(n))
	} else {
		e.Eps = new(big.Rat).SetFloat64(eps)
	}
	// Float keys compare exactly as their rational values do (no NaN is
	// a valid key, and −0 equals 0 in both): compared as floats, the
	// sort does not pay a rational comparison per step.
	slices.SortFunc(e.Order, func(x, y int) int { return cmp.Or(cmp.Compare(keys[y], keys[x]), x-y) })
	// The prefix sums and the predicate in integers (units of 2^-1074, as
	// KKT): a rational sum or product would reduce its fraction by a
	// greatest common divisor, 4 or 5 of them a rank.
	sums := make([]big.Int, n+1)
	e.Prefix = make([]*big.Rat, n+1)
	e.Prefix[0] = new(big.Rat)
	var a big.Int
	for r, i := range e.Order {
		e.Rank[i] = r + 1
		sums[r+1].Add(&sums[r], units(&a, keys[i]))
		e.Prefix[r+1] = unitsRat(new(big.Rat), &sums[r+1])
	}
	if e.AllZero {
		e.Rho, e.Lambda = n, new(big.Rat)
	} else {
		// ρ is the largest rank where a_π(r)·c(r) ≥ ε·S(r); scan them all
		// rather than trust Proposition 1. With ε = epsN/epsD, it holds at
		// r when A_r·(epsD − (n − r)·epsN) ≥ epsN·S_r in units.
		var epsN, epsD, c, lhs, rhs, m big.Int
		if e.Uniform {
			epsN.SetInt64(1)
			epsD.SetInt64(int64(n))
		} else {
			units(&epsN, eps)
			epsD.Set(unitsOne)
		}
		for r := 1; r <= n; r++ {
			c.Mul(&epsN, m.SetInt64(int64(n-r)))
			c.Sub(&epsD, &c)
			if mulUnits(&lhs, &c, keys[e.Order[r-1]], &m).Cmp(rhs.Mul(&epsN, &sums[r])) >= 0 {
				e.Rho = r
			}
		}
		e.Lambda = e.LambdaAt(e.Rho)
	}
	e.P = make([]*big.Rat, n)
	for i := range e.P {
		e.P[i] = e.probWith(i, e.Rho, e.Lambda) // λ(ρ) formed once, not once an item
	}
	return e
}

// allZero reports whether every key is 0.
func allZero(keys []float64) bool {
	return !slices.ContainsFunc(keys, func(a float64) bool { return a != 0 })
}

// C returns 1 − (n − r)ε exactly.
func (e *Exact) C(r int) *big.Rat {
	c := new(big.Rat).Mul(big.NewRat(int64(e.N-r), 1), e.Eps)
	return c.Sub(big.NewRat(1, 1), c)
}

// Holds reports whether the predicate a_π(r) ≥ ε·λ(r) of Lemma 1 holds at
// rank r, in exact arithmetic.
func (e *Exact) Holds(r int) bool {
	lhs := new(big.Rat).Mul(e.Keys[e.Order[r-1]], e.C(r))
	rhs := new(big.Rat).Mul(e.Eps, e.Prefix[r])
	return lhs.Cmp(rhs) >= 0
}

// LambdaAt returns λ(r) = S(r)/(1 − (n − r)ε).
func (e *Exact) LambdaAt(r int) *big.Rat {
	return new(big.Rat).Quo(e.Prefix[r], e.C(r))
}

// lambdaAt is LambdaAt, read only: Lambda itself at the exact ρ, which
// Verify asks for at every u (a quotient reduced by a greatest common
// divisor each time).
func (e *Exact) lambdaAt(r int) *big.Rat {
	if r == e.Rho && e.Lambda != nil {
		return e.Lambda
	}
	return e.LambdaAt(r)
}

// ProbAt returns the exact p of item i when ρ is rho: a_i/λ(ρ) for ranks up to
// rho, ε beyond, and 1/n when all keys are 0.
func (e *Exact) ProbAt(i, rho int) *big.Rat {
	if rho == e.Rho && e.P != nil {
		return new(big.Rat).Set(e.P[i])
	}
	if e.AllZero {
		return e.probWith(i, rho, nil)
	}
	return e.probWith(i, rho, e.lambdaAt(rho))
}

// probWith is ProbAt with lam = λ(rho) given (unused when AllZero).
func (e *Exact) probWith(i, rho int, lam *big.Rat) *big.Rat {
	if e.AllZero {
		return big.NewRat(1, int64(e.N))
	}
	if e.Rank[i] <= rho {
		return new(big.Rat).Quo(e.Keys[i], lam)
	}
	return new(big.Rat).Set(e.Eps)
}

// Interval returns the exact interval [lo, hi) of u that Algorithm 4 maps to
// item i when ρ is rho.
func (e *Exact) Interval(i, rho int) (lo, hi *big.Rat) {
	r := e.Rank[i]
	if e.AllZero {
		return big.NewRat(int64(r-1), int64(e.N)), big.NewRat(int64(r), int64(e.N))
	}
	if r <= rho {
		lam := e.lambdaAt(rho)
		return new(big.Rat).Quo(e.Prefix[r-1], lam), new(big.Rat).Quo(e.Prefix[r], lam)
	}
	// Ranks n, n−1, …, ρ+1 take consecutive slices of width ε after c(ρ).
	lo = new(big.Rat).Mul(big.NewRat(int64(e.N-r), 1), e.Eps)
	lo.Add(lo, e.C(rho))
	return lo, new(big.Rat).Add(lo, e.Eps)
}

// Distance returns how far u lies from the interval [lo, hi): 0 inside.
func Distance(u float64, lo, hi *big.Rat) float64 {
	switch x := new(big.Rat).SetFloat64(u); {
	case x.Cmp(lo) < 0:
		return ratFloat(x.Sub(lo, x))
	case x.Cmp(hi) >= 0:
		return ratFloat(x.Sub(x, hi))
	}
	return 0
}

// unitsRat sets z to x units of 2^-1074, a fraction in lowest terms made
// without a greatest common divisor (its denominator is a power of two),
// and returns z.
func unitsRat(z *big.Rat, x *big.Int) *big.Rat {
	k := min(x.TrailingZeroBits(), 1074)
	if x.Sign() == 0 {
		k = 1074
	}
	z.SetInt(new(big.Int).Rsh(x, k))
	// Denom is a reference to z's denominator, 1 after SetInt: with the
	// numerator odd or the denominator 1, the fraction is in lowest terms.
	z.Denom().Lsh(big.NewInt(1), 1074-k)
	return z
}

func ratFloat(x *big.Rat) float64 {
	f, _ := x.Float64()
	return f
}
