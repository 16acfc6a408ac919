package srg_test

import (
	"flag"
	"math"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/reweighted/reweighted"
	"github.com/reweighted/reweighted/internal/paperdata"
	"github.com/reweighted/reweighted/libsvm"
	"github.com/reweighted/reweighted/naive"
	"github.com/reweighted/reweighted/ost"
	"github.com/reweighted/reweighted/srg"
)

var (
	long    = flag.Bool("long", false, "run the paper's experiments at full size (about ten minutes with all four data sets, beyond the default timeout: use -timeout 30m; the data sets are read from -data when present)")
	dataDir = flag.String("data", "", "folder holding the LIBSVM files ijcnn1.gz and w8a.gz, which -long's data-set experiments and the epoch benchmarks run on beside the embedded mushrooms and phishing")
)

func newNaive(n int) reweighted.Distribution { return naive.New(n) }
func newOST(n int) reweighted.Distribution   { return ost.New(n) }

func checkCurve(t *testing.T, c srg.Curve, points int, withVar bool) {
	t.Helper()
	require.Len(t, c.Evals, points, c.Method)
	require.Len(t, c.Log10Err, points, c.Method)
	require.Equal(t, 0.0, c.Log10Err[0], "%s: the relative error starts at 1", c.Method)
	if withVar {
		require.Len(t, c.Log10Var, points, c.Method)
	} else {
		require.Nil(t, c.Log10Var, c.Method)
	}
	for k, v := range c.Log10Err {
		require.False(t, math.IsNaN(v) || math.IsInf(v, 0), "%s at %d", c.Method, k)
	}
}

// A reduced synthetic experiment already shows SRG's floor well below SGD's.
// Its ratio r is checked against the paper's closed forms at x*:
// σ² = (1/n)Σ‖∇f_i‖² and σ*² = (1/n²)(Σ‖∇f_i‖)².
func TestSyntheticSmall(t *testing.T) {
	res, err := srg.Synthetic(srg.SyntheticConfig{Runs: 4, Epochs: 12, Seed: 3, NewSampler: newNaive})
	require.NoError(t, err)
	require.Equal(t, 1000, res.N)
	require.Equal(t, 10, res.D)

	ds := libsvm.Synthetic(3, 1000, 10)
	p, err := srg.NewProblem(ds, ds.Labels, srg.Squared, 0)
	require.NoError(t, err)
	sol, err := p.Solve(1e-12)
	require.NoError(t, err)
	var sum, sumSq float64
	for _, a := range p.GradNorms(sol.X) {
		sum += a
		sumSq += a * a
	}
	n := float64(p.Len())
	sigma2, sigmaStar2 := sumSq/n, sum*sum/(n*n)
	require.InEpsilon(t, sigma2, res.Sigma2, 1e-9)
	require.InEpsilon(t, sigmaStar2, res.SigmaStar2, 1e-9)
	require.InEpsilon(t, sigma2/sigmaStar2, res.RatioR, 1e-9)
	require.True(t, res.RatioR >= 10 && res.RatioR <= 200, "r = %v is outside a loose sanity range", res.RatioR)
	require.LessOrEqual(t, res.GradNorm, 1e-12)
	var xSq float64
	for _, v := range sol.X {
		xSq += v * v
	}
	require.InEpsilon(t, xSq, res.XStarSq, 1e-9, "‖x*‖²")
	require.Len(t, res.Curves, 2)
	for _, c := range res.Curves {
		checkCurve(t, c, 12*4+1, true)
	}
	require.Less(t, res.Log10ErrSRG, res.Log10ErrSGD-0.5)
	// SRG's estimator variance ends below SGD's σ².
	v := res.Curves[1].Log10Var
	require.Less(t, v[len(v)-1], math.Log10(res.Sigma2)-0.5)
}

// The data-set experiment on a small in-memory logistic problem: every
// method and schedule, with the shapes the report expects.
func TestDatasetSmall(t *testing.T) {
	ds := libsvm.Synthetic(4, 400, 5)
	require.NoError(t, libsvm.BinaryLabels(signs(ds.Labels)))
	ds.NormalizeRows()
	res, err := srg.Dataset(srg.DatasetConfig{Name: "tiny", Data: ds, Runs: 2, Epochs: 6, Batch: 8, Seed: 1, NewSampler: newNaive})
	require.NoError(t, err)
	require.Equal(t, 400, res.N)
	require.GreaterOrEqual(t, res.RatioR, 1.0)
	require.InDelta(t, 0.25+1.0/400, res.Lmax, 1e-12)
	require.Less(t, res.L, res.Lmax)
	require.InDelta(t, srg.MiniBatchSmoothness(400, 8, res.Lmax, res.L), res.BigL, 0)
	require.Len(t, res.FinalLog10, 8)
	for _, cs := range [][]srg.Curve{res.Constant, res.Decreasing} {
		require.Len(t, cs, 4)
		for _, c := range cs {
			checkCurve(t, c, 6*2+1, false)
			require.Less(t, c.Log10Err[len(c.Log10Err)-1], -0.3, c.Method)
		}
	}
	require.Contains(t, res.FinalLog10, "constant/SRG")
	require.Contains(t, res.FinalLog10, "decreasing/Reshuffled")
	require.Equal(t, srg.WithoutReplacement, res.Protocol, "the paper's protocol is the default")
	// The spread brackets the mean: log10 of a mean of errors lies between
	// the logs of the smallest and largest; the time spent only grows.
	for _, cs := range [][]srg.Curve{res.Constant, res.Decreasing} {
		for _, c := range cs {
			require.Len(t, c.Seconds, len(c.Evals))
			for k := range c.Evals {
				require.LessOrEqual(t, c.Log10ErrMin[k], c.Log10Err[k]+1e-12, c.Method)
				require.GreaterOrEqual(t, c.Log10ErrMax[k], c.Log10Err[k]-1e-12, c.Method)
				if k > 0 {
					require.GreaterOrEqual(t, c.Seconds[k], c.Seconds[k-1], c.Method)
				}
			}
			require.Zero(t, c.Seconds[0])
		}
	}
	rep, err := srg.Dataset(srg.DatasetConfig{Name: "tiny", Data: ds, Runs: 1, Epochs: 1, Batch: 8, Seed: 1,
		NewSampler: newNaive, WithReplacement: true, PaperOnly: true})
	require.NoError(t, err)
	require.Equal(t, srg.WithReplacement, rep.Protocol)
}

func signs(y []float64) []float64 {
	for i, v := range y {
		y[i] = math.Copysign(1, v)
	}
	return y
}

// The paper's synthetic experiment at full size (100 runs).
func TestSyntheticLong(t *testing.T) {
	if !*long {
		t.Skip("needs -long")
	}
	for _, seed := range []uint64{3, 1} {
		res, err := srg.Synthetic(srg.SyntheticConfig{Runs: 100, Epochs: 50, Seed: seed, NewSampler: newOST, PerEpoch: 1, Workers: 2})
		require.NoError(t, err)
		t.Logf("seed %d: r = %.1f, σ² = %.4g, σ*² = %.4g, log10 final error SGD %.2f, SRG %.2f (gap %.2f)",
			seed, res.RatioR, res.Sigma2, res.SigmaStar2, res.Log10ErrSGD, res.Log10ErrSRG, res.Log10ErrSGD-res.Log10ErrSRG)
		for _, c := range res.Curves {
			t.Logf("%s log10 var at the end: %.2f", c.Method, c.Log10Var[len(c.Log10Var)-1])
		}
		require.Less(t, res.Log10ErrSRG, res.Log10ErrSGD)
	}
}

// The paper's data-set experiments: 300 epochs and 10 runs on the two small
// sets, which are embedded; 200 epochs and 3 runs on the two sets of 50 000
// examples, read from the folder given by -data (they are not
// redistributed here: without -data their subtests say so and skip). The
// runs go one at a time; all four sets take about ten minutes on two cores,
// beyond go test's default timeout:
//
//	go test ./srg -run TestDatasetLong -long -data DIR -timeout 30m -v
func TestDatasetLong(t *testing.T) {
	if !*long {
		t.Skip("needs -long")
	}
	for _, c := range []struct {
		name         string
		runs, epochs int
	}{{"mushrooms", 10, 300}, {"phishing", 10, 300}, {"ijcnn1", 3, 200}, {"w8a", 3, 200}} {
		t.Run(c.name, func(t *testing.T) {
			ds := readSet(t, c.name)
			res, err := srg.Dataset(srg.DatasetConfig{Name: c.name, Data: ds, Runs: c.runs, Epochs: c.epochs,
				PerEpoch: 1, Seed: 1, NewSampler: newOST, PaperOnly: true})
			require.NoError(t, err)
			t.Logf("%s: n = %d, d = %d, r = %.2f, L = %.4f, 𝓛 = %.4f, ‖∇F(x*)‖ = %.1e, final log10 errors %v",
				c.name, res.N, res.D, res.RatioR, res.L, res.BigL, res.GradNorm, res.FinalLog10)
			require.Less(t, res.FinalLog10["constant/SRG"], res.FinalLog10["constant/SGD"])
		})
	}
}

// readSet returns the data set name: embedded for mushrooms and phishing,
// else read from the folder of -data. Without -data it skips, naming the
// flag: w8a and ijcnn1 are not redistributed with the module.
func readSet(tb testing.TB, name string) *libsvm.Dataset {
	tb.Helper()
	if s, ok := paperdata.Lookup(name); ok {
		ds, err := s.Read()
		require.NoError(tb, err)
		return ds
	}
	if *dataDir == "" {
		tb.Skipf("%s is not embedded: give -data DIR, a folder holding %s.gz", name, name)
	}
	ds, err := libsvm.ReadFile(filepath.Join(*dataDir, name+".gz"))
	require.NoError(tb, err, "-data %s", *dataDir)
	return ds
}
