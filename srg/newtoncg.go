package srg

import "math"

// cgMaxIter caps the conjugate-gradient iterations of one Newton step. A
// capped solve still returns a descent direction (every CG iterate from 0
// is one), and the Newton iteration goes on from where it leads.
const cgMaxIter = 1000

// cgSystem solves the Newton systems (∇²F(x) + λI)s = g by conjugate
// gradients preconditioned with the diagonal of ∇²F(x), on
// Hessian-vector products
//
//	∇²F(x)v = (1/n) Σ φ_i”(a_iᵀx)·a_i(a_iᵀv) + μv,
//
// one pass over the sparse rows each: O(nnz + d) time and O(n + d) memory.
type cgSystem struct {
	p        *Problem
	w        []float64 // φ_i”(a_iᵀx)/n
	diag     []float64 // the diagonal of ∇²F(x)
	s, r, z  []float64
	q, hq    []float64
	products int
}

func newCGSystem(p *Problem) *cgSystem {
	d := p.Dim()
	return &cgSystem{
		p: p, w: make([]float64, p.Len()), diag: make([]float64, d),
		s: make([]float64, d), r: make([]float64, d), z: make([]float64, d),
		q: make([]float64, d), hq: make([]float64, d),
	}
}

func (c *cgSystem) at(x []float64) {
	p, nf := c.p, float64(c.p.Len())
	clear(c.diag)
	for i := range c.w {
		idx, val := p.Rows.Row(i)
		var t float64
		for k, j := range idx {
			t += val[k] * x[j]
		}
		wi := p.curv(i, t) / nf
		c.w[i] = wi
		for k, j := range idx {
			c.diag[j] += wi * val[k] * val[k]
		}
	}
	for j := range c.diag {
		c.diag[j] += p.Mu
	}
}

// hessVec sets out = (∇²F(x) + λI)v.
func (c *cgSystem) hessVec(lambda float64, v, out []float64) {
	p := c.p
	m := p.Mu + lambda
	for j := range out {
		out[j] = m * v[j]
	}
	for i, wi := range c.w {
		if wi == 0 {
			continue
		}
		idx, val := p.Rows.Row(i)
		var t float64
		for k, j := range idx {
			t += val[k] * v[j]
		}
		t *= wi
		for k, j := range idx {
			out[j] += t * val[k]
		}
	}
	c.products++
}

// step solves to a relative residual η = min(1/2, √(‖g‖/‖g0‖)), the
// forcing term that makes truncated Newton converge superlinearly (Eisenstat
// and Walker 1996; Nocedal and Wright, Algorithm 7.1).
func (c *cgSystem) step(lambda float64, g []float64, gnorm, g0 float64) ([]float64, bool) {
	target := math.Min(0.5, math.Sqrt(gnorm/g0)) * gnorm
	s, r, z, q, hq := c.s, c.r, c.z, c.q, c.hq
	clear(s)
	copy(r, g)
	c.precondition(lambda, r, z)
	copy(q, z)
	rz := dot(r, z)
	for k := range cgMaxIter {
		c.hessVec(lambda, q, hq)
		qhq := dot(q, hq)
		if !(qhq > 0) {
			// Not numerically positive definite along q.
			if k == 0 {
				return nil, false
			}
			break
		}
		a := rz / qhq
		for j := range s {
			s[j] += a * q[j]
			r[j] -= a * hq[j]
		}
		if math.Sqrt(dot(r, r)) <= target {
			break
		}
		c.precondition(lambda, r, z)
		rzNew := dot(r, z)
		beta := rzNew / rz
		rz = rzNew
		for j := range q {
			q[j] = z[j] + beta*q[j]
		}
	}
	return s, true
}

// precondition sets z = D⁻¹r, D the diagonal of ∇²F(x) + λI (1 where it is
// 0: a feature no row holds, with μ = λ = 0).
func (c *cgSystem) precondition(lambda float64, r, z []float64) {
	for j, dj := range c.diag {
		if dj += lambda; dj > 0 {
			z[j] = r[j] / dj
		} else {
			z[j] = r[j]
		}
	}
}

func (c *cgSystem) hessVecs() int { return c.products }
