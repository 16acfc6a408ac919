package srg

import (
	"fmt"
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/reweighted/reweighted/libsvm"
)

// eagerGrad returns ∇F(x) summed plainly, row by row, with the μx term
// added to every coordinate: the reference for SVRG's ∇F(w).
func eagerGrad(p *Problem, x []float64) []float64 {
	g := make([]float64, len(x))
	n := float64(p.Len())
	for i := range p.Len() {
		idx, val := p.Rows.Row(i)
		var t float64
		for k, j := range idx {
			t += val[k] * x[j]
		}
		c := p.Loss.Deriv(t, p.Y[i]) / n
		for k, j := range idx {
			g[j] += c * val[k]
		}
	}
	for j := range g {
		g[j] += p.Mu * x[j]
	}
	return g
}

func rowDot(p *Problem, i int, x []float64) float64 {
	idx, val := p.Rows.Row(i)
	var t float64
	for k, j := range idx {
		t += val[k] * x[j]
	}
	return t
}

// The lazy iterate (x = s·v + t·h: the ℓ2 shrinkage and SVRG's dense term
// in O(1) per iteration) follows the eager update, which applies
// x ← x − α(1/m)Σ_j w_j ∇f_{i_j}(x) (SVRG: its control variate, with ∇F(w)
// summed plainly) to a dense x, step for step on the mini-batches the
// optimiser drew, through SVRG's refreshes and through the folds that a
// shrinkage factor of 0.1 per step forces: to 1e-10 relative after every
// step, on a sparse set with d > n.
func TestLazyMatchesEager(t *testing.T) {
	ds := libsvm.TextLike(5, libsvm.Shape{N: 200, D: 1500, RowNNZ: 20})
	for _, c := range []struct {
		loss  Loss
		mu    float64
		alpha float64
	}{{Logistic, 0.01, 2}, {Squared, 1, 0.9}} {
		p, err := NewProblem(ds, ds.Labels, c.loss, c.mu)
		require.NoError(t, err)
		for _, m := range []Method{SGD, Reshuffled, SRG, SVRG} {
			opt, err := newOptimizer(p, Options{Method: m, Schedule: Constant{c.alpha, 0.5 / 200}, Batch: 4,
				Protocol: WithoutReplacement, NewSampler: newNaive, Seed: 9})
			require.NoError(t, err)
			d := p.Dim()
			x := make([]float64, d) // the eager iterate
			var w, gw []float64     // SVRG's eager reference point and ∇F(w)
			if m == SVRG {
				w = make([]float64, d)
				gw = eagerGrad(p, w)
			}
			lazy := make([]float64, d)
			refreshes := 0
			for k := range 400 {
				wBefore := append([]float64(nil), opt.w...)
				require.NoError(t, opt.step())
				next := make([]float64, d)
				copy(next, x)
				mf := float64(opt.m)
				for _, dr := range opt.draws {
					idx, val := p.Rows.Row(dr.i)
					cx := p.Loss.Deriv(rowDot(p, dr.i, x), p.Y[dr.i])
					if m == SVRG {
						cx -= p.Loss.Deriv(rowDot(p, dr.i, w), p.Y[dr.i])
					}
					for kk, j := range idx {
						next[j] -= c.alpha / mf * dr.w * cx * val[kk]
					}
					if m != SVRG {
						for j := range next {
							next[j] -= c.alpha / mf * dr.w * p.Mu * x[j]
						}
					}
				}
				if m == SVRG {
					for j := range next {
						next[j] -= c.alpha * (p.Mu*(x[j]-w[j]) + gw[j])
					}
					if !bitsEqual(wBefore, opt.w) {
						// The optimiser refreshed its reference point to
						// the iterate before the step.
						refreshes++
						w = append(w[:0], x...)
						gw = eagerGrad(p, w)
						requireClose(t, w, opt.w, 1e-10, "SVRG's reference point")
					}
				}
				x = next
				opt.x.dense(lazy)
				requireClose(t, x, lazy, 1e-10, fmt.Sprintf("%v %v, step %d", c.loss, m, k))
			}
			if m == SVRG {
				require.Greater(t, refreshes, 2, "SVRG refreshed its reference point")
			}
		}
	}
}

func bitsEqual(a, b []float64) bool {
	for j := range a {
		if math.Float64bits(a[j]) != math.Float64bits(b[j]) {
			return false
		}
	}
	return len(a) == len(b)
}
