package srg_test

import (
	"math"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/reweighted/reweighted/libsvm"
	"github.com/reweighted/reweighted/srg"
)

// signSet is libsvm.Synthetic with the signs of its targets as labels, rows
// normalised as Dataset expects.
func signSet(seed uint64, n, d int) *libsvm.Dataset {
	ds := libsvm.Synthetic(seed, n, d)
	for i, v := range ds.Labels {
		ds.Labels[i] = math.Copysign(1, v)
	}
	ds.NormalizeRows()
	return ds
}

// The relative suboptimality of Dataset's curves obeys the sandwich of a
// μ-strongly convex, L-smooth F around x*: (μ/2)‖x − x*‖² ≤ F(x) − F(x*) ≤
// (L/2)‖x − x*‖², run by run, hence for the means over runs that the curves
// hold, with the relative distance scaled by ‖x*‖²/(F(x0) − F(x*)). F(0)
// is log 2 for the logistic loss whatever the data. The progress calls
// count x* and every run, once each, in order.
func TestDatasetSuboptimalitySandwich(t *testing.T) {
	const n, runs = 400, 2
	ds := signSet(5, n, 12)
	var mu sync.Mutex
	var calls [][2]int
	res, err := srg.Dataset(srg.DatasetConfig{Name: "sign", Runs: runs, Epochs: 6, Batch: 16, Seed: 2, Data: ds, Workers: 2,
		Suboptimality: true, Progress: func(done, total int) {
			mu.Lock()
			calls = append(calls, [2]int{done, total})
			mu.Unlock()
		}})
	require.NoError(t, err)
	require.InDelta(t, math.Ln2, res.F0, 1e-15)
	require.Less(t, res.FStar, res.F0)
	require.Positive(t, res.SuboptFloor)
	require.Less(t, res.SuboptFloor, 1e-12)
	total := 1 + 8*runs
	require.Len(t, calls, total)
	for k, c := range calls {
		require.Equal(t, [2]int{k + 1, total}, c)
	}

	p, err := srg.NewProblem(ds, ds.Labels, srg.Logistic, 1/float64(n))
	require.NoError(t, err)
	scale := res.XStarSq / (res.F0 - res.FStar)
	lo, hi := math.Log10(p.Mu/2*scale), math.Log10(res.L/2*scale)
	for _, cs := range [][]srg.Curve{res.Constant, res.Decreasing} {
		for _, c := range cs {
			require.Len(t, c.Log10Subopt, len(c.Evals), c.Method)
			require.Equal(t, 0.0, c.Log10Subopt[0], "%s: the relative suboptimality starts at 1", c.Method)
			for k := range c.Evals {
				s, e := c.Log10Subopt[k], c.Log10Err[k]
				if e < -12 {
					continue // x* and F(x*) are certified to about there
				}
				require.GreaterOrEqual(t, s, lo+e-1e-9, "%s at %d", c.Method, k)
				require.LessOrEqual(t, s, hi+e+1e-9, "%s at %d", c.Method, k)
				require.LessOrEqual(t, c.Log10SuboptMin[k], s, "%s at %d", c.Method, k)
				require.GreaterOrEqual(t, c.Log10SuboptMax[k], s, "%s at %d", c.Method, k)
			}
		}
	}
}

// Without Suboptimality the curves carry no suboptimality and the result
// no F values.
func TestDatasetWithoutSuboptimality(t *testing.T) {
	res, err := srg.Dataset(srg.DatasetConfig{Name: "sign", Runs: 1, Epochs: 1, Batch: 16, Seed: 2, Data: signSet(5, 200, 5), PaperOnly: true})
	require.NoError(t, err)
	require.Zero(t, res.F0)
	for _, c := range append(res.Constant, res.Decreasing...) {
		require.Nil(t, c.Log10Subopt, c.Method)
	}
}
