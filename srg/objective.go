package srg

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// Rows is a design matrix with one sparse row per example. Indices are
// 0-based and below Dim. *libsvm.Dataset satisfies it.
type Rows interface {
	Len() int
	Dim() int
	// Row returns the feature indices and values of example i. The caller
	// must not modify them.
	Row(i int) ([]int32, []float64)
}

// Loss selects the per-example loss φ_i of a generalised linear model.
type Loss int

const (
	// Logistic is φ_i(t) = log(1 + exp(−y_i t)) with labels y_i in {−1, +1};
	// it is 0.25‖a_i‖²-smooth.
	Logistic Loss = iota
	// Squared is φ_i(t) = (t − y_i)²/2; it is ‖a_i‖²-smooth.
	Squared
)

func (l Loss) String() string {
	switch l {
	case Logistic:
		return "logistic"
	case Squared:
		return "squared"
	}
	return fmt.Sprintf("Loss(%d)", int(l))
}

// Problem is the finite sum F(x) = (1/n) Σ f_i(x) of a generalised linear
// model with ℓ2 regularisation,
//
//	f_i(x) = φ_i(a_iᵀx) + (μ/2)‖x‖²,   ∇f_i(x) = φ_i'(a_iᵀx)·a_i + μx.
//
// Every per-example gradient is a multiple of the sparse row a_i plus μx, so
// an optimiser that keeps x in scaled form, x = s·v, pays O(nnz(a_i)) per
// gradient, and ‖∇f_i(x)‖ follows from a_iᵀx, ‖a_i‖² and ‖x‖² in O(1).
type Problem struct {
	// Rows holds the examples a_i, one sparse row each.
	Rows Rows
	// Y holds the labels (Logistic, in {−1, +1}) or targets (Squared).
	Y []float64
	// Loss is the per-example loss φ_i.
	Loss Loss
	// Mu is the ℓ2 regularisation μ ≥ 0.
	Mu    float64
	rowSq []float64 // ‖a_i‖²
}

// NewProblem checks the shapes and values (a NaN or infinite label or
// feature is an error) and precomputes the squared row norms.
func NewProblem(rows Rows, y []float64, loss Loss, mu float64) (*Problem, error) {
	n := rows.Len()
	if len(y) != n {
		return nil, fmt.Errorf("srg: %d labels for %d rows", len(y), n)
	}
	if n == 0 || rows.Dim() == 0 {
		return nil, errors.New("srg: empty problem")
	}
	if !(mu >= 0) || math.IsInf(mu, 0) {
		return nil, fmt.Errorf("srg: μ = %v", mu)
	}
	if loss != Logistic && loss != Squared {
		return nil, fmt.Errorf("srg: unknown loss %v", loss)
	}
	for i, v := range y {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("srg: label y[%d] = %v", i, v)
		}
	}
	if loss == Logistic {
		for i, v := range y {
			if v != 1 && v != -1 {
				return nil, fmt.Errorf("srg: logistic label y[%d] = %v, want ±1", i, v)
			}
		}
	}
	p := &Problem{Rows: rows, Y: y, Loss: loss, Mu: mu, rowSq: make([]float64, n)}
	for i := range n {
		idx, v := rows.Row(i)
		var s float64
		for k, a := range v {
			if math.IsNaN(a) || math.IsInf(a, 0) {
				return nil, fmt.Errorf("srg: feature %d of row %d = %v", idx[k], i, a)
			}
			s += a * a
		}
		p.rowSq[i] = s
	}
	return p, nil
}

// Len returns n, the number of examples.
func (p *Problem) Len() int { return p.Rows.Len() }

// Dim returns d, the dimension of x.
func (p *Problem) Dim() int { return p.Rows.Dim() }

// deriv returns φ_i'(t).
func (p *Problem) deriv(i int, t float64) float64 {
	y := p.Y[i]
	if p.Loss == Squared {
		return t - y
	}
	// −y·σ(−yt) = −y/(1 + exp(yt)); exp overflows to +Inf harmlessly.
	return -y / (1 + math.Exp(y*t))
}

// curv returns φ_i”(t).
func (p *Problem) curv(i int, t float64) float64 {
	if p.Loss == Squared {
		return 1
	}
	s := 1 / (1 + math.Exp(-p.Y[i]*t))
	return s * (1 - s)
}

// loss returns φ_i(t).
func (p *Problem) loss(i int, t float64) float64 {
	if p.Loss == Squared {
		r := t - p.Y[i]
		return r * r / 2
	}
	z := p.Y[i] * t // log(1+exp(−z)), stable for both signs of z
	return math.Log1p(math.Exp(-math.Abs(z))) + math.Max(-z, 0)
}

// margin returns a_iᵀx for a dense x.
func (p *Problem) margin(i int, x []float64) float64 {
	idx, val := p.Rows.Row(i)
	var s float64
	for k, j := range idx {
		s += val[k] * x[j]
	}
	return s
}

// gradNorm returns ‖c·a_i + μx‖ from c, t = a_iᵀx and sq = ‖x‖².
func (p *Problem) gradNorm(i int, c, t, sq float64) float64 {
	if p.Mu == 0 {
		return math.Abs(c) * math.Sqrt(p.rowSq[i])
	}
	v := c*c*p.rowSq[i] + p.Mu*(2*c*t+p.Mu*sq)
	return math.Sqrt(math.Max(v, 0))
}

// Grad writes ∇f_i(x) into g (len d).
func (p *Problem) Grad(i int, x, g []float64) {
	c := p.deriv(i, p.margin(i, x))
	for j := range g {
		g[j] = p.Mu * x[j]
	}
	idx, val := p.Rows.Row(i)
	for k, j := range idx {
		g[j] += c * val[k]
	}
}

// FullGrad writes ∇F(x) into g and returns the number of per-example
// gradients it evaluated (n). Sums are compensated (Neumaier), so that x* can
// be certified to a gradient norm near 1e-12.
func (p *Problem) FullGrad(x, g []float64) int {
	n := p.Len()
	comp := make([]float64, len(g))
	clear(g)
	for i := range n {
		c := p.deriv(i, p.margin(i, x)) / float64(n)
		idx, val := p.Rows.Row(i)
		for k, j := range idx {
			g[j], comp[j] = twoSum(g[j], c*val[k], comp[j])
		}
	}
	for j := range g {
		g[j] += comp[j] + p.Mu*x[j]
	}
	return n
}

// twoSum adds b to the running sum s with compensation c (Neumaier).
func twoSum(s, b, c float64) (float64, float64) {
	t := s + b
	if math.Abs(s) >= math.Abs(b) {
		c += (s - t) + b
	} else {
		c += (b - t) + s
	}
	return t, c
}

// Value returns F(x).
func (p *Problem) Value(x []float64) float64 {
	var s, c float64
	for i := range p.Len() {
		s, c = twoSum(s, p.loss(i, p.margin(i, x)), c)
	}
	return (s+c)/float64(p.Len()) + p.Mu/2*dot(x, x)
}

// GradNorms returns ‖∇f_i(x)‖ for every example.
func (p *Problem) GradNorms(x []float64) []float64 {
	sq := dot(x, x)
	out := make([]float64, p.Len())
	for i := range out {
		t := p.margin(i, x)
		out[i] = p.gradNorm(i, p.deriv(i, t), t, sq)
	}
	return out
}

// Lmax returns max_i L_i, the largest smoothness constant of the f_i.
func (p *Problem) Lmax() float64 {
	m := 0.0
	for _, s := range p.rowSq {
		m = math.Max(m, s)
	}
	return p.curvBound()*m + p.Mu
}

// curvBound is sup φ_i”.
func (p *Problem) curvBound() float64 {
	if p.Loss == Logistic {
		return 0.25
	}
	return 1
}

// L returns the smoothness constant of F: sup φ”·λ_max(AᵀA/n) + μ, with the
// eigenvalue computed exactly from the d×d Gram matrix.
func (p *Problem) L() float64 {
	w := make([]float64, p.Len())
	for i := range w {
		w[i] = 1
	}
	h := p.gram(w)
	var eig mat.EigenSym
	if !eig.Factorize(h, false) {
		// Fall back to the always-valid bound.
		return p.Lmax()
	}
	vals := eig.Values(nil)
	return p.curvBound()*vals[len(vals)-1] + p.Mu
}

// StrongConvexity returns a strong-convexity constant of F: μ plus, for
// least squares, λ_min(AᵀA/n) (the logistic loss has no positive lower bound
// on its curvature).
func (p *Problem) StrongConvexity() float64 {
	if p.Loss == Logistic {
		return p.Mu
	}
	w := make([]float64, p.Len())
	for i := range w {
		w[i] = 1
	}
	var eig mat.EigenSym
	if !eig.Factorize(p.gram(w), false) {
		return p.Mu
	}
	return math.Max(eig.Values(nil)[0], 0) + p.Mu
}

// gram returns (1/n) Σ w_i a_i a_iᵀ as a dense symmetric matrix.
func (p *Problem) gram(w []float64) *mat.SymDense {
	d, n := p.Dim(), p.Len()
	h := make([]float64, d*d)
	for i := range n {
		idx, val := p.Rows.Row(i)
		wi := w[i] / float64(n)
		for k, j := range idx {
			vj := wi * val[k]
			row := h[int(j)*d:]
			for l := k; l < len(idx); l++ {
				row[idx[l]] += vj * val[l]
			}
		}
	}
	// Rows are sorted by index, so only the upper triangle was filled;
	// SymDense reads only that triangle.
	return mat.NewSymDense(d, h)
}

// Solution is the minimiser x* of a Problem and how well it is certified.
type Solution struct {
	X []float64
	// GradNorm is ‖∇F(x*)‖ as computed by FullGrad.
	GradNorm float64
	// Iterations counts Newton steps.
	Iterations int
}

// Solve minimises F by Newton's method with a backtracking line search (for
// least squares the first step is exact and the others refine it), until
// ‖∇F‖ ≤ tol or no step decreases ‖∇F‖ any more. It fails if F has no
// unique minimiser (singular Hessian) or ‖∇F‖ stays above 1e3·tol.
func (p *Problem) Solve(tol float64) (Solution, error) {
	d, n := p.Dim(), p.Len()
	x := make([]float64, d)
	g := make([]float64, d)
	xn := make([]float64, d)
	gn := make([]float64, d)
	w := make([]float64, n)
	p.FullGrad(x, g)
	gnorm := math.Sqrt(dot(g, g))
	f := p.Value(x)
	it := 0
	for ; it < 200 && gnorm > tol; it++ {
		for i := range w {
			w[i] = p.curv(i, p.margin(i, x))
		}
		h := p.gram(w)
		for j := range d {
			h.SetSym(j, j, h.At(j, j)+p.Mu)
		}
		var ch mat.Cholesky
		if !ch.Factorize(h) {
			return Solution{}, errors.New("srg: Hessian is singular; F has no unique minimiser")
		}
		var step mat.VecDense
		if err := ch.SolveVecTo(&step, mat.NewVecDense(d, append([]float64(nil), g...))); err != nil {
			return Solution{}, fmt.Errorf("srg: Newton step: %w", err)
		}
		// Backtrack on F while far from x*; near x* F is flat to rounding,
		// so accept the full step if it decreases ‖∇F‖ instead.
		improved := false
		for t := 1.0; t > 1e-10; t /= 2 {
			for j := range x {
				xn[j] = x[j] - t*step.AtVec(j)
			}
			fn := p.Value(xn)
			p.FullGrad(xn, gn)
			gnn := math.Sqrt(dot(gn, gn))
			if fn < f-1e-4*t*dot(g, step.RawVector().Data) || gnn < gnorm {
				copy(x, xn)
				copy(g, gn)
				f, gnorm = fn, gnn
				improved = true
				break
			}
		}
		if !improved {
			break
		}
	}
	sol := Solution{X: x, GradNorm: gnorm, Iterations: it}
	if !(gnorm <= 1e3*tol) { // also a NaN gradient
		return sol, fmt.Errorf("srg: Newton stopped at ‖∇F‖ = %v > %v", gnorm, 1e3*tol)
	}
	return sol, nil
}

func dot(a, b []float64) float64 {
	var s float64
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}

// Variance returns σ²(x, p) = (1/n²) Σ a_i²/p_i for gradient norms a_i and a
// sampling distribution p; terms with a_i = 0 count 0 even where p_i = 0.
func Variance(norms, p []float64) float64 {
	n := float64(len(norms))
	var s float64
	for i, a := range norms {
		if a != 0 {
			s += a * a / p[i]
		}
	}
	return s / (n * n)
}

// UniformVariance returns σ² = σ²(x, 1/n) = (1/n) Σ a_i².
func UniformVariance(norms []float64) float64 {
	var s float64
	for _, a := range norms {
		s += a * a
	}
	return s / float64(len(norms))
}
