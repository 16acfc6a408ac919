package srg_test

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/reweighted/reweighted/libsvm"
	"github.com/reweighted/reweighted/srg"
)

// oneHot is a set of n = k·d examples whose row i is the unit vector
// e_{i mod d}: its smoothness constants are known in
// closed form. Under the logistic loss (curvature at most 1/4) with μ:
// Lmax = 1/4 + μ, and AᵀA/n = I/d, so L = 1/(4d) + μ.
func oneHot(k, d int) *libsvm.Dataset {
	ds := &libsvm.Dataset{Ptr: []int{0}, D: d}
	for i := range k * d {
		ds.Idx = append(ds.Idx, int32(i%d))
		ds.Val = append(ds.Val, 1)
		ds.Ptr = append(ds.Ptr, len(ds.Idx))
		// Three in four of a feature's examples share a label, so x* ≠ 0.
		y := 1.0
		if (i/d%4 == 0) != (i%d%2 == 1) {
			y = -1
		}
		ds.Labels = append(ds.Labels, y)
	}
	return ds
}

// The result files each curve under the schedule it was run with and
// reports the step it used, checked against the paper's formulas (Appendix
// C) evaluated here from the set's closed-form constants, not from the
// code that ran it. Planted bugs this catches: the constant-step curves
// filed under the decreasing schedule and the reverse, and Alpha reported
// as 2𝓛 instead of 1/(2𝓛).
func TestDatasetCurvesMatchTheirSchedules(t *testing.T) {
	const k, d, m, epochs, per = 40, 5, 16, 6, 2
	n := k * d
	mu := 1 / float64(n)
	lmax, l := 0.25+mu, 0.25/float64(d)+mu
	nf, mf := float64(n), float64(m)
	bigL := (nf-mf)/(mf*(nf-1))*lmax + nf*(mf-1)/(mf*(nf-1))*l
	alpha := 1 / (2 * bigL)
	// α_k of the decreasing schedule: k0 = 4𝓛/μ − 2, c = 2𝓛/μ.
	k0, c := 4*bigL/mu-2, 2*bigL/mu
	decr := func(it float64) float64 {
		kk := it + k0
		return (2*kk + 1) / ((c + kk*(kk+2)) * mu)
	}

	res, err := srg.Dataset(srg.DatasetConfig{
		Name: "onehot", Runs: 2, Epochs: epochs, Batch: m, PerEpoch: per, Seed: 5, Data: oneHot(k, d),
		WithReplacement: true, // SVRG's full passes need not divide the epochs
	})
	require.NoError(t, err)
	require.InEpsilon(t, lmax, res.Lmax, 1e-12)
	require.InEpsilon(t, l, res.L, 1e-9)
	require.InEpsilon(t, bigL, res.BigL, 1e-9)
	require.InEpsilon(t, alpha, res.Alpha, 1e-9, "the reported step is 1/(2𝓛)")

	methods := []string{"SGD", "SRG", "Reshuffled", "SVRG"}
	require.Len(t, res.Constant, len(methods))
	require.Len(t, res.Decreasing, len(methods))
	for i, name := range methods {
		cc, dc := res.Constant[i], res.Decreasing[i]
		require.Equal(t, name, cc.Method)
		require.Equal(t, name, dc.Method)
		require.Len(t, cc.Alpha, epochs*per+1)
		require.Len(t, dc.Alpha, epochs*per+1)
		for _, a := range cc.Alpha {
			require.InEpsilon(t, alpha, a, 1e-12, "constant-step %s runs at 1/(2𝓛) throughout", name)
		}
		require.InEpsilon(t, alpha, dc.Alpha[0], 1e-9, "decreasing-step %s starts at 1/(2𝓛)", name)
		// Non-increasing (SVRG's full gradients can fill a checkpoint
		// without an iteration), and lower at the end.
		for j := 1; j < len(dc.Alpha); j++ {
			require.LessOrEqual(t, dc.Alpha[j], dc.Alpha[j-1], "decreasing-step %s at checkpoint %d", name, j)
		}
		require.Less(t, dc.Alpha[len(dc.Alpha)-1], 0.9*alpha, "decreasing-step %s ends lower", name)
		if name == "SGD" || name == "SRG" {
			// m examples an iteration: ⌈epochs·n/m⌉ iterations in all,
			// and ⌈j·n/(per·m)⌉ before checkpoint j, whose step is that of
			// the last of them (checkpoint 0's, the first's).
			last := math.Ceil(float64(epochs*n) / m)
			require.InEpsilon(t, decr(last-1), dc.Alpha[len(dc.Alpha)-1], 1e-9, "%s's last step", name)
			for j, a := range dc.Alpha {
				iters := math.Ceil(float64(j*n) / (per * m))
				require.InEpsilon(t, decr(max(iters-1, 0)), a, 1e-9, "%s's step at checkpoint %d", name, j)
			}
		}
		require.Equal(t, cc.Log10Err[len(cc.Log10Err)-1], res.FinalLog10["constant/"+name])
		require.Equal(t, dc.Log10Err[len(dc.Log10Err)-1], res.FinalLog10["decreasing/"+name])
	}
}
