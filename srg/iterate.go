package srg

import "math"

// iterate holds x = s·v so that the shrinkage x ← (1 − αμ)x of the
// regulariser costs O(1) instead of O(d), and a step along a sparse row
// costs O(nnz). When track is set it also keeps ‖v‖², from which ‖x‖² (needed
// for ‖∇f_i(x)‖ when μ > 0) follows in O(1).
type iterate struct {
	v     []float64
	s     float64
	sq    float64 // ‖v‖², maintained only when track is set
	track bool
}

func newIterate(x0 []float64, track bool) *iterate {
	it := &iterate{v: append([]float64(nil), x0...), s: 1, track: track}
	it.sq = dot(it.v, it.v)
	return it
}

// dot returns a_iᵀx for the sparse row (idx, val).
func (it *iterate) dot(idx []int32, val []float64) float64 {
	v := it.v
	var t float64
	for k, j := range idx {
		t += val[k] * v[j]
	}
	return it.s * t
}

// dotSq returns a_iᵀx and ‖a_i‖² for the sparse row (idx, val), in one pass.
func (it *iterate) dotSq(idx []int32, val []float64) (t, aa float64) {
	v := it.v
	for k, j := range idx {
		a := val[k]
		t += a * v[j]
		aa += a * a
	}
	return it.s * t, aa
}

// sqnorm returns ‖x‖² (only meaningful when track is set).
func (it *iterate) sqnorm() float64 { return it.s * it.s * it.sq }

// scale sets x ← f·x.
func (it *iterate) scale(f float64) {
	if f == 1 {
		return
	}
	it.s *= f
	if a := math.Abs(it.s); a < 0x1p-300 || a > 0x1p300 || f == 0 {
		it.fold()
	}
}

// fold moves s into v; it also recomputes ‖v‖², removing any drift.
func (it *iterate) fold() {
	for j := range it.v {
		it.v[j] *= it.s
	}
	it.s = 1
	it.sq = dot(it.v, it.v)
}

// addRow sets x ← x + c·a for the sparse row (idx, val).
func (it *iterate) addRow(c float64, idx []int32, val []float64) {
	c /= it.s
	v := it.v
	if !it.track {
		for k, j := range idx {
			v[j] += c * val[k]
		}
		return
	}
	d := 0.0
	for k, j := range idx {
		old := v[j]
		nw := old + c*val[k]
		v[j] = nw
		d += (nw - old) * (nw + old)
	}
	it.sq += d
}

// addDense sets x ← x + c·g.
func (it *iterate) addDense(c float64, g []float64) {
	c /= it.s
	for j := range it.v {
		it.v[j] += c * g[j]
	}
	if it.track {
		it.sq = dot(it.v, it.v)
	}
}

// dense writes x into dst.
func (it *iterate) dense(dst []float64) {
	for j, a := range it.v {
		dst[j] = it.s * a
	}
}
