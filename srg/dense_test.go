package srg_test

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/mat"
	"pgregory.net/rapid"

	"github.com/reweighted/reweighted/libsvm"
	"github.com/reweighted/reweighted/srg"
)

// genMatrix draws a small n×d matrix with zeros on purpose (whole zero rows
// and columns included), so that its sparse form differs from the dense one.
func genMatrix(t *rapid.T) [][]float64 {
	n := rapid.IntRange(1, 8).Draw(t, "n")
	d := rapid.IntRange(1, 5).Draw(t, "d")
	val := rapid.OneOf(rapid.Just(0.0), rapid.Float64Range(-2, 2), rapid.SampledFrom([]float64{1, -1, 0.5}))
	a := make([][]float64, n)
	for i := range a {
		a[i] = rapid.SliceOfN(val, d, d).Draw(t, "row")
	}
	return a
}

// sparseOf builds the CSR data set of the non-zeros of a, built here by hand
// rather than through Dense, so that the two representations share no code.
func sparseOf(a [][]float64, labels []float64) *libsvm.Dataset {
	ds := &libsvm.Dataset{Ptr: []int{0}, D: len(a[0]), Labels: labels}
	for _, r := range a {
		for j, v := range r {
			if v != 0 {
				ds.Idx = append(ds.Idx, int32(j))
				ds.Val = append(ds.Val, v)
			}
		}
		ds.Ptr = append(ds.Ptr, len(ds.Idx))
	}
	return ds
}

// Property (differential): a Dense matrix and the sparse data set of its
// non-zeros define the same problem — the same per-example and full
// gradients, values, gradient norms and constants — and every method, run
// with the same seed on either, records the same trace.
func TestDenseMatchesSparse(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		a := genMatrix(t)
		n, d := len(a), len(a[0])
		loss := rapid.SampledFrom([]srg.Loss{srg.Logistic, srg.Squared}).Draw(t, "loss")
		y := make([]float64, n)
		for i := range y {
			if loss == srg.Logistic {
				y[i] = float64(2*rapid.IntRange(0, 1).Draw(t, "label") - 1)
			} else {
				y[i] = rapid.Float64Range(-3, 3).Draw(t, "target")
			}
		}
		mu := rapid.SampledFrom([]float64{0, 0.1, 1}).Draw(t, "mu")
		dm, err := srg.NewDense(a)
		require.NoError(t, err)
		pd, err := srg.NewProblem(dm, y, loss, mu)
		require.NoError(t, err)
		ps, err := srg.NewProblem(sparseOf(a, y), y, loss, mu)
		require.NoError(t, err)

		x := rapid.SliceOfN(rapid.Float64Range(-3, 3), d, d).Draw(t, "x")
		gd, gs := make([]float64, d), make([]float64, d)
		for i := range n {
			pd.Grad(i, x, gd)
			ps.Grad(i, x, gs)
			require.Equal(t, gs, gd, "∇f_%d", i)
		}
		pd.FullGrad(x, gd)
		ps.FullGrad(x, gs)
		require.Equal(t, gs, gd, "∇F")
		require.Equal(t, ps.Value(x), pd.Value(x), "F")
		require.Equal(t, ps.GradNorms(x), pd.GradNorms(x), "‖∇f_i‖")
		require.Equal(t, ps.Lmax(), pd.Lmax(), "Lmax")
		require.InDelta(t, ps.L(), pd.L(), 1e-12*ps.L(), "L")

		solD, errD := pd.Solve(1e-10)
		solS, errS := ps.Solve(1e-10)
		require.Equal(t, errS, errD, "Solve's errors")
		require.Equal(t, solS, solD, "Solve")

		alpha := 0.5 / math.Max(pd.Lmax(), 1)
		for _, m := range []srg.Method{srg.SGD, srg.Reshuffled, srg.SRG, srg.SVRG} {
			o := srg.Options{Method: m, Schedule: srg.Constant{Alpha: alpha, Eps: 0.5 / float64(n)},
				Batch: 2, NewSampler: newNaive, Seed: 7, X0: x, Epochs: 3, PerEpoch: 2, Variance: true}
			trd, err := srg.Run(pd, o)
			require.NoError(t, err)
			trs, err := srg.Run(ps, o)
			require.NoError(t, err)
			// Wall-clock seconds differ from run to run; the rest is exact.
			require.Len(t, trd.Seconds, len(trs.Seconds))
			trs.Seconds, trd.Seconds = nil, nil
			require.Equal(t, trs, trd, "%v", m)
		}
	})
}

// Property: DenseFromMatrix and NewDense read the same rows, and both copy
// their input: changing it afterwards leaves the Dense as it was.
func TestDenseFromMatrix(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		a := genMatrix(t)
		n, d := len(a), len(a[0])
		g := mat.NewDense(n, d, nil)
		for i, r := range a {
			g.SetRow(i, r)
		}
		m1, err := srg.NewDense(a)
		require.NoError(t, err)
		m2, err := srg.DenseFromMatrix(g)
		require.NoError(t, err)
		require.Equal(t, n, m1.Len())
		require.Equal(t, d, m1.Dim())
		for i := range n {
			idx, val := m1.Row(i)
			require.Equal(t, a[i], val)
			for j, k := range idx {
				require.Equal(t, int32(j), k)
			}
			idx2, val2 := m2.Row(i)
			require.Equal(t, idx, idx2)
			require.Equal(t, val, val2)
		}
		old := a[0][0]
		a[0][0] = old + 1
		g.Set(0, 0, old+1)
		_, v1 := m1.Row(0)
		_, v2 := m2.Row(0)
		require.Equal(t, old, v1[0])
		require.Equal(t, old, v2[0])
	})
}

func TestDenseBadInput(t *testing.T) {
	for _, c := range []struct {
		name string
		rows [][]float64
		err  string
	}{
		{"nil", nil, "no rows"},
		{"no rows", [][]float64{}, "no rows"},
		{"no columns", [][]float64{{}, {}}, "no columns"},
		{"ragged", [][]float64{{1, 2}, {3}}, "row 1 has 1 columns, row 0 has 2"},
		{"NaN", [][]float64{{1, 2}, {3, math.NaN()}}, "row 1, column 1 is NaN"},
		{"+Inf", [][]float64{{math.Inf(1), 2}}, "row 0, column 0 is +Inf"},
		{"-Inf", [][]float64{{1, 2}, {3, 4}, {math.Inf(-1), 0}}, "row 2, column 0 is -Inf"},
	} {
		t.Run(c.name, func(t *testing.T) {
			before := bits(c.rows)
			m, err := srg.NewDense(c.rows)
			require.ErrorContains(t, err, c.err)
			require.Nil(t, m)
			require.Equal(t, before, bits(c.rows), "the input is unchanged")
			if len(c.rows) == 0 || len(c.rows[0]) == 0 || c.name == "ragged" {
				return
			}
			g := mat.NewDense(len(c.rows), len(c.rows[0]), nil)
			for i, r := range c.rows {
				g.SetRow(i, r)
			}
			gb := bits([][]float64{mat.DenseCopyOf(g).RawMatrix().Data})
			m, err = srg.DenseFromMatrix(g)
			require.ErrorContains(t, err, c.err)
			require.Nil(t, m)
			require.Equal(t, gb, bits([][]float64{g.RawMatrix().Data}), "the input is unchanged")
		})
	}
	m, err := srg.DenseFromMatrix(nil)
	require.ErrorContains(t, err, "nil matrix")
	require.Nil(t, m)
	m, err = srg.DenseFromMatrix(&mat.Dense{})
	require.ErrorContains(t, err, "no rows")
	require.Nil(t, m)
}

// bits returns the bit patterns of a, so that NaNs compare equal to
// themselves.
func bits(a [][]float64) [][]uint64 {
	if a == nil {
		return nil
	}
	out := make([][]uint64, len(a))
	for i, r := range a {
		out[i] = make([]uint64, len(r))
		for j, v := range r {
			out[i][j] = math.Float64bits(v)
		}
	}
	return out
}
