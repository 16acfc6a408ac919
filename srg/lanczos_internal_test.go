package srg

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/mat"

	"github.com/reweighted/reweighted/libsvm"
)

// The Lanczos estimate of λ_max of the (weighted) Gram operator is within
// 1e-6 of the dense eigenvalue, never above it beyond rounding, and the
// bound gramMax gives is above it and at most the Kuczyński–Woźniakowski
// margin (2% here) over it: on sets shaped like rcv1 and news20, with unit
// and with random weights.
func TestGramMaxMatchesDenseEigenvalue(t *testing.T) {
	for _, s := range []libsvm.Shape{
		libsvm.RCV1.Scaled(80),
		{Name: "news20-like", N: 100, D: 700, RowNNZ: 60},
	} {
		ds := libsvm.TextLike(2, s)
		p, err := NewProblem(ds, ds.Labels, Logistic, 1/float64(ds.Len()))
		require.NoError(t, err)
		rng := rand.New(rand.NewPCG(3, 4))
		random := make([]float64, p.Len())
		for i := range random {
			random[i] = rng.Float64() / 4
		}
		ones := make([]float64, p.Len())
		for i := range ones {
			ones[i] = 1
		}
		for _, w := range [][]float64{ones, random} {
			vals, ok := eigenvalues(p.gram(w))
			require.True(t, ok)
			exact := vals[len(vals)-1]
			est, hi := p.gramMax(w)
			require.LessOrEqual(t, est, exact*(1+1e-12), s.Name)
			require.InEpsilon(t, exact, est, 1e-6, s.Name)
			require.GreaterOrEqual(t, hi, exact, s.Name)
			require.LessOrEqual(t, hi, exact*1.02, s.Name)
		}
		// L is the bound, scaled by the logistic loss's sup φ” = 1/4.
		_, hi := p.gramMax(nil)
		require.Equal(t, hi/4+p.Mu, p.L())
	}
}

// A Gram operator of rank 1 (every row a multiple of one vector) makes the
// Lanczos recurrence break down after one step: the estimate is then
// exact, and so, up to rounding, is the bound.
func TestGramMaxBreakdown(t *testing.T) {
	d := 400
	ds := &libsvm.Dataset{Ptr: []int{0}, D: d}
	for i := range 5 {
		for j := range d {
			ds.Idx = append(ds.Idx, int32(j))
			ds.Val = append(ds.Val, float64(i+1)*float64(j%7+1))
		}
		ds.Ptr = append(ds.Ptr, len(ds.Idx))
		ds.Labels = append(ds.Labels, 1)
	}
	p, err := NewProblem(ds, ds.Labels, Squared, 0)
	require.NoError(t, err)
	// λ_max = trace = (1/n) Σ ‖a_i‖² for rank 1.
	var trace float64
	for _, s := range p.rowSq {
		trace += s
	}
	trace /= 5
	est, hi := p.gramMax(nil)
	require.InEpsilon(t, trace, est, 1e-12)
	require.InEpsilon(t, trace, hi, 1e-12)
	require.LessOrEqual(t, hi, trace)
}

// The margin of the bound over the Lanczos estimate is what the doc of
// lanczosSteps states: 2.2% at d = 47,236, on a diagonal Gram operator
// (row j holds √(j+1) at feature j) whose trace is far above the bound.
func TestLanczosMargin(t *testing.T) {
	d := 47236
	ds := &libsvm.Dataset{Ptr: []int{0}, D: d}
	for j := range d {
		ds.Idx, ds.Val = append(ds.Idx, int32(j)), append(ds.Val, math.Sqrt(float64(j+1)))
		ds.Ptr = append(ds.Ptr, j+1)
		ds.Labels = append(ds.Labels, 1)
	}
	p, err := NewProblem(ds, ds.Labels, Squared, 0)
	require.NoError(t, err)
	est, hi := p.gramMax(nil)
	require.LessOrEqual(t, est, 1+1e-12, "λ_max = d/n = 1")
	require.InDelta(t, 0.022, hi/est-1, 0.0005)
	require.GreaterOrEqual(t, hi, 1.0)
}

// L is the exact eigenvalue up to DenseMaxDim features, that many
// included, and the Lanczos bound above: at d = DenseMaxDim (w8a's 300)
// the dense value, at DenseMaxDim + 1 the bound.
func TestLExactUpToDenseMaxDim(t *testing.T) {
	for _, d := range []int{DenseMaxDim, DenseMaxDim + 1} {
		ds := libsvm.TextLike(3, libsvm.Shape{Name: "edge", N: 200, D: d, RowNNZ: 20})
		p, err := NewProblem(ds, ds.Labels, Logistic, 1/float64(ds.Len()))
		require.NoError(t, err)
		require.Equal(t, d, p.Dim())
		ones := make([]float64, p.Len())
		for i := range ones {
			ones[i] = 1
		}
		vals, ok := eigenvalues(p.gram(ones))
		require.True(t, ok)
		exact := vals[len(vals)-1]/4 + p.Mu
		if d <= DenseMaxDim {
			require.Equal(t, exact, p.L(), "d = %d: the dense eigenvalue", d)
			continue
		}
		_, hi := p.gramMax(nil)
		require.Equal(t, hi/4+p.Mu, p.L(), "d = %d: the Lanczos bound", d)
		require.Greater(t, p.L(), exact, "d = %d: the bound lies above", d)
	}
}

// When the Lanczos steps reach the dimension (k = d = lanczosSteps, no
// breakdown) the Krylov space is all of R^d and the estimate is an
// eigenvalue, so the bound is the estimate up to rounding, not the
// Kuczyński–Woźniakowski margin (1.7% at k = d = 100): on 150 random dense
// rows of 100 features, the bound is within 1e-10 of λ_max of the Gram
// matrix (1/n) Σ a_i a_iᵀ built here and given by gonum's EigenSym.
func TestGramMaxFullKrylovSpace(t *testing.T) {
	n, d := 150, lanczosSteps
	rng := rand.New(rand.NewPCG(21, 5))
	rows := make([][]float64, n)
	g := mat.NewSymDense(d, nil)
	for i := range rows {
		rows[i] = make([]float64, d)
		for j := range rows[i] {
			rows[i][j] = rng.NormFloat64()
		}
		for j := range d {
			for k := j; k < d; k++ {
				g.SetSym(j, k, g.At(j, k)+rows[i][j]*rows[i][k]/float64(n))
			}
		}
	}
	var es mat.EigenSym
	require.True(t, es.Factorize(g, false))
	vals := es.Values(nil)
	exact := vals[len(vals)-1]
	a, err := NewDense(rows)
	require.NoError(t, err)
	p, err := NewProblem(a, make([]float64, n), Squared, 0)
	require.NoError(t, err)
	est, hi := p.gramMax(nil)
	require.InEpsilon(t, exact, est, 1e-10)
	require.GreaterOrEqual(t, hi, exact)
	require.InEpsilon(t, exact, hi, 1e-10)
}
