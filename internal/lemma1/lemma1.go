// Package lemma1 holds the floating-point arithmetic of Lemma 1 and
// Algorithm 4 that every backend shares: input checks, the predicate
// a_π(r) ≥ ε·λ(r) evaluated without underflow or overflow, λ, p* and the
// mapping of u to a rank in the ε region.
//
// Backends differ only in how they find ranks and partial sums; keeping the
// arithmetic here means a numerical fix lands in all of them at once. The
// exact reference (package samplertest) shares none of this code.
package lemma1

import (
	"fmt"
	"math"

	"github.com/reweighted/reweighted"
)

// CheckKey validates a key for Set and returns it with −0 turned into 0.
func CheckKey(a float64) (float64, error) {
	if math.IsNaN(a) || math.IsInf(a, 0) || a < 0 {
		return 0, fmt.Errorf("%w: %v", reweighted.ErrKey, a)
	}
	if a > reweighted.MaxSum {
		return 0, fmt.Errorf("%w: %v exceeds MaxSum", reweighted.ErrKey, a)
	}
	return a + 0, nil // a + 0 turns −0 into +0
}

// CheckSum reports ErrKey when replacing old by a would push total above
// MaxSum. total is the current sum of all keys as the backend keeps it, so
// the test is exact up to the rounding of that sum (a relative 2^-52 or so,
// immaterial next to MaxSum's distance from overflow).
func CheckSum(total, old, a float64) error {
	if a > old && (total-old)+a > reweighted.MaxSum {
		return fmt.Errorf("%w: key %v would make the sum of keys exceed MaxSum", reweighted.ErrKey, a)
	}
	return nil
}

// CheckIndex reports ErrIndex unless 0 ≤ i < n.
func CheckIndex(i, n int) error {
	if i < 0 || i >= n {
		return fmt.Errorf("%w: %d not in [0, %d)", reweighted.ErrIndex, i, n)
	}
	return nil
}

// CheckU reports ErrUniform unless 0 ≤ u < 1.
func CheckU(u float64) error {
	if !(u >= 0 && u < 1) {
		return fmt.Errorf("%w: %v not in [0, 1)", reweighted.ErrUniform, u)
	}
	return nil
}

// Bound is a validated lower bound ε for n items.
type Bound struct {
	n       int
	eps     float64
	uniform bool // ε == 1/float64(n), read as exactly 1/n
}

// NewBound validates ε for n items: ErrEmpty if n = 0, ErrEpsilon unless
// 0 ≤ ε ≤ 1/float64(n).
func NewBound(n int, eps float64) (Bound, error) {
	if n == 0 {
		return Bound{}, reweighted.ErrEmpty
	}
	max := 1 / float64(n)
	if !(eps >= 0 && eps <= max) {
		return Bound{}, fmt.Errorf("%w: %v not in [0, 1/%d]", reweighted.ErrEpsilon, eps, n)
	}
	return Bound{n: n, eps: eps, uniform: eps == max}, nil
}

// Eps returns ε, the probability of every item of rank above ρ.
func (b Bound) Eps() float64 { return b.eps }

// Uniform reports whether ε is read as exactly 1/n.
func (b Bound) Uniform() bool { return b.uniform }

// C returns 1 − (n − r)ε, the mass left to the r largest keys.
func (b Bound) C(r int) float64 {
	if b.uniform {
		return float64(r) / float64(b.n)
	}
	// One rounding: FMA computes 1 − (n−r)ε exactly before rounding, which
	// matters when (n−r)ε is close to 1 and the difference is small.
	return math.FMA(-float64(b.n-r), b.eps, 1)
}

// Holds reports whether a ≥ ε·λ(r), that is a·(1 − (n−r)ε) ≥ ε·s, for the key
// a at rank r and the sum s of the r largest keys.
func (b Bound) Holds(a, s float64, r int) bool {
	if b.uniform {
		// With ε = 1/n exactly: a·r/n ≥ s/n.
		return productGE(a, float64(r), s, 1)
	}
	return productGE(a, b.C(r), b.eps, s)
}

// productGE reports whether x1·y1 ≥ x2·y2 for finite non-negative operands.
// The products are formed from the mantissas, with the exponents added
// apart, so that neither side can underflow or overflow.
func productGE(x1, y1, x2, y2 float64) bool {
	if x1 == 0 || y1 == 0 {
		return x2 == 0 || y2 == 0
	}
	if x2 == 0 || y2 == 0 {
		return true
	}
	// Where both products are normal floats, each is rounded once exactly as
	// mulExp's mantissa product is, so the plain comparison gives the same
	// answer at a fraction of the cost.
	if p1, p2 := x1*y1, x2*y2; p1 > 0x1p-1000 && p1 < 0x1p1000 && p2 > 0x1p-1000 && p2 < 0x1p1000 {
		return p1 >= p2
	}
	m1, e1 := mulExp(x1, y1)
	m2, e2 := mulExp(x2, y2)
	if e1 != e2 {
		return e1 > e2
	}
	return m1 >= m2
}

// mulExp returns m in [0.5, 1) and e with x·y ≈ m·2^e (one rounding).
func mulExp(x, y float64) (float64, int) {
	mx, ex := math.Frexp(x)
	my, ey := math.Frexp(y)
	m, e := math.Frexp(mx * my)
	return m, ex + ey + e
}

// Lambda returns λ(r) = s/(1 − (n − r)ε).
func (b Bound) Lambda(s float64, r int) float64 {
	if b.uniform {
		return s * float64(b.n) / float64(r)
	}
	return s / b.C(r)
}

// Prob returns p* of the item with key a when its rank is at most ρ and s is
// the sum of the ρ largest keys (s > 0). Dividing a by s first keeps full
// relative precision even when λ itself would be subnormal.
func (b Bound) Prob(a, s float64, rho int) float64 {
	return a / s * b.C(rho)
}

// UniformProb is p* of every item when all keys are 0, and under ε = 1/n.
func (b Bound) UniformProb() float64 { return 1 / float64(b.n) }

// UniformRank returns the rank, in [1, n], that u selects when all keys are 0.
func (b Bound) UniformRank(u float64) int {
	r := int(u*float64(b.n)) + 1
	return min(r, b.n)
}

// Head reports whether u falls in the part of [0, 1) shared by the ρ largest
// keys (u < 1 − (n − ρ)ε). If so it returns the target t and the scale: the
// item drawn is the one of smallest rank whose partial sum times scale
// exceeds t. s is the sum of the ρ largest keys. The scale, a power of two,
// lifts tiny sums so that t keeps full precision.
//
// If u is in the ε region, Head returns false and rank the rank drawn there,
// kept in [ρ+1, n].
func (b Bound) Head(u, s float64, rho int) (head bool, t, scale float64, rank int) {
	c := b.C(rho)
	if u < c {
		scale = 1
		if s < 0x1p-500 {
			// Lift s to at least 2^-74: normal, with room for n of them.
			_, e := math.Frexp(s)
			scale = math.Ldexp(1, min(-e, 1000))
		}
		return true, u / c * (s * scale), scale, 0
	}
	q := (u - c) / b.eps // the number of whole ε slices below u
	if q >= float64(b.n-rho-1) {
		return false, 0, 0, rho + 1
	}
	return false, 0, 0, b.n - int(q)
}
