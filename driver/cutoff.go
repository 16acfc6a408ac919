package driver

import "math"

// Cutoff is the predicate of Lemma 1 for one bound ε, decided exactly: a
// backend's Cut calls Holds at the ranks of its descent.
type Cutoff struct {
	n       int
	eps     float64 // 0 < ε ≤ 1/n
	uniform bool    // ε is read as exactly 1/n
	top     float64 // when uniform, the largest key
	// slack is 1 + (D + 8)·2^-52, D the index's SumDepth: the relative gap
	// between the two float sides beyond which the rounding of the sums and
	// products cannot change the answer.
	slack float64
	ix    Index // for the exact decision
	// run holds the exact sum of the largest keys the last exact decision
	// needed, so that the next one, at another rank of the same descent,
	// walks only the ranks in between: O(n) per descent, not O(ρ) per
	// decision. Made at the first exact decision; a Cut's copy of the
	// Cutoff keeps it across the descent.
	run *exactRun
}

// exactRun is the exact sum of the keys of ranks 1, …, at.
type exactRun struct {
	acc      exactSum
	at       int
	add, sub func(int, float64) // bound once to acc
}

// Eps returns ε.
func (c *Cutoff) Eps() float64 { return c.eps }

// Uniform reports whether ε is read as exactly 1/n.
func (c *Cutoff) Uniform() bool { return c.uniform }

// Holds reports whether a·(1 − (n − r)ε) ≥ ε·S(r) in exact arithmetic, for
// the key a of rank r and s, the backend's float sum of the r largest keys.
func (c *Cutoff) Holds(a, s float64, r int) bool {
	if c.uniform {
		// a·r ≥ S(r) exactly when the r largest keys are equal.
		return a == c.top
	}
	l := a * math.FMA(-float64(c.n-r), c.eps, 1)
	q := c.eps * s
	if q > 0x1p-960 {
		// Both sides carry a relative error below slack − 1, and an
		// underflowed l an absolute one far below q's.
		if l > q*c.slack {
			return true
		}
		if l*c.slack < q {
			return false
		}
	}
	return c.decide(a, s, r)
}

// decide is Holds where the plain products may have underflowed or are too
// close to call: mantissas and exponents apart first, then exactly.
func (c *Cutoff) decide(a, s float64, r int) bool {
	if a == 0 {
		return s == 0 // ε > 0: 0 ≥ ε·S only when S = 0
	}
	m1, e1 := mulExp(a, math.FMA(-float64(c.n-r), c.eps, 1))
	m2, e2 := mulExp(c.eps, s)
	switch d := e1 - e2; {
	case d >= 2:
		return true
	case d <= -2:
		return false
	default:
		x := math.Ldexp(m1, d) // exact: m1 in [0.5, 1), d in {−1, 0, 1}
		if x > m2*c.slack {
			return true
		}
		if x*c.slack < m2 {
			return false
		}
	}
	return c.exact(a, r)
}

// exact decides the predicate from the exact sum of the r largest keys,
// moved to rank r from where the last exact decision left it.
func (c *Cutoff) exact(a float64, r int) bool {
	x := c.run
	if x == nil {
		x = new(exactRun)
		x.add = func(_ int, k float64) { x.acc.Add(k) }
		x.sub = func(_ int, k float64) { x.acc.Sub(k) }
		c.run = x
	}
	switch {
	case r > x.at:
		c.ix.Walk(x.at+1, r, x.add)
	case r < x.at-r:
		// Summing afresh walks fewer keys than stepping back.
		x.acc.Reset()
		c.ix.Walk(1, r, x.add)
	case r < x.at:
		c.ix.Walk(r+1, x.at, x.sub)
	}
	x.at = r
	s := scratchPool.Get().(*scratch)
	defer scratchPool.Put(s)
	return s.holdsExact(a, c.eps, c.n-r, &x.acc)
}

// mulExp returns m in [0.5, 1) and e with x·y = m·2^e up to one rounding,
// for positive finite x and y: no underflow or overflow whatever their
// exponents.
func mulExp(x, y float64) (float64, int) {
	mx, ex := math.Frexp(x)
	my, ey := math.Frexp(y)
	m, e := math.Frexp(mx * my)
	return m, ex + ey + e
}
