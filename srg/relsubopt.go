package srg

import (
	"math"
	"sync"
)

// suboptEnds returns F(x0) and F(x*) for x0 = 0, and the floor of the
// relative suboptimality: F(x*) may sit above the exact minimum by up to
// ‖∇F(x*)‖²/(2μ) (μ-strong convexity), and each value carries the
// rounding of a sum of n terms (Problem.Value compensates it, leaving a
// few ulps of |F|).
func suboptEnds(p *Problem, sol Solution) (f0, fStar, floor float64) {
	f0 = p.Value(make([]float64, p.Dim()))
	fStar = p.Value(sol.X)
	gap := math.Inf(1)
	if p.Mu > 0 {
		gap = sol.GradNorm * sol.GradNorm / (2 * p.Mu)
	}
	round := 8 * 0x1p-52 * (math.Abs(f0) + math.Abs(fStar))
	return f0, fStar, (gap + round) / (f0 - fStar)
}

// relSubopt returns, at each checkpoint, log10 of the mean over the runs
// of the relative suboptimality (F(x_k) − F(x*))/(F(x0) − F(x*)), and of
// its smallest and largest value in a single run. Every run starts at the
// same x0, whose suboptimality each trace records first. A value that
// rounding makes zero or negative near x* counts as zero: log10 −Inf, a
// level every accuracy reaches.
func relSubopt(traces []Trace) (mean, lo, hi []float64) {
	k := len(traces[0].Subopt)
	mean, lo, hi = make([]float64, k), make([]float64, k), make([]float64, k)
	for j := range k {
		var s float64
		l, h := math.Inf(1), math.Inf(-1)
		for _, t := range traces {
			v := math.Max(t.Subopt[j]/t.Subopt[0], 0)
			s += v
			l, h = math.Min(l, v), math.Max(h, v)
		}
		mean[j], lo[j], hi[j] = math.Log10(s/float64(len(traces))), math.Log10(l), math.Log10(h)
	}
	return mean, lo, hi
}

// newTicker returns a function that counts one more unit of total done and
// reports it to progress, one call at a time; with a nil progress it does
// nothing.
func newTicker(progress func(done, total int), total int) func() {
	if progress == nil {
		return func() {}
	}
	var mu sync.Mutex
	done := 0
	return func() {
		mu.Lock()
		defer mu.Unlock()
		done++
		progress(done, total)
	}
}
