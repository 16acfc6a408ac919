package srg

import "math"

// iterate holds x = s·v + t·h so that the shrinkage x ← (1 − αμ)x of the
// regulariser costs O(1) instead of O(d), a step along a sparse row costs
// O(nnz), and so does a step along a fixed dense vector h (SVRG's
// μw − ∇F(w), fixed between refreshes of w): the standard lazy
// representation, which keeps an iteration's cost proportional to the
// non-zeros of its rows whatever d. When track is set it also keeps ‖v‖²,
// from which ‖x‖² (needed for ‖∇f_i(x)‖ when μ > 0) follows: by the change
// of each sparse update, or, with recompute, summed afresh when asked after
// an update (O(d), cheaper than following the updates when d is below the
// non-zeros an iteration touches); track and h are not used together.
type iterate struct {
	v         []float64
	s         float64
	h         []float64 // nil, or the dense direction of t
	t         float64
	sq        float64 // ‖v‖², maintained only when track is set
	track     bool
	recompute bool // with track: sq is summed afresh when stale
	stale     bool // with recompute: v changed since sq was summed
}

// newIterate returns the iterate x0; track keeps ‖x‖², by following the
// updates or, with recompute, by summing it afresh when asked.
func newIterate(x0 []float64, track, recompute bool) *iterate {
	it := &iterate{v: append([]float64(nil), x0...), s: 1, track: track, recompute: track && recompute}
	it.sq = dot(it.v, it.v)
	return it
}

// dot returns a_iᵀx for the sparse row (idx, val).
func (it *iterate) dot(idx []int32, val []float64) float64 {
	v := it.v
	var t float64
	if h := it.h; h != nil {
		var u float64
		for k, j := range idx {
			t += val[k] * v[j]
			u += val[k] * h[j]
		}
		return it.s*t + it.t*u
	}
	for k, j := range idx {
		t += val[k] * v[j]
	}
	return it.s * t
}

// dotSq returns a_iᵀx and ‖a_i‖² for the sparse row (idx, val), the latter
// summed in the order of NewProblem's, so that it equals Problem's ‖a_i‖²
// bit for bit. The iterate must have no dense direction h.
func (it *iterate) dotSq(idx []int32, val []float64) (t, aa float64) {
	v := it.v
	val = val[:len(idx)] // no bounds check on val[k] in the loop
	for k, j := range idx {
		a := val[k]
		t += a * v[j]
		aa += a * a
	}
	return it.s * t, aa
}

// sqnorm returns ‖x‖² (only meaningful when track is set).
func (it *iterate) sqnorm() float64 {
	if it.stale {
		it.sq, it.stale = sumSq(it.v), false
	}
	return it.s * it.s * it.sq
}

// sumSq returns ‖v‖², in four running sums so that the additions overlap.
func sumSq(v []float64) float64 {
	var s0, s1, s2, s3 float64
	k := 0
	for ; k+4 <= len(v); k += 4 {
		w := v[k : k+4 : k+4]
		s0 += w[0] * w[0]
		s1 += w[1] * w[1]
		s2 += w[2] * w[2]
		s3 += w[3] * w[3]
	}
	for ; k < len(v); k++ {
		s0 += v[k] * v[k]
	}
	return (s0 + s1) + (s2 + s3)
}

// scale sets x ← f·x.
func (it *iterate) scale(f float64) {
	if f == 1 {
		return
	}
	it.s *= f
	it.t *= f
	if a := math.Abs(it.s); a < 0x1p-300 || a > 0x1p300 || f == 0 {
		it.fold()
	}
}

// fold moves s and t·h into v; it also recomputes ‖v‖², removing any
// drift. It costs O(d): callers fold at checkpoints, at SVRG's refreshes
// (before h changes) and when s leaves the safe range.
func (it *iterate) fold() {
	if it.h != nil {
		for j := range it.v {
			it.v[j] = it.s*it.v[j] + it.t*it.h[j]
		}
	} else {
		for j := range it.v {
			it.v[j] *= it.s
		}
	}
	it.s, it.t = 1, 0
	it.sq, it.stale = dot(it.v, it.v), false
}

// setDirection makes h the dense direction of later addDirection calls,
// after folding the old one into v. The caller may change h only after
// another fold (or setDirection).
func (it *iterate) setDirection(h []float64) {
	it.fold()
	it.h = h
}

// addDirection sets x ← x + c·h in O(1).
func (it *iterate) addDirection(c float64) { it.t += c }

// addRow sets x ← x + c·a for the sparse row (idx, val).
func (it *iterate) addRow(c float64, idx []int32, val []float64) {
	c /= it.s
	v := it.v
	if !it.track || it.recompute {
		for k, j := range idx {
			v[j] += c * val[k]
		}
		it.stale = it.recompute
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
		it.sq, it.stale = dot(it.v, it.v), false
	}
}

// dense writes x into dst.
func (it *iterate) dense(dst []float64) {
	if h := it.h; h != nil {
		for j, a := range it.v {
			dst[j] = it.s*a + it.t*h[j]
		}
		return
	}
	for j, a := range it.v {
		dst[j] = it.s * a
	}
}
