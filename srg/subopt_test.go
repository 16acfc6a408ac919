package srg_test

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/reweighted/reweighted/libsvm"
	"github.com/reweighted/reweighted/srg"
)

// logisticProblem is ℓ2-regularised logistic regression on the synthetic
// rows, with the signs of the synthetic targets as labels, and its x*.
func logisticProblem(t *testing.T, n, d int) (*srg.Problem, srg.Solution) {
	ds := libsvm.Synthetic(8, n, d)
	y := make([]float64, n)
	for i, v := range ds.Labels {
		y[i] = math.Copysign(1, v)
	}
	p, err := srg.NewProblem(ds, y, srg.Logistic, 1/float64(n))
	require.NoError(t, err)
	sol, err := p.Solve(1e-12)
	require.NoError(t, err)
	return p, sol
}

// logisticValue is F(x) for logisticProblem, summed directly from the
// formula: an independent reference for Problem.Value.
func logisticValue(p *srg.Problem, x []float64) float64 {
	var s float64
	for i := range p.Len() {
		idx, val := p.Rows.Row(i)
		var t float64
		for k, j := range idx {
			t += val[k] * x[j]
		}
		s += math.Log(1 + math.Exp(-p.Y[i]*t))
	}
	var sq float64
	for _, v := range x {
		sq += v * v
	}
	return s/float64(p.Len()) + p.Mu/2*sq
}

// With a mini-batch of all n examples in one permutation, reshuffled SGD is
// gradient descent; at α = 1/L its suboptimality F(x_k) − F(x*) never rises
// and contracts at least by 1 − μ/L per step (the classical rate for an
// L-smooth, μ-strongly convex F), down to rounding.
func TestSuboptimalityGradientDescent(t *testing.T) {
	const n = 100
	p, sol := logisticProblem(t, n, 4)
	bigL, mu := p.L(), p.StrongConvexity()
	tr, err := srg.Run(p, srg.Options{Method: srg.Reshuffled, Batch: n, Schedule: srg.Constant{Alpha: 1 / bigL},
		Epochs: 60, PerEpoch: 1, XStar: sol.X, Suboptimality: true})
	require.NoError(t, err)
	require.Len(t, tr.Subopt, 61)
	require.Equal(t, 60, tr.Iterations, "one iteration per epoch: full-gradient steps")
	slack := 1e-14 * math.Abs(p.Value(sol.X))
	for k, s := range tr.Subopt {
		require.GreaterOrEqual(t, s, -slack, "F(x_%d) − F(x*)", k)
		if k > 0 {
			require.LessOrEqual(t, s, (1-mu/bigL)*tr.Subopt[k-1]+slack, "step %d contracts", k)
		}
	}
	require.Less(t, tr.Subopt[60], tr.Subopt[0]/10)
}

// Every checkpoint's suboptimality is the value of F at the iterate the run
// reached there, computed independently: a run of k epochs with the same
// seed ends at checkpoint k, and F is summed directly from the logistic
// formula.
func TestSuboptimalityMatchesValue(t *testing.T) {
	p, sol := logisticProblem(t, 60, 3)
	o := srg.Options{Method: srg.SRG, NewSampler: newNaive, Seed: 5, PerEpoch: 1, XStar: sol.X, Suboptimality: true,
		Schedule: srg.Constant{Alpha: 0.5 / p.Lmax(), Eps: 0.5 / 60}}
	o.Epochs = 6
	full, err := srg.Run(p, o)
	require.NoError(t, err)
	fStar := logisticValue(p, sol.X)
	for k := range 7 {
		o.Epochs = float64(k)
		tr, err := srg.Run(p, o)
		require.NoError(t, err)
		require.Equal(t, full.Subopt[:k+1], tr.Subopt, "a shorter run records a prefix")
		require.Equal(t, p.Value(tr.X)-p.Value(sol.X), tr.Subopt[k], "checkpoint %d is Problem.Value", k)
		require.InDelta(t, logisticValue(p, tr.X)-fStar, tr.Subopt[k], 1e-13, "checkpoint %d", k)
	}
}

// Property: for every loss and method, the suboptimality has one entry per
// checkpoint, none below −1e-12·(1 + |F(x*)|), and the last is
// F(x_final) − F(x*).
func TestSuboptimalityNonNegative(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		c := rapid.SampledFrom(lossCases).Draw(rt, "loss")
		p := userProblem(rt, c)
		sol, err := p.Solve(1e-12)
		require.NoError(rt, err)
		x0 := make([]float64, p.Dim())
		for j := range x0 {
			x0[j] = sol.X[j] + 1
		}
		m := rapid.SampledFrom([]srg.Method{srg.SGD, srg.Reshuffled, srg.SRG, srg.SVRG}).Draw(rt, "method")
		tr, err := srg.Run(p, srg.Options{Method: m, NewSampler: newNaive, Seed: 3, X0: x0, Epochs: 5, PerEpoch: 2,
			XStar: sol.X, Suboptimality: true, Batch: rapid.IntRange(1, 3).Draw(rt, "batch"),
			Schedule: srg.Constant{Alpha: 0.5 / p.Lmax(), Eps: 0.5 / float64(p.Len())}})
		require.NoError(rt, err)
		require.Len(rt, tr.Subopt, len(tr.Evals))
		fStar := p.Value(sol.X)
		for k, s := range tr.Subopt {
			require.GreaterOrEqual(rt, s, -1e-12*(1+math.Abs(fStar)), "checkpoint %d", k)
		}
		require.Equal(rt, p.Value(tr.X)-fStar, tr.Subopt[len(tr.Subopt)-1])
	})
}

// Without the option the trace has no suboptimality; asking for it without
// x*, or with an x* of the wrong length, is an error that leaves x0 and x*
// as they were.
func TestSuboptimalityBadOptions(t *testing.T) {
	p, sol := logisticProblem(t, 30, 3)
	sched := srg.Constant{Alpha: 0.1, Eps: 0.5 / 30}
	tr, err := srg.Run(p, srg.Options{Method: srg.SGD, Schedule: sched, Epochs: 1, XStar: sol.X})
	require.NoError(t, err)
	require.Nil(t, tr.Subopt)

	x0 := []float64{1, 2, 3}
	short := []float64{1, 2}
	_, err = srg.Run(p, srg.Options{Method: srg.SGD, Schedule: sched, Epochs: 1, X0: x0, Suboptimality: true})
	require.ErrorContains(t, err, "Suboptimality needs XStar")
	_, err = srg.Run(p, srg.Options{Method: srg.SGD, Schedule: sched, Epochs: 1, X0: x0, XStar: short, Suboptimality: true})
	require.ErrorContains(t, err, "x* has length 2, want 3")
	require.Equal(t, []float64{1, 2, 3}, x0)
	require.Equal(t, []float64{1, 2}, short)
}
