package srg_test

import (
	"math"
	"testing"

	"github.com/reweighted/reweighted/libsvm"
	"github.com/reweighted/reweighted/srg"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/mat"
)

// Every kind of bad input to the constructors and to Run is reported with
// the sentinel ErrInput.
func TestErrInput(t *testing.T) {
	_, err := srg.NewDense(nil)
	require.ErrorIs(t, err, srg.ErrInput)
	_, err = srg.NewDense([][]float64{{1, 2}, {3}})
	require.ErrorIs(t, err, srg.ErrInput)
	_, err = srg.NewDense([][]float64{{1, math.NaN()}})
	require.ErrorIs(t, err, srg.ErrInput)
	_, err = srg.DenseFromMatrix(nil)
	require.ErrorIs(t, err, srg.ErrInput)
	_, err = srg.DenseFromMatrix(mat.NewDense(1, 1, []float64{math.Inf(1)}))
	require.ErrorIs(t, err, srg.ErrInput)

	ds := libsvm.Synthetic(2, 20, 3)
	_, err = srg.NewProblem(ds, ds.Labels[:3], srg.Squared, 0)
	require.ErrorIs(t, err, srg.ErrInput)
	_, err = srg.NewProblem(ds, ds.Labels, nil, 0)
	require.ErrorIs(t, err, srg.ErrInput)
	bad := append([]float64(nil), ds.Labels...)
	bad[0] = math.NaN()
	_, err = srg.NewProblem(ds, bad, srg.Squared, 0)
	require.ErrorIs(t, err, srg.ErrInput)
	_, err = srg.NewProblem(ds, ds.Labels, srg.Logistic, 0) // labels not ±1
	require.ErrorIs(t, err, srg.ErrInput)

	p, err := srg.NewProblem(ds, ds.Labels, srg.Squared, 0)
	require.NoError(t, err)
	for _, o := range []srg.Options{
		{Method: srg.SGD}, // no schedule
		{Method: srg.SGD, Schedule: srg.Constant{Alpha: 0.1}, Batch: -1},                      // bad batch
		{Method: srg.SGD, Schedule: srg.Constant{Alpha: 0.1}, Epochs: 1, Suboptimality: true}, // no x*
		{Method: srg.SGD, Schedule: srg.Constant{Alpha: 0.1}, Epochs: 1, XStar: []float64{1}}, // x* of the wrong length
	} {
		_, err := srg.Run(p, o)
		require.ErrorIs(t, err, srg.ErrInput, "%+v", o)
	}
}
