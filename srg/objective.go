package srg

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// Rows is a design matrix with one sparse row per example. Indices are
// 0-based, strictly increasing within a row and below Dim. *libsvm.Dataset
// (sparse) and *Dense (dense, from [][]float64 or a gonum matrix) satisfy
// it.
type Rows interface {
	Len() int
	Dim() int
	// Row returns the feature indices and values of example i. The caller
	// must not modify them.
	Row(i int) ([]int32, []float64)
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
	// Y holds the labels (Logistic, in {−1, +1}), the targets (Squared), or
	// whatever a user-defined Loss accepts.
	Y []float64
	// Loss is the per-example loss: φ_i(t) = Loss.Value(t, Y[i]).
	Loss Loss
	// Mu is the ℓ2 regularisation μ ≥ 0.
	Mu    float64
	rowSq []float64 // ‖a_i‖²
}

// ErrInput reports invalid input to srg: a NaN label or feature, a ragged
// dense matrix, a bad loss or option. Errors wrap it; match with errors.Is.
var ErrInput = errors.New("srg: invalid input")

// NewProblem checks the shapes, the loss, the labels (finite, and accepted
// by loss.CheckLabel) and the features (a NaN or infinite one is an error),
// and precomputes the squared row norms.
func NewProblem(rows Rows, y []float64, loss Loss, mu float64) (*Problem, error) {
	if rows == nil {
		return nil, fmt.Errorf("%w: nil rows", ErrInput)
	}
	n := rows.Len()
	if len(y) != n {
		return nil, fmt.Errorf("%w: %d labels for %d rows", ErrInput, len(y), n)
	}
	if n == 0 || rows.Dim() == 0 {
		return nil, fmt.Errorf("%w: empty problem", ErrInput)
	}
	if !(mu >= 0) || math.IsInf(mu, 0) {
		return nil, fmt.Errorf("%w: μ = %v", ErrInput, mu)
	}
	if err := checkLoss(loss, y); err != nil {
		return nil, err
	}
	p := &Problem{Rows: rows, Y: y, Loss: loss, Mu: mu, rowSq: make([]float64, n)}
	for i := range n {
		idx, v := rows.Row(i)
		var s float64
		for k, a := range v {
			if math.IsNaN(a) || math.IsInf(a, 0) {
				return nil, fmt.Errorf("%w: feature %d of row %d = %v", ErrInput, idx[k], i, a)
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
func (p *Problem) deriv(i int, t float64) float64 { return p.Loss.Deriv(t, p.Y[i]) }

// curv returns φ_i”(t).
func (p *Problem) curv(i int, t float64) float64 { return p.Loss.Curv(t, p.Y[i]) }

// loss returns φ_i(t).
func (p *Problem) loss(i int, t float64) float64 { return p.Loss.Value(t, p.Y[i]) }

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
	return normOf(c, t, p.rowSq[i], sq, p.Mu)
}

// normOf returns ‖c·a + μx‖ from c, t = aᵀx, aa = ‖a‖², sq = ‖x‖² and μ:
// the square is c²‖a‖² + μ(2ct + μ‖x‖²).
func normOf(c, t, aa, sq, mu float64) float64 {
	if mu == 0 {
		return math.Abs(c) * math.Sqrt(aa)
	}
	v := c*c*aa + mu*(2*c*t+mu*sq)
	if v <= 0 { // rounding below 0, and −0; NaN stays NaN, as in math.Max(v, 0)
		v = 0
	}
	return math.Sqrt(v)
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

// valueGrad returns F(x) and writes ∇F(x) into g in one pass over the rows,
// with the same arithmetic as Value and FullGrad (so the same bits), using
// comp (len d) as scratch: Newton's line search needs both at every trial
// point, and on a wide set a pass costs cache misses across all of x.
func (p *Problem) valueGrad(x, g, comp []float64) float64 {
	n := p.Len()
	clear(g)
	clear(comp)
	var s, c float64
	for i := range n {
		t := p.margin(i, x)
		s, c = twoSum(s, p.loss(i, t), c)
		ci := p.deriv(i, t) / float64(n)
		idx, val := p.Rows.Row(i)
		for k, j := range idx {
			g[j], comp[j] = twoSum(g[j], ci*val[k], comp[j])
		}
	}
	for j := range g {
		g[j] += comp[j] + p.Mu*x[j]
	}
	return (s+c)/float64(n) + p.Mu/2*dot(x, x)
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
	_, hi := p.Loss.CurvBounds()
	return hi*m + p.Mu
}

// L returns the smoothness constant of F: sup φ”·λ_max(AᵀA/n) + μ, with sup
// φ” from the loss's CurvBounds. Up to DenseMaxDim features the eigenvalue
// is computed exactly from the d×d Gram matrix; above, L is an upper bound
// from the Lanczos method on matrix-vector products (see gramMax), at most
// a few percent above the exact L and below it with probability at most
// 1e-10, so that step sizes taken from it stay stable. L ≤ Lmax always.
func (p *Problem) L() float64 {
	_, hi := p.Loss.CurvBounds()
	if p.Dim() > DenseMaxDim {
		_, top := p.gramMax(nil)
		return math.Min(hi*top+p.Mu, p.Lmax())
	}
	w := make([]float64, p.Len())
	for i := range w {
		w[i] = 1
	}
	vals, ok := eigenvalues(p.gram(w))
	if !ok {
		// Fall back to the always-valid bound.
		return p.Lmax()
	}
	return hi*vals[len(vals)-1] + p.Mu
}

// StrongConvexity returns a strong-convexity constant of F: μ plus
// inf φ”·λ_min(AᵀA/n), with inf φ” from the loss's CurvBounds (1 for least
// squares; 0 for the logistic loss, which has no positive lower bound on its
// curvature). Above DenseMaxDim features it returns μ, a valid constant
// that needs no eigenvalue.
func (p *Problem) StrongConvexity() float64 {
	lo, _ := p.Loss.CurvBounds()
	if lo == 0 || p.Dim() > DenseMaxDim {
		return p.Mu
	}
	w := make([]float64, p.Len())
	for i := range w {
		w[i] = 1
	}
	vals, ok := eigenvalues(p.gram(w))
	if !ok {
		return p.Mu
	}
	return lo*math.Max(vals[0], 0) + p.Mu
}

// eigenvalues returns the eigenvalues of h in ascending order. It scales h
// by a power of two so that its largest entry lies in [0.5, 1): gonum's
// EigenSym (v0.17) panics ("insufficient length of a") when it rescales a
// matrix whose entries are all below about 1e-120 itself, and a problem
// with tiny features has such a Gram matrix. A power of two changes no
// digit of an entry unless it falls below the normal range.
func eigenvalues(h *mat.SymDense) ([]float64, bool) {
	d := h.SymmetricDim()
	var top float64
	for i := range d {
		for j := i; j < d; j++ {
			top = math.Max(top, math.Abs(h.At(i, j)))
		}
	}
	if top == 0 {
		return make([]float64, d), true
	}
	_, e := math.Frexp(top)
	hs := mat.NewSymDense(d, nil)
	for i := range d {
		for j := i; j < d; j++ {
			hs.SetSym(i, j, math.Ldexp(h.At(i, j), -e))
		}
	}
	var eig mat.EigenSym
	if !factorize(&eig, hs) {
		return nil, false
	}
	vals := eig.Values(nil)
	for k := range vals {
		vals[k] = math.Ldexp(vals[k], e)
	}
	return vals, true
}

// factorize is eig.Factorize(h, false), but false where gonum (v0.17)
// panics with "insufficient length of a": its Dsterf rescales a block of
// the tridiagonal form whose entries are all below about 1e-123 with the
// stride of the whole matrix, and such a block remains after the scaling
// above when some entries are tiny against the largest (a row with features
// 1 and 1e-131). Callers fall back to a bound that needs no eigenvalue.
func factorize(eig *mat.EigenSym, h *mat.SymDense) (ok bool) {
	defer func() {
		if r := recover(); r != nil {
			if r != "lapack: insufficient length of a" {
				panic(r)
			}
			ok = false
		}
	}()
	return eig.Factorize(h, false)
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
	// DistBound bounds the distance ‖X − x*‖ to the exact minimiser by
	// GradNorm/μ_F, μ_F the strong-convexity constant of F
	// (StrongConvexity): +Inf where μ_F is 0. A relative error
	// ‖x − X‖²/‖x0 − X‖² measured against X is within a factor
	// (1 ± DistBound/‖x − X‖)² of the one against x*.
	DistBound float64
	// Solver is the method that found X: DenseNewton or NewtonCG.
	Solver Solver
	// Iterations counts Newton steps; HessVecs counts the Hessian-vector
	// products of NewtonCG's inner conjugate-gradient solves (0 for
	// DenseNewton).
	Iterations, HessVecs int
}

// Solver selects how Problem.SolveWith finds x*.
type Solver int

const (
	// Auto is DenseNewton up to DenseMaxDim features and NewtonCG above.
	Auto Solver = iota
	// DenseNewton takes Newton steps with the d×d Hessian and its Cholesky
	// factor: O(d²) memory and O(d³) time per step, and exact steps however
	// ill-conditioned the Hessian, up to the rounding of the factor.
	DenseNewton
	// NewtonCG is truncated Newton: each step solves the Newton system by
	// conjugate gradients on Hessian-vector products over the sparse rows,
	// in O(nnz + d) memory and time per product; no d×d matrix.
	NewtonCG
)

var solverNames = [...]string{"auto", "dense Newton", "Newton-CG"}

func (s Solver) String() string {
	if s >= 0 && int(s) < len(solverNames) {
		return solverNames[s]
	}
	return fmt.Sprintf("Solver(%d)", int(s))
}

// MarshalText implements encoding.TextMarshaler: the solver's name.
func (s Solver) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// DenseMaxDim is the largest dimension d for which Auto solves with
// DenseNewton and L and StrongConvexity use dense eigenvalues. At and below
// it are the paper's four data sets (d ≤ 300), on which the two solvers
// take within 1.4 times as long as each other (dense faster on three) and
// dense Newton certifies x* to a smaller ‖∇F‖; on sparse rows Newton-CG is
// faster at every d (BenchmarkSolve: 2 times at d = 400, 17 at d = 600),
// and above it the d×d matrices grow as 8d² bytes each and d³ time.
const DenseMaxDim = 300

// Solve is SolveWith(tol, Auto).
func (p *Problem) Solve(tol float64) (Solution, error) { return p.SolveWith(tol, Auto) }

// SolveWith minimises F by Newton's method with a backtracking line search,
// until ‖∇F‖ ≤ tol or no step decreases F or ‖∇F‖ any more; solver selects
// how the Newton system is solved (see Solver). For least squares the first
// step is exact (DenseNewton) or nearly so (NewtonCG) and the others refine
// it. Where the Newton step fails — a loss whose curvature vanishes in
// places, such as a Huber or smoothed hinge loss, can make the Hessian
// singular or its model poor far from x* — the step is damped to
// (∇²F + λI)⁻¹∇F, λ raised until the step decreases F (for λ ≥ Lmax it
// always does) and lowered again after each success, so that the last
// steps are Newton steps. SolveWith fails if tol is negative or NaN, if
// solver is unknown, if ‖∇F‖ stays above 1e3·tol, or if the Hessian is
// singular, so that F may have no unique minimiser (add μ > 0): DenseNewton
// checks its Cholesky factor at the result, NewtonCG refuses μ = 0 with more
// features than examples (with μ = 0 and n ≥ d its x* is certified by the
// gradient alone, and DistBound is +Inf).
func (p *Problem) SolveWith(tol float64, solver Solver) (Solution, error) {
	if !(tol >= 0) {
		return Solution{}, fmt.Errorf("srg: Solve tolerance %v, want ≥ 0", tol)
	}
	if solver == Auto {
		solver = DenseNewton
		if p.Dim() > DenseMaxDim {
			solver = NewtonCG
		}
	}
	var sys newtonSystem
	switch solver {
	case DenseNewton:
		sys = &denseSystem{p: p, w: make([]float64, p.Len())}
	case NewtonCG:
		if p.Mu == 0 && p.Dim() > p.Len() {
			// rank(∇²F) ≤ n < d: no unique minimiser, and CG would
			// wander in the null space.
			return Solution{Solver: solver}, errors.New("srg: the Hessian is singular (μ = 0 and more features than examples); F has no unique minimiser")
		}
		sys = newCGSystem(p)
	default:
		return Solution{}, fmt.Errorf("%w: solver %v", ErrInput, solver)
	}
	sol, err := p.newton(tol, sys)
	sol.Solver = solver
	if mu := p.StrongConvexity(); mu > 0 {
		sol.DistBound = sol.GradNorm / mu
	} else {
		sol.DistBound = math.Inf(1)
	}
	return sol, err
}

// newtonSystem solves the (damped) Newton systems of one Newton iteration.
type newtonSystem interface {
	// at prepares the Hessian at x.
	at(x []float64)
	// step returns (∇²F(x) + λI)⁻¹g, to the accuracy the iteration needs
	// (gnorm = ‖g‖, g0 = the first ‖∇F‖), or false if the system is not
	// numerically positive definite.
	step(lambda float64, g []float64, gnorm, g0 float64) ([]float64, bool)
	// hessVecs returns the Hessian-vector products so far.
	hessVecs() int
}

// newton is the Newton iteration shared by the solvers.
func (p *Problem) newton(tol float64, sys newtonSystem) (Solution, error) {
	d := p.Dim()
	x := make([]float64, d)
	g := make([]float64, d)
	xn := make([]float64, d)
	gn := make([]float64, d)
	comp := make([]float64, d)
	f := p.valueGrad(x, g, comp)
	gnorm := math.Sqrt(dot(g, g))
	g0 := gnorm
	// Damping beyond lmax turns the step into one no longer than a gradient
	// step of length 1/L, which decreases F.
	lmax := p.Lmax()
	lambda := 0.0
	it := 0
	for ; it < 200 && gnorm > tol; it++ {
		sys.at(x)
		improved := false
		for !improved {
			step, ok := sys.step(lambda, g, gnorm, g0)
			// Undamped, backtrack far: near x* F is flat to rounding and
			// only short steps show progress. Damped, the step is already
			// short; a failure there raises λ instead.
			tmin := 1e-10
			if lambda > 0 {
				tmin = 1.0 / 1024
			}
			for t := 1.0; ok && t > tmin; t /= 2 {
				for j := range x {
					xn[j] = x[j] - t*step[j]
				}
				fn := p.valueGrad(xn, gn, comp)
				gnn := math.Sqrt(dot(gn, gn))
				// Armijo on F while far from x*; near x*, where F is flat
				// to rounding, accept a step that decreases ‖∇F‖ without
				// raising F beyond rounding (without that bound a loss
				// with linear tails can walk away along them).
				if fn < f-1e-4*t*dot(g, step) || gnn < gnorm && fn <= f+1e-13*math.Abs(f) {
					copy(x, xn)
					copy(g, gn)
					f, gnorm = fn, gnn
					improved = true
					break
				}
			}
			if improved {
				if lambda /= 10; lambda < 1e-9*lmax {
					lambda = 0
				}
				break
			}
			if lambda > 1e3*lmax {
				break // no step helps: x is as good as rounding allows
			}
			lambda = max(10*lambda, 1e-6*lmax, math.SmallestNonzeroFloat64)
		}
		if !improved {
			break
		}
	}
	sol := Solution{X: x, GradNorm: gnorm, Iterations: it, HessVecs: sys.hessVecs()}
	if !(gnorm <= 1e3*tol) { // also a NaN gradient
		return sol, fmt.Errorf("srg: Newton stopped at ‖∇F‖ = %v > %v", gnorm, 1e3*tol)
	}
	if ds, ok := sys.(*denseSystem); ok {
		ds.at(x)
		if _, ok := ds.step(0, g, gnorm, g0); !ok {
			return sol, errors.New("srg: the Hessian at the solution is singular; F may have no unique minimiser")
		}
	}
	return sol, nil
}

// denseSystem solves the Newton systems with the dense Hessian.
type denseSystem struct {
	p *Problem
	w []float64
	h *mat.SymDense
}

func (s *denseSystem) at(x []float64) { s.h = s.p.hessian(x, s.w) }

func (s *denseSystem) step(lambda float64, g []float64, _, _ float64) ([]float64, bool) {
	return dampedStep(s.h, lambda, g)
}

func (s *denseSystem) hessVecs() int { return 0 }

// hessian returns ∇²F(x) = (1/n) Σ φ_i”(a_iᵀx) a_i a_iᵀ + μI, using w (len n)
// as scratch.
func (p *Problem) hessian(x, w []float64) *mat.SymDense {
	for i := range w {
		w[i] = p.curv(i, p.margin(i, x))
	}
	h := p.gram(w)
	for j := range p.Dim() {
		h.SetSym(j, j, h.At(j, j)+p.Mu)
	}
	return h
}

// dampedStep returns (h + λI)⁻¹g, or false if h + λI is not numerically
// positive definite. h is left unchanged.
func dampedStep(h *mat.SymDense, lambda float64, g []float64) ([]float64, bool) {
	d := len(g)
	hl := mat.NewSymDense(d, nil)
	hl.CopySym(h)
	for j := range d {
		hl.SetSym(j, j, hl.At(j, j)+lambda)
	}
	var ch mat.Cholesky
	if !ch.Factorize(hl) {
		return nil, false
	}
	step := mat.NewVecDense(d, nil)
	if err := ch.SolveVecTo(step, mat.NewVecDense(d, append([]float64(nil), g...))); err != nil {
		return nil, false
	}
	return step.RawVector().Data, true
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
