package libsvm

import (
	"math"
	"math/rand/v2"
	"slices"
)

// Shape describes a sparse binary-classification set for TextLike: N
// examples over D features with RowNNZ non-zeros a row on average.
type Shape struct {
	Name         string
	N, D, RowNNZ int
}

// Shapes of two text sets of the LIBSVM binary page that papers on variance
// reduction and importance sampling report: their sizes and mean row
// lengths.
var (
	// RCV1 is rcv1.binary: 20,242 examples, 47,236 features, 74 non-zeros a row.
	RCV1 = Shape{Name: "rcv1", N: 20242, D: 47236, RowNNZ: 74}
	// News20 is news20.binary: 19,996 examples, 1,355,191 features, 455
	// non-zeros a row.
	News20 = Shape{Name: "news20", N: 19996, D: 1355191, RowNNZ: 455}
)

// Scaled returns the shape with n and d divided by k (at least 1 each) and
// rows as long as before (at most the new d).
func (s Shape) Scaled(k int) Shape {
	s.N, s.D = max(s.N/k, 1), max(s.D/k, 1)
	s.RowNNZ = min(s.RowNNZ, s.D)
	return s
}

// TextLike generates, deterministically from seed, a binary classification
// set shaped like a bag-of-words text set: row lengths spread around
// s.RowNNZ (exponentially distributed, at least 1, at most s.D), feature
// indices half from a Zipf law over the features (frequent words) and half
// uniform (rare ones), positive values, rows scaled to unit norm, and labels
// ±1 from the sign of a planted linear model plus noise, so that neither
// label dominates and the set is not separable by the planted model alone.
// Dim() is s.D even if the largest index drawn is smaller.
func TextLike(seed uint64, s Shape) *Dataset {
	rng := rand.New(rand.NewPCG(seed, 0x7e47))
	d := max(s.D, 1)
	zipf := rand.NewZipf(rng, 1.1, 1, uint64(d-1))
	w := make([]float64, d)
	for j := range w {
		w[j] = rng.NormFloat64()
	}
	ds := &Dataset{Labels: make([]float64, s.N), Ptr: make([]int, 1, s.N+1), D: d}
	ds.Idx = make([]int32, 0, s.N*max(s.RowNNZ, 1))
	ds.Val = make([]float64, 0, s.N*max(s.RowNNZ, 1))
	seen := map[int32]bool{}
	for i := range s.N {
		k := int(math.Round(float64(s.RowNNZ) * rng.ExpFloat64()))
		k = min(max(k, 1), d)
		clear(seen)
		start := len(ds.Idx)
		for len(seen) < k {
			var j int32
			if rng.IntN(2) == 0 {
				j = int32(zipf.Uint64())
			} else {
				j = int32(rng.IntN(d))
			}
			if !seen[j] {
				seen[j] = true
				ds.Idx = append(ds.Idx, j)
			}
		}
		row := ds.Idx[start:]
		slices.Sort(row)
		var sq, margin float64
		for _, j := range row {
			v := 0.1 + rng.ExpFloat64()
			ds.Val = append(ds.Val, v)
			sq += v * v
			margin += v * w[j]
		}
		inv := 1 / math.Sqrt(sq)
		for k := start; k < len(ds.Val); k++ {
			ds.Val[k] *= inv
		}
		// Noise of the size of the margin's spread, which is about 1 after
		// the scaling.
		if margin*inv+rng.NormFloat64() > 0 {
			ds.Labels[i] = 1
		} else {
			ds.Labels[i] = -1
		}
		ds.Ptr = append(ds.Ptr, len(ds.Idx))
	}
	return ds
}
