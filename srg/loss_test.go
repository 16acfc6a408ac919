package srg_test

import (
	"errors"
	"math"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/reweighted/reweighted/libsvm"
	"github.com/reweighted/reweighted/srg"
)

// smoothHinge is the quadratically smoothed hinge loss of z = yt with labels
// ±1: 1/2 − z for z ≤ 0, (1 − z)²/2 on (0, 1), 0 from 1 on.
type smoothHinge struct{}

func (smoothHinge) Value(t, y float64) float64 {
	switch z := y * t; {
	case z <= 0:
		return 0.5 - z
	case z < 1:
		return (1 - z) * (1 - z) / 2
	}
	return 0
}

func (smoothHinge) Deriv(t, y float64) float64 {
	switch z := y * t; {
	case z <= 0:
		return -y
	case z < 1:
		return -y * (1 - z)
	}
	return 0
}

func (smoothHinge) Curv(t, y float64) float64 {
	if z := y * t; z > 0 && z < 1 {
		return 1
	}
	return 0
}

func (smoothHinge) CurvBounds() (lo, hi float64) { return 0, 1 }

var errHingeLabel = errors.New("smoothed hinge label must be ±1")

func (smoothHinge) CheckLabel(y float64) error {
	if y != 1 && y != -1 {
		return errHingeLabel
	}
	return nil
}

// A loss under test, how to draw its labels, and the margins where its
// second derivative jumps.
type lossCase struct {
	name  string
	loss  srg.Loss
	label func(t *rapid.T) float64
	kinks func(y float64) []float64
}

var (
	pm1     = func(t *rapid.T) float64 { return rapid.SampledFrom([]float64{-1, 1}).Draw(t, "y") }
	anyReal = func(t *rapid.T) float64 { return rapid.Float64Range(-4, 4).Draw(t, "y") }
	smooth  = func(float64) []float64 { return nil }
)

var lossCases = []lossCase{
	{"logistic", srg.Logistic, pm1, smooth},
	{"squared", srg.Squared, anyReal, smooth},
	{"Huber", Huber{Delta: 0.7}, anyReal, func(y float64) []float64 { return []float64{y - 0.7, y + 0.7} }},
	{"smoothed hinge", smoothHinge{}, pm1, func(y float64) []float64 { return []float64{0, y} }},
}

// Property: for every loss, built in or user defined, Deriv agrees with
// central finite differences of Value, Curv agrees with finite differences of
// Deriv away from the kinks of φ', and Curv lies within CurvBounds.
func TestLossDerivatives(t *testing.T) {
	for _, c := range lossCases {
		t.Run(c.name, func(t *testing.T) {
			rapid.Check(t, func(rt *rapid.T) {
				y := c.label(rt)
				x := rapid.Float64Range(-6, 6).Draw(rt, "t")
				const h = 1e-6
				fd := (c.loss.Value(x+h, y) - c.loss.Value(x-h, y)) / (2 * h)
				d := c.loss.Deriv(x, y)
				require.InDelta(rt, fd, d, 1e-6*math.Max(1, math.Abs(d)), "φ'(%v; %v)", x, y)
				lo, hi := c.loss.CurvBounds()
				k := c.loss.Curv(x, y)
				require.GreaterOrEqual(rt, k, lo, "φ”(%v; %v) ≥ lo", x, y)
				require.LessOrEqual(rt, k, hi, "φ”(%v; %v) ≤ hi", x, y)
				for _, kink := range c.kinks(y) {
					if math.Abs(x-kink) <= 2*h {
						return
					}
				}
				fd2 := (c.loss.Deriv(x+h, y) - c.loss.Deriv(x-h, y)) / (2 * h)
				require.InDelta(rt, fd2, k, 1e-6, "φ”(%v; %v)", x, y)
			})
		})
	}
}

// userProblem draws a small dense problem for a loss with zero curvature in
// places: labels from the loss's case, μ > 0 so that the minimiser is unique.
func userProblem(t *rapid.T, c lossCase) *srg.Problem {
	a := genMatrix(t)
	y := make([]float64, len(a))
	for i := range y {
		y[i] = c.label(t)
	}
	mu := rapid.SampledFrom([]float64{1e-3, 0.1, 1}).Draw(t, "mu")
	m, err := srg.NewDense(a)
	require.NoError(t, err)
	p, err := srg.NewProblem(m, y, c.loss, mu)
	require.NoError(t, err)
	return p
}

// fullGrad is ∇F(x) summed directly from the loss's Deriv over dense rows:
// an independent reference for Problem.FullGrad.
func fullGrad(p *srg.Problem, a [][]float64, x []float64) []float64 {
	g := make([]float64, len(x))
	for i, r := range a {
		var t float64
		for j, v := range r {
			t += v * x[j]
		}
		c := p.Loss.Deriv(t, p.Y[i]) / float64(len(a))
		for j, v := range r {
			g[j] += c * v
		}
	}
	for j := range g {
		g[j] += p.Mu * x[j]
	}
	return g
}

func rowsOf(p *srg.Problem) [][]float64 {
	a := make([][]float64, p.Len())
	for i := range a {
		a[i] = make([]float64, p.Dim())
		idx, val := p.Rows.Row(i)
		for k, j := range idx {
			a[i][j] = val[k]
		}
	}
	return a
}

// Property: for every loss, Problem.FullGrad agrees with central finite
// differences of Problem.Value and with ∇F summed independently from Deriv.
func TestLossFullGrad(t *testing.T) {
	for _, c := range lossCases {
		t.Run(c.name, func(t *testing.T) {
			rapid.Check(t, func(rt *rapid.T) {
				p := userProblem(rt, c)
				d := p.Dim()
				x := rapid.SliceOfN(rapid.Float64Range(-3, 3), d, d).Draw(rt, "x")
				g := make([]float64, d)
				p.FullGrad(x, g)
				ref := fullGrad(p, rowsOf(p), x)
				for j := range d {
					require.InDelta(rt, ref[j], g[j], 1e-12*math.Max(1, math.Abs(ref[j])), "∂F/∂x_%d vs the reference", j)
					const h = 1e-6
					xp := append([]float64(nil), x...)
					xm := append([]float64(nil), x...)
					xp[j] += h
					xm[j] -= h
					fd := (p.Value(xp) - p.Value(xm)) / (2 * h)
					require.InDelta(rt, fd, g[j], 1e-5*math.Max(1, math.Abs(fd)), "∂F/∂x_%d vs finite differences", j)
				}
			})
		})
	}
}

// Property: for the user-defined losses, whose curvature vanishes in
// places, Solve reaches ‖∇F(x*)‖ ≤ 1e-10, checked with a gradient computed
// independently of FullGrad, and x* beats every perturbed point.
func TestUserLossSolve(t *testing.T) {
	for _, c := range lossCases[2:] {
		t.Run(c.name, func(t *testing.T) {
			rapid.Check(t, func(rt *rapid.T) {
				p := userProblem(rt, c)
				sol, err := p.Solve(1e-12)
				require.NoError(rt, err)
				g := fullGrad(p, rowsOf(p), sol.X)
				var sq float64
				for _, v := range g {
					sq += v * v
				}
				require.LessOrEqual(rt, math.Sqrt(sq), 1e-10, "‖∇F(x*)‖")
				f := p.Value(sol.X)
				for j := range sol.X {
					for _, dx := range []float64{-1e-3, 1e-3} {
						x := append([]float64(nil), sol.X...)
						x[j] += dx
						require.GreaterOrEqual(rt, p.Value(x), f-1e-15, "F(x* + %v e_%d)", dx, j)
					}
				}
			})
		})
	}
}

// A user loss end to end: SRG on a smoothed-hinge classifier, with the
// decreasing schedule of the paper's experiments built from the constants its
// curvature bounds give, approaches the minimiser Solve finds. The relative
// error is averaged over 16 runs: a single run's varies too much to bound
// (about one run in two missed the bounds one run was once held to); over
// 320 runs in groups of 16, the mean ended in [0.0075, 0.015], at most 0.43
// times its value after 10 epochs.
func TestUserLossRun(t *testing.T) {
	ds := libsvm.Synthetic(4, 200, 5)
	y := make([]float64, ds.Len())
	for i, v := range ds.Labels {
		y[i] = math.Copysign(1, v)
	}
	p, err := srg.NewProblem(ds, y, smoothHinge{}, 0.01)
	require.NoError(t, err)
	sol, err := p.Solve(1e-12)
	require.NoError(t, err)
	const runs = 16
	var last, at10 float64
	for seed := range uint64(runs) {
		tr, err := srg.Run(p, srg.Options{Method: srg.SRG, NewSampler: newNaive, Seed: seed, Epochs: 100, XStar: sol.X,
			Schedule: srg.Experimental(p.Len(), p.Lmax(), p.StrongConvexity())})
		require.NoError(t, err)
		last += tr.RelErr[len(tr.RelErr)-1] / runs
		at10 += tr.RelErr[10] / runs
	}
	require.Less(t, last, 3e-2, "mean ‖x − x*‖²/‖x0 − x*‖² after 100 epochs")
	require.Less(t, last, at10*2/3, "and still falling after 10 epochs")
}

// badBounds is the squared loss with the curvature bounds lo and hi.
type badBounds struct {
	srg.SquaredLoss
	lo, hi float64
}

func (b badBounds) CurvBounds() (lo, hi float64) { return b.lo, b.hi }

// rejectAll is the squared loss with no acceptable label.
type rejectAll struct{ srg.SquaredLoss }

var errNoLabel = errors.New("no label is acceptable")

func (rejectAll) CheckLabel(float64) error { return errNoLabel }

// NewProblem rejects a missing or inconsistent loss and the labels it does
// not accept, with an error naming the problem, and leaves its inputs as they
// were.
func TestNewProblemBadLoss(t *testing.T) {
	a := [][]float64{{1, 0}, {0, 1}, {1, 1}}
	m, err := srg.NewDense(a)
	require.NoError(t, err)
	ok := []float64{1, -1, 1}
	for _, c := range []struct {
		name string
		y    []float64
		loss srg.Loss
		mu   float64
		err  string
	}{
		{"nil loss", ok, nil, 0, "nil loss"},
		{"negative lo", ok, badBounds{lo: -1, hi: 1}, 0, "curvature bounds [-1, 1]"},
		{"lo above hi", ok, badBounds{lo: 2, hi: 1}, 0, "curvature bounds [2, 1]"},
		{"infinite hi", ok, badBounds{lo: 0, hi: math.Inf(1)}, 0, "curvature bounds [0, +Inf]"},
		{"NaN hi", ok, badBounds{lo: 0, hi: math.NaN()}, 0, "curvature bounds [0, NaN]"},
		{"NaN lo", ok, badBounds{lo: math.NaN(), hi: 1}, 0, "curvature bounds [NaN, 1]"},
		{"NaN target", []float64{1, math.NaN(), 0}, srg.Squared, 0, "y[1] = NaN"},
		{"infinite target", []float64{1, 2, math.Inf(-1)}, srg.Squared, 0, "y[2] = -Inf"},
		{"logistic 0", []float64{1, 0, 1}, srg.Logistic, 0, "logistic label 0, want ±1"},
		{"hinge 2", []float64{1, -1, 2}, smoothHinge{}, 0, "y[2]: smoothed hinge label must be ±1"},
		{"user rejects", ok, rejectAll{}, 0, "y[0]: no label is acceptable"},
		{"short labels", ok[:2], srg.Squared, 0, "2 labels for 3 rows"},
		{"negative μ", ok, srg.Squared, -1, "μ = -1"},
		{"NaN μ", ok, srg.Squared, math.NaN(), "μ = NaN"},
	} {
		t.Run(c.name, func(t *testing.T) {
			before := bits([][]float64{c.y})
			p, err := srg.NewProblem(m, c.y, c.loss, c.mu)
			require.ErrorContains(t, err, c.err)
			require.Nil(t, p)
			require.Equal(t, before, bits([][]float64{c.y}), "labels unchanged")
			for i, r := range a {
				_, v := m.Row(i)
				require.Equal(t, r, v, "row %d unchanged", i)
			}
		})
	}
	_, err = srg.NewProblem(m, ok, rejectAll{}, 0)
	require.ErrorIs(t, err, errNoLabel, "the loss's own error is wrapped")
	_, err = srg.NewProblem(nil, ok, srg.Squared, 0)
	require.ErrorContains(t, err, "nil rows")
}

// Solve rejects a tolerance that is negative or NaN.
func TestSolveBadTolerance(t *testing.T) {
	ds := libsvm.Synthetic(1, 20, 2)
	p, err := srg.NewProblem(ds, ds.Labels, srg.Squared, 0)
	require.NoError(t, err)
	for _, tol := range []float64{-1e-12, math.NaN(), math.Inf(-1)} {
		_, err := p.Solve(tol)
		require.ErrorContains(t, err, "tolerance")
	}
}

// The built-in losses keep their names and stay comparable, so code that
// compares a Problem's loss with srg.Logistic keeps working.
func TestBuiltinLossNames(t *testing.T) {
	require.Equal(t, "logistic", srg.Logistic.String())
	require.Equal(t, "squared", srg.Squared.String())
	var l srg.Loss = srg.Logistic
	require.True(t, l == srg.Logistic)
	require.False(t, l == srg.Squared)
}
