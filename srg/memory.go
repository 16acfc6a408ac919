package srg

import "math"

// DatasetMemory estimates the peak bytes that Dataset allocates for a data
// set of n examples and d features, beyond the data set itself (whose rows
// every stage reads in place, whatever their non-zeros), with workers runs
// in flight and runs runs per curve: the largest
// of the stages x* (Solve), L and the runs, each on top of what lives
// through all of them (the row norms, x*, the traces kept for averaging),
// tripled for the garbage collector's headroom.
// It is what a caller compares with the memory it has before anything is
// allocated: for d above DenseMaxDim every term is O(n + d), no d×d
// matrix. The estimate saturates at math.MaxInt64.
func DatasetMemory(n, d, runs, workers int) int64 {
	const f = 8 // bytes per float64
	nf, df := float64(n), float64(d)
	runs, workers = max(runs, 1), max(workers, 1)
	var solve, lmax float64
	if d <= DenseMaxDim {
		// The Hessian, its damped copy and its Cholesky factor; the Gram
		// matrix and EigenSym's copy and workspace for L.
		solve = f * (3*df*df + 5*df + nf)
		lmax = f * (3*df*df + 2*nf)
	} else {
		// Newton-CG: x, g, their trial copies, the compensation of
		// FullGrad, the step and CG's four vectors, the diagonal; the
		// curvature weights. Lanczos: three vectors.
		solve = f * (12*df + nf)
		lmax = f * 4 * df
	}
	// One run: x0, the iterate, the dense copy its checkpoints use, the
	// final x, SVRG's four vectors and the scratch of its full gradients;
	// SRG's sampler (at most 48 bytes an item) and key table. Every
	// trace's final x is kept until its curve is averaged.
	run := f*9*df + 64*nf
	methods := float64(workers)*run + float64(runs)*f*df
	variances := f*4*nf + 48*nf
	always := f*nf + f*df // row norms, x*
	// Go's collector lets the heap grow to twice the live data before it
	// collects (GOGC=100), a little more while it marks, and every pass of
	// Solve and every refresh of SVRG leaves a vector behind.
	peak := 3 * (always + math.Max(math.Max(solve, lmax), math.Max(methods, variances)))
	if peak >= math.MaxInt64 {
		return math.MaxInt64
	}
	return int64(peak)
}
