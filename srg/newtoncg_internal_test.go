package srg

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// cgStepProblem is least squares with μ = 0 on the rows (1, 0, 0),
// (1, 2, 0), (0, 1, 0): feature 2 is held by no row, and the Hessian is
// (1/3)AᵀA = [[2/3, 2/3, 0], [2/3, 5/3, 0], [0, 0, 0]].
func cgStepProblem(t *testing.T) *cgSystem {
	t.Helper()
	a, err := NewDense([][]float64{{1, 0, 0}, {1, 2, 0}, {0, 1, 0}})
	require.NoError(t, err)
	p, err := NewProblem(a, []float64{0, 0, 0}, Squared, 0)
	require.NoError(t, err)
	c := newCGSystem(p)
	c.at(make([]float64, 3))
	return c
}

// A Newton-CG step solves (∇²F + λI)s = g: by hand, with the Hessian of
// cgStepProblem and g = (1, 1, 0), s = (3/2, 0, 0) at λ = 0 and
// (1/2, 1/4, 0) at λ = 1. The feature no row holds has a zero diagonal at
// λ = 0, which the preconditioner must pass through (z = r there), not
// divide by. The forcing term is made tiny by a large g0, so CG solves to
// rounding (two iterations on the 2×2 block).
func TestCGStepSolvesDampedSystem(t *testing.T) {
	for _, tc := range []struct {
		lambda float64
		want   []float64
	}{
		{0, []float64{1.5, 0, 0}},
		{1, []float64{0.5, 0.25, 0}},
	} {
		c := cgStepProblem(t)
		g := []float64{1, 1, 0}
		s, ok := c.step(tc.lambda, g, dot(g, g), 1e40)
		require.True(t, ok, "λ = %v", tc.lambda)
		for j := range s {
			require.InDelta(t, tc.want[j], s[j], 1e-12, "λ = %v, s[%d]", tc.lambda, j)
		}
	}
}

// A Newton-CG step reports a system that is not positive definite along
// its first direction instead of dividing by zero curvature: on
// cgStepProblem at λ = 0, g = (0, 0, 1) lies in the Hessian's null space
// (feature 2 is held by no row and μ = 0), so qᵀ∇²F q = 0 exactly and
// step returns false, as newtonSystem's contract says.
func TestCGStepRefusesZeroCurvature(t *testing.T) {
	c := cgStepProblem(t)
	s, ok := c.step(0, []float64{0, 0, 1}, 1, 1)
	require.False(t, ok)
	require.Nil(t, s)
	require.Equal(t, 1, c.hessVecs(), "one product shows the zero curvature")
}
