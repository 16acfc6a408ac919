package srg

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// Dense is a Rows holding an n×d matrix in row-major order. Every row
// reports all d indices, zeros included, so a gradient costs O(d) whatever
// the sparsity; for data with many zeros a sparse Rows such as
// *libsvm.Dataset is cheaper. A Dense is immutable after construction.
type Dense struct {
	n, d int
	// idx is 0, 1, …, d−1, shared by every row: the sparse view of a dense
	// row costs no memory per row.
	idx  []int32
	data []float64
}

// NewDense copies rows, one slice per example, into a Dense. It returns an
// error if there are no rows or no columns, if the rows differ in length, or
// if a value is NaN or infinite (such a value would poison every iterate that
// touches it).
func NewDense(rows [][]float64) (*Dense, error) {
	if len(rows) == 0 {
		return nil, fmt.Errorf("%w: dense matrix has no rows", ErrInput)
	}
	d := len(rows[0])
	if err := checkDims(len(rows), d); err != nil {
		return nil, err
	}
	for i, r := range rows {
		if len(r) != d {
			return nil, fmt.Errorf("%w: dense row %d has %d columns, row 0 has %d", ErrInput, i, len(r), d)
		}
		for j, v := range r {
			if err := checkFinite(i, j, v); err != nil {
				return nil, err
			}
		}
	}
	m := newDense(len(rows), d)
	for i, r := range rows {
		copy(m.data[i*d:], r)
	}
	return m, nil
}

// DenseFromMatrix copies a gonum matrix, one row per example, into a Dense.
// It returns an error if the matrix is empty or holds a NaN or infinite
// value.
func DenseFromMatrix(a mat.Matrix) (*Dense, error) {
	if a == nil {
		return nil, fmt.Errorf("%w: nil matrix", ErrInput)
	}
	n, d := a.Dims()
	if n == 0 {
		return nil, fmt.Errorf("%w: dense matrix has no rows", ErrInput)
	}
	if err := checkDims(n, d); err != nil {
		return nil, err
	}
	m := newDense(n, d)
	for i := range n {
		for j := range d {
			v := a.At(i, j)
			if err := checkFinite(i, j, v); err != nil {
				return nil, err
			}
			m.data[i*d+j] = v
		}
	}
	return m, nil
}

func checkDims(n, d int) error {
	if d == 0 {
		return fmt.Errorf("%w: dense matrix has no columns", ErrInput)
	}
	// Rows reports indices as int32.
	if d > math.MaxInt32 {
		return fmt.Errorf("%w: dense matrix has %d columns, more than int32 indices reach", ErrInput, d)
	}
	if n > math.MaxInt/d {
		return fmt.Errorf("%w: dense matrix of %d×%d values is too large", ErrInput, n, d)
	}
	return nil
}

func checkFinite(i, j int, v float64) error {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return fmt.Errorf("%w: dense value at row %d, column %d is %v", ErrInput, i, j, v)
	}
	return nil
}

func newDense(n, d int) *Dense {
	m := &Dense{n: n, d: d, idx: make([]int32, d), data: make([]float64, n*d)}
	for j := range m.idx {
		m.idx[j] = int32(j)
	}
	return m
}

// Len returns n, the number of examples (rows).
func (m *Dense) Len() int { return m.n }

// Dim returns d, the number of features (columns).
func (m *Dense) Dim() int { return m.d }

// Row returns the indices 0, …, d−1 and the d values of row i. The slices
// alias the matrix; the caller must not modify them.
func (m *Dense) Row(i int) ([]int32, []float64) {
	return m.idx[:m.d:m.d], m.data[i*m.d : (i+1)*m.d : (i+1)*m.d]
}
