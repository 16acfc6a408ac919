package proofs

import (
	"errors"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/integrate/quad"
	"gonum.org/v1/gonum/mat"
)

// problem is F(x) = (1/n)Σ f_i(x) with ℓ2-regularised least-squares or
// logistic components, f_i(x) = ℓ(a_iᵀx; b_i) + (reg/2)‖x‖². Labels of
// the logistic loss are ±1 (see the errata on {0, 1}).
type problem struct {
	logistic bool
	n, d     int
	a        []float64 // n×d features, row-major
	b        []float64 // targets, or labels ±1
	reg      float64
	l, mu    float64   // smoothness of every f_i, strong convexity of F
	xs       []float64 // x*
	gs       []float64 // ∇f_i(x*), n×d
	gsNorm   []float64 // ‖∇f_i(x*)‖
	sigma2   float64   // σ*² = (1/n²)(Σ‖∇f_i(x*)‖)²
}

func (p *problem) row(i int) []float64 { return p.a[i*p.d : (i+1)*p.d] }

func dot(x, y []float64) float64 {
	s := 0.0
	for i := range x {
		s += x[i] * y[i]
	}
	return s
}

func sqDist(x, y []float64) float64 {
	s := 0.0
	for i := range x {
		t := x[i] - y[i]
		s += t * t
	}
	return s
}

func sigmoid(t float64) float64 {
	if t >= 0 {
		return 1 / (1 + math.Exp(-t))
	}
	e := math.Exp(t)
	return e / (1 + e)
}

// grad writes ∇f_i(x) into out.
func (p *problem) grad(i int, x, out []float64) {
	ai := p.row(i)
	t := dot(ai, x)
	var s float64
	if p.logistic {
		s = -p.b[i] * sigmoid(-p.b[i]*t)
	} else {
		s = t - p.b[i]
	}
	for j := range out {
		out[j] = s*ai[j] + p.reg*x[j]
	}
}

// gradF writes ∇F(x) into out.
func (p *problem) gradF(x, out []float64) {
	g := make([]float64, p.d)
	clear(out)
	for i := range p.n {
		p.grad(i, x, g)
		for j := range out {
			out[j] += g[j] / float64(p.n)
		}
	}
}

// bregman returns f_i(x) − f_i(y) − ⟨∇f_i(y), x − y⟩ (i ≥ 0), or the same
// for F (i < 0), as ∫_0^1 ⟨∇f(y + s(x−y)) − ∇f(y), x − y⟩ ds by 24-point
// Gauss–Legendre quadrature. Unlike the difference of function values, this
// keeps full relative accuracy when x is close to y; it is exact for the
// least-squares loss and accurate to rounding for the analytic logistic one.
func (p *problem) bregman(i int, x, y []float64) float64 {
	v := make([]float64, p.d)
	for j := range v {
		v[j] = x[j] - y[j]
	}
	gy := make([]float64, p.d)
	g := make([]float64, p.d)
	z := make([]float64, p.d)
	gradAt := func(at, out []float64) {
		if i >= 0 {
			p.grad(i, at, out)
		} else {
			p.gradF(at, out)
		}
	}
	gradAt(y, gy)
	return quad.Fixed(func(s float64) float64 {
		for j := range z {
			z[j] = y[j] + s*v[j]
		}
		gradAt(z, g)
		t := 0.0
		for j := range g {
			t += (g[j] - gy[j]) * v[j]
		}
		return t
	}, 0, 1, 24, nil, 0)
}

// gap returns F(x) − F(x*): the Bregman divergence of F at x* plus the
// first-order term ⟨∇F(x*), x − x*⟩, which Newton left below 1e-12.
func (p *problem) gap(x []float64) float64 {
	g := make([]float64, p.d)
	p.gradF(p.xs, g)
	v := make([]float64, p.d)
	for j := range v {
		v[j] = x[j] - p.xs[j]
	}
	return p.bregman(-1, x, p.xs) + dot(g, v)
}

// hessian returns ∇²F(x).
func (p *problem) hessian(x []float64) *mat.SymDense {
	h := mat.NewSymDense(p.d, nil)
	for i := range p.n {
		ai := p.row(i)
		w := 1.0
		if p.logistic {
			s := sigmoid(p.b[i] * dot(ai, x))
			w = s * (1 - s)
		}
		h.SymRankOne(h, w/float64(p.n), mat.NewVecDense(p.d, ai))
	}
	for j := range p.d {
		h.SetSym(j, j, h.At(j, j)+p.reg)
	}
	return h
}

var errNewton = errors.New("proofs: Newton did not reach ‖∇F‖ ≤ 1e-12")

// newProblem draws a problem with n components in dimension d: Gaussian
// features with row norms spread over two orders of magnitude (so that
// importance sampling matters), and x* solved by Newton's method to
// ‖∇F(x*)‖ ≤ 1e-12.
func newProblem(r *rand.Rand, logistic bool, n, d int) (*problem, error) {
	p := &problem{logistic: logistic, n: n, d: d, a: make([]float64, n*d), b: make([]float64, n)}
	w := make([]float64, d)
	for j := range w {
		w[j] = r.NormFloat64()
	}
	maxRow := 0.0
	for i := range n {
		s := math.Exp(1.2 * r.NormFloat64())
		ai := p.row(i)
		for j := range ai {
			ai[j] = s * r.NormFloat64()
		}
		norm := dot(ai, ai)
		if logistic {
			p.b[i] = 1
			if dot(ai, w)+r.NormFloat64() < 0 {
				p.b[i] = -1
			}
			norm /= 4
		} else {
			// Heavy-tailed noise makes σ² ≫ σ*², as in the paper's
			// synthetic experiment.
			p.b[i] = dot(ai, w) + r.NormFloat64()/math.Max(math.Abs(r.NormFloat64()), 0.05)
		}
		maxRow = math.Max(maxRow, norm)
	}
	p.reg = maxRow * math.Pow(10, -0.5-2.5*r.Float64())
	p.l = maxRow + p.reg
	// Newton's method from 0, with backtracking on ‖∇F‖ for the logistic loss.
	x := make([]float64, d)
	g := make([]float64, d)
	for range 200 {
		p.gradF(x, g)
		gn := math.Sqrt(dot(g, g))
		if gn <= 1e-12 {
			break
		}
		var chol mat.Cholesky
		if !chol.Factorize(p.hessian(x)) {
			return nil, errNewton
		}
		var dx mat.VecDense
		if err := chol.SolveVecTo(&dx, mat.NewVecDense(d, g)); err != nil {
			return nil, err
		}
		next := make([]float64, d)
		for t := 1.0; t > 1e-10; t /= 2 {
			for j := range next {
				next[j] = x[j] - t*dx.AtVec(j)
			}
			p.gradF(next, g)
			if math.Sqrt(dot(g, g)) < gn {
				break
			}
		}
		if sqDist(next, x) == 0 {
			break
		}
		x = next
	}
	p.gradF(x, g)
	if math.Sqrt(dot(g, g)) > 1e-12 {
		return nil, errNewton
	}
	p.xs = x
	// μ: the smallest eigenvalue of the Hessian for least squares (constant),
	// reg for the logistic loss (its data term flattens far from x*).
	p.mu = p.reg
	if !logistic {
		var eig mat.EigenSym
		if eig.Factorize(p.hessian(x), false) {
			p.mu = eig.Values(nil)[0]
		}
	}
	p.gs = make([]float64, n*d)
	p.gsNorm = make([]float64, n)
	sum := 0.0
	for i := range n {
		gi := p.gs[i*d : (i+1)*d]
		p.grad(i, x, gi)
		p.gsNorm[i] = math.Sqrt(dot(gi, gi))
		sum += p.gsNorm[i]
	}
	p.sigma2 = sum * sum / float64(n*n)
	return p, nil
}

// drawProblem draws a least-squares or a logistic problem of modest size.
func drawProblem(r *rand.Rand) (*problem, error) {
	return newProblem(r, r.IntN(2) == 0, 1+r.IntN(12), 1+r.IntN(4))
}

// drawPoint returns x* plus a random direction at a log-uniform distance in
// [1e-3, 1e2], sometimes along one feature row, where inequalities built on
// smoothness are tightest.
func (p *problem) drawPoint(r *rand.Rand) []float64 {
	v := make([]float64, p.d)
	if r.IntN(3) == 0 {
		copy(v, p.row(r.IntN(p.n)))
	} else {
		for j := range v {
			v[j] = r.NormFloat64()
		}
	}
	s := math.Pow(10, -3+5*r.Float64()) / math.Max(math.Sqrt(dot(v, v)), 1e-300)
	x := make([]float64, p.d)
	for j := range x {
		x[j] = p.xs[j] + s*v[j]
	}
	return x
}

// drawTable returns a table g (n×d) of the kind SRG keeps: all zero (g_0),
// exact gradients at x*, gradients at other points, noisy copies of ∇f_i(x*),
// or a mix of stale and fresh rows.
func (p *problem) drawTable(r *rand.Rand) []float64 {
	g := make([]float64, p.n*p.d)
	kind := r.IntN(5)
	y := p.drawPoint(r)
	noise := math.Pow(10, -3+4*r.Float64()) * math.Sqrt(p.sigma2+1e-300)
	for i := range p.n {
		gi := g[i*p.d : (i+1)*p.d]
		k := kind
		if kind == 4 {
			k = r.IntN(4)
		}
		switch k {
		case 0:
			// zero row
		case 1:
			copy(gi, p.gs[i*p.d:(i+1)*p.d])
		case 2:
			p.grad(i, y, gi)
		case 3:
			for j := range gi {
				gi[j] = p.gs[i*p.d+j] + noise*r.NormFloat64()
			}
		}
	}
	return g
}
