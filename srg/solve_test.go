package srg_test

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/optimize"
	"pgregory.net/rapid"

	"github.com/reweighted/reweighted/libsvm"
	"github.com/reweighted/reweighted/srg"
)

// logistic returns the problem of the paper's experiments on ds:
// logistic loss, μ = 1/n.
func logistic(t require.TestingT, ds *libsvm.Dataset) *srg.Problem {
	p, err := srg.NewProblem(ds, ds.Labels, srg.Logistic, 1/float64(ds.Len()))
	require.NoError(t, err)
	return p
}

// Both solvers certify their x* by ‖∇F‖ ≤ tol, and F is μ-strongly
// convex, so each lies within ‖∇F‖/μ of the exact minimiser and the two
// within the sum of their bounds of each other. On sparse sets shaped like
// rcv1 (d > n) and news20 (d ≫ n, long rows), small enough for the dense
// Hessian, Newton-CG agrees with dense Newton to that bound and to 1e-9
// relative.
func TestNewtonCGMatchesDenseNewton(t *testing.T) {
	for _, s := range []libsvm.Shape{
		libsvm.RCV1.Scaled(80),
		{Name: "news20-like", N: 100, D: 700, RowNNZ: 60},
	} {
		p := logistic(t, libsvm.TextLike(1, s))
		dense, err := p.SolveWith(1e-12, srg.DenseNewton)
		require.NoError(t, err, s.Name)
		cg, err := p.SolveWith(1e-12, srg.NewtonCG)
		require.NoError(t, err, s.Name)
		require.Equal(t, srg.DenseNewton, dense.Solver)
		require.Equal(t, srg.NewtonCG, cg.Solver)
		require.Positive(t, cg.HessVecs, s.Name)
		require.Zero(t, dense.HessVecs, s.Name)
		require.LessOrEqual(t, cg.GradNorm, 1e-12, s.Name)
		dist := floats.Distance(dense.X, cg.X, 2)
		require.LessOrEqual(t, dist, dense.DistBound+cg.DistBound, s.Name)
		require.Less(t, dist, 1e-9*floats.Norm(dense.X, 2), s.Name)
		require.InDelta(t, cg.GradNorm*float64(p.Len()), cg.DistBound, 1e-12*cg.DistBound, "μ_F = μ = 1/n for the logistic loss")
	}
}

// Property: on random small problems of any loss with μ > 0, the two
// solvers reach the same minimiser (within their certified distance to it).
func TestNewtonCGMatchesDenseNewtonRandom(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(1, 30).Draw(t, "n")
		d := rapid.IntRange(1, 12).Draw(t, "d")
		loss := rapid.SampledFrom([]srg.Loss{srg.Logistic, srg.Squared}).Draw(t, "loss")
		rows := make([][]float64, n)
		y := make([]float64, n)
		for i := range rows {
			rows[i] = rapid.SliceOfN(rapid.Float64Range(-3, 3), d, d).Draw(t, "row")
			y[i] = float64(2*rapid.IntRange(0, 1).Draw(t, "label") - 1)
		}
		m, err := srg.NewDense(rows)
		require.NoError(t, err)
		mu := rapid.Float64Range(1e-3, 1).Draw(t, "mu")
		p, err := srg.NewProblem(m, y, loss, mu)
		require.NoError(t, err)
		dense, err := p.SolveWith(1e-12, srg.DenseNewton)
		require.NoError(t, err)
		cg, err := p.SolveWith(1e-12, srg.NewtonCG)
		require.NoError(t, err)
		require.LessOrEqual(t, floats.Distance(dense.X, cg.X, 2), dense.DistBound+cg.DistBound+1e-12)
	})
}

// On the full rcv1 shape (d = 47,236: a dense Hessian would take 17.8 GB)
// Solve picks Newton-CG, and its x* agrees with an independent one, found
// by gonum's L-BFGS, within the sum of their certified distances to x*.
func TestSolveRCV1Shaped(t *testing.T) {
	s := libsvm.RCV1
	if testing.Short() {
		s = s.Scaled(4)
	}
	p := logistic(t, libsvm.TextLike(1, s))
	sol, err := p.Solve(1e-12)
	require.NoError(t, err)
	require.Equal(t, srg.NewtonCG, sol.Solver)
	require.LessOrEqual(t, sol.GradNorm, 1e-12)
	ref := lbfgs(t, p)
	require.LessOrEqual(t, floats.Distance(sol.X, ref.X, 2), sol.DistBound+ref.DistBound)
	// x* is certified far below the relative errors the report plots: its
	// distance bound, relative to ‖x0 − x*‖ = ‖x*‖, squared.
	require.Less(t, math.Pow(sol.DistBound/floats.Norm(sol.X, 2), 2), 1e-16)
}

// lbfgs minimises F with gonum's L-BFGS as far as its line search gets
// (‖∇F‖ near 1e-10) and returns the point with its certified distance to x*.
func lbfgs(t *testing.T, p *srg.Problem) srg.Solution {
	prob := optimize.Problem{Func: p.Value, Grad: func(g, x []float64) { p.FullGrad(x, g) }}
	res, err := optimize.Minimize(prob, make([]float64, p.Dim()),
		&optimize.Settings{GradientThreshold: 1e-12, MajorIterations: 10000}, &optimize.LBFGS{})
	if err != nil {
		t.Logf("L-BFGS: %v", err) // its line search gives up where F is flat to rounding
	}
	g := make([]float64, p.Dim())
	p.FullGrad(res.X, g)
	gn := floats.Norm(g, 2)
	require.Less(t, gn, 1e-6, "L-BFGS got nowhere")
	return srg.Solution{X: res.X, GradNorm: gn, DistBound: gn / p.StrongConvexity()}
}

// A solver that is not one of the constants is refused; so is Newton-CG on
// a problem with more features than examples and no regularisation, whose
// minimiser is not unique.
func TestSolveWithBadInput(t *testing.T) {
	p := logistic(t, libsvm.TextLike(1, libsvm.Shape{N: 20, D: 50, RowNNZ: 5}))
	_, err := p.SolveWith(1e-12, srg.Solver(7))
	require.ErrorIs(t, err, srg.ErrInput)
	ds := libsvm.TextLike(1, libsvm.Shape{N: 20, D: 50, RowNNZ: 5})
	p0, err := srg.NewProblem(ds, ds.Labels, srg.Logistic, 0)
	require.NoError(t, err)
	_, err = p0.SolveWith(1e-12, srg.NewtonCG)
	require.ErrorContains(t, err, "singular")
	require.Equal(t, "Newton-CG", srg.NewtonCG.String())
	require.Equal(t, "Solver(7)", srg.Solver(7).String())
}

// A tolerance that Newton cannot reach is an error, not a solution: at
// tol = 0 rounding leaves ‖∇F‖ above 1e3·tol, and both solvers say so,
// with the point and gradient norm they reached (still within rounding
// of x*).
func TestSolveRefusesAnUnreachedTolerance(t *testing.T) {
	p := logistic(t, libsvm.TextLike(1, libsvm.RCV1.Scaled(400)))
	for _, solver := range []srg.Solver{srg.DenseNewton, srg.NewtonCG} {
		sol, err := p.SolveWith(0, solver)
		require.Error(t, err, "solver %v", solver)
		require.Contains(t, err.Error(), "Newton stopped at ‖∇F‖ =")
		require.Positive(t, sol.GradNorm, "solver %v", solver)
		require.Less(t, sol.GradNorm, 1e-9, "solver %v: the point reached is still near x*", solver)
	}
}
