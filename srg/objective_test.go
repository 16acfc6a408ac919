package srg_test

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/reweighted/reweighted"
	"github.com/reweighted/reweighted/naive"
	"github.com/reweighted/reweighted/srg"
)

// Regression: with features near 1e-62 the Gram matrix has entries near
// 1e-123, where gonum's EigenSym panicked; L and StrongConvexity now scale
// it first. Rows (v, v) and (v, 0) have Gram matrix (v²/2)[[2, 1], [1, 1]],
// whose eigenvalues are (3 ± √5)v²/4: L and StrongConvexity for least
// squares.
func TestConstantsTinyFeatures(t *testing.T) {
	for _, v := range []float64{7.778769097326427e-62, 1e-120, 1e-150, 1e150} {
		m, err := srg.NewDense([][]float64{{v, v}, {v, 0}})
		require.NoError(t, err)
		p, err := srg.NewProblem(m, []float64{1, 2}, srg.Squared, 0)
		require.NoError(t, err)
		require.InEpsilon(t, (3+math.Sqrt(5))/4*v*v, p.L(), 1e-12, "v = %v", v)
		require.InEpsilon(t, (3-math.Sqrt(5))/4*v*v, p.StrongConvexity(), 1e-12, "v = %v", v)
	}
}

// Regression, found by TestDenseMatchesSparse at 100 times its checks: a
// row with features 1 and 1e-131 leaves a block of tiny entries in the
// tridiagonal form of its Gram matrix, where gonum's EigenSym panicked even
// after scaling. L falls back to Lmax, which for one example is the same
// ‖a‖²/4 of the logistic loss, and StrongConvexity to μ.
func TestConstantsTinyBlock(t *testing.T) {
	a := []float64{6.525304467998525e-54, 1.00042724609375, 4.5082903407156913e-131, 1.015625}
	m, err := srg.NewDense([][]float64{a})
	require.NoError(t, err)
	p, err := srg.NewProblem(m, []float64{1}, srg.Logistic, 0)
	require.NoError(t, err)
	sq := 0.0
	for _, v := range a {
		sq += v * v
	}
	require.InEpsilon(t, sq/4, p.L(), 1e-12)
	require.Equal(t, p.Lmax(), p.L())
	p, err = srg.NewProblem(m, []float64{1}, srg.Squared, 0.5)
	require.NoError(t, err)
	require.InEpsilon(t, sq+0.5, p.L(), 1e-12)
	require.Equal(t, 0.5, p.StrongConvexity(), "one example in four dimensions: λ_min = 0")
}

// Regression, found by TestVariancesClosedForm at 100 times its checks: a
// gradient norm so small against the others that its p* rounds to 0 made
// σ*² NaN (a² underflows, and 0/0). Its exact term is negligible: σ*² is
// the closed form (Σ‖∇f_i‖)²/n².
func TestVariancesTinyNorm(t *testing.T) {
	m, err := srg.NewDense([][]float64{{1}, {2e-162}})
	require.NoError(t, err)
	p, err := srg.NewProblem(m, []float64{-1000, 0}, srg.Squared, 0)
	require.NoError(t, err)
	x := []float64{3}
	norms := p.GradNorms(x)
	s := naive.New(2)
	for i, a := range norms {
		require.NoError(t, s.Set(i, a))
	}
	p1, err := s.Prob(1, 0)
	require.NoError(t, err)
	require.True(t, norms[1] > 0 && p1 == 0, "a positive gradient norm %v whose p* rounds to 0", norms[1])
	s2, ss2, err := srg.Variances(p, x, func(n int) reweighted.Distribution { return naive.New(n) })
	require.NoError(t, err)
	require.Equal(t, norms[0]*norms[0]/4, ss2)
	require.Equal(t, (norms[0]*norms[0]+norms[1]*norms[1])/2, s2)
}

// Solve reports a problem without a unique minimiser — least squares with
// more features than examples and μ = 0 — instead of returning one of its
// minimisers as x*.
func TestSolveSingular(t *testing.T) {
	m, err := srg.NewDense([][]float64{{1, 2, 3}, {0, 1, 1}})
	require.NoError(t, err)
	p, err := srg.NewProblem(m, []float64{1, 2}, srg.Squared, 0)
	require.NoError(t, err)
	_, err = p.Solve(1e-12)
	require.ErrorContains(t, err, "singular")
	p, err = srg.NewProblem(m, []float64{1, 2}, srg.Squared, 1e-3)
	require.NoError(t, err)
	sol, err := p.Solve(1e-12)
	require.NoError(t, err, "μ > 0 makes the minimiser unique")
	require.LessOrEqual(t, sol.GradNorm, 1e-12)
}
