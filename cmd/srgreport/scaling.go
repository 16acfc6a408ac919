package main

import (
	"flag"
	"fmt"
	"math"
	"slices"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/reweighted/reweighted/bench"
	"gonum.org/v1/gonum/stat"
)

// scalingOps are the workloads of the scaling table: the SRG step at
// ε = 1/(2n) (backends only) and at ε = 0 (all, including gonum's Weighted).
var scalingOps = []bench.Op{bench.Step, bench.StepEps0}

// batchStep is the workload of the batch table: the step of an SRG
// iteration on a mini-batch of batchSize, that is, batchSize draws without
// replacement at ε = 1/(2n) (reweighted.DrawBatch) and then the batchSize
// key updates (reweighted.SetBatch). gonum's Weighted, which has neither a
// bound ε nor a batch path, does batchSize Take (its draw without
// replacement) and then batchSize Reweight. Its points hold the time per
// item: the batch's time divided by batchSize.
const batchStep bench.Op = "batch-step"

// batchSize is m, the mini-batch of the paper's experiments.
const batchSize = bench.BatchSize

// drawImpls are the implementations of the single step and of the
// adversarial draws: the default sampler, the fastest map-exact one, and
// gonum's Weighted.
var drawImpls = []string{"levels", "btree", bench.GonumWeighted}

// singleLaws are the laws of the keys of the single step.
var singleLaws = []bench.KeyLaw{bench.Exp, bench.LogNormal}

// singleOp names the single step on keys of law l in a Point.
func singleOp(l bench.KeyLaw) string { return string(bench.SingleStep) + "/" + string(l) }

// singleOpEps0 names the single step at ε = 0 on keys of law l in a Point:
// levels' only, gonum's law; gonum's own step is singleOp's.
func singleOpEps0(l bench.KeyLaw) string { return string(bench.SingleStepEps0) + "/" + string(l) }

// drawExpOp names the draw on Exp(1) keys, the reference of the adversarial
// draws, in a Point.
const drawExpOp = string(bench.DrawOnly) + "/" + string(bench.Exp)

// The sizes of the adversarial draws: the near-ties at tiesN (or 2^hi if
// smaller), the keys near the cutoff at 2^cutoffLog (or 2^hi).
const (
	tiesN     = 1000
	cutoffLog = 16
)

// adversarial lists the adversarial draws, each with its reference on
// Exp(1) keys at the same n (once if both are at the same n), for the range
// up to 2^hi.
func adversarial(hi int) []struct {
	op bench.Op
	n  int
} {
	tn, cn := min(tiesN, 1<<hi), 1<<min(cutoffLog, hi)
	out := []struct {
		op bench.Op
		n  int
	}{{bench.DrawTies, tn}, {bench.DrawOnly, tn}, {bench.DrawCutoff, cn}}
	if cn != tn {
		out = append(out, struct {
			op bench.Op
			n  int
		}{bench.DrawOnly, cn})
	}
	return out
}

// measured reports whether measureScaling measures op for impl at size n:
// the batch only where n ≥ 2m, so that the items left keep half the mass.
func measured(impl bench.Impl, op bench.Op, n, naiveMax int) bool {
	if impl.Name == "naive" && n > naiveMax {
		return false
	}
	if op == batchStep {
		return n <= impl.MaxN && n >= 2*batchSize
	}
	return impl.Supports(op, n)
}

var initTesting sync.Once

// setBenchtime sets the time testing.Benchmark spends per measurement.
// testing.Benchmark reads it from the -test.benchtime flag, which exists
// only after testing.Init; the command parses its own flag set, so the
// testing flags on flag.CommandLine are never seen by users.
func setBenchtime(d time.Duration) error {
	initTesting.Do(testing.Init)
	return flag.CommandLine.Set("test.benchtime", d.String())
}

// measureScaling benchmarks every impl and op of bench at the sizes
// 2^lo … 2^hi that the impl supports, naive only up to naiveMax (filling it
// costs O(n²)). Each point is the fastest of reps measurements of benchtime
// each: on a shared machine, interference only ever adds time.
func measureScaling(lo, hi, naiveMax int, benchtime time.Duration, reps int, seed uint64, pr *progress) Scaling {
	sc := Scaling{Benchtime: benchtime, Reps: reps}
	if err := setBenchtime(benchtime); err != nil {
		sc.Err = err.Error()
		return sc
	}
	type job struct {
		p     Point  // Impl, Op and N
		label string // in an error
		prep  func() (run func(), bytesPerItem float64, err error)
	}
	var jobs []job
	for _, impl := range bench.Impls {
		for _, op := range append(scalingOps, batchStep) {
			for _, n := range bench.Sizes(lo, hi) {
				if !measured(impl, op, n, naiveMax) {
					continue
				}
				prep := func() (func(), float64, error) { return bench.Prepare(impl, op, n, seed) }
				if op == batchStep {
					prep = func() (func(), float64, error) {
						run, err := bench.PrepareBatch(impl, n, batchSize, seed)
						return run, 0, err
					}
				}
				jobs = append(jobs, job{Point{Impl: impl.Name, Op: string(op), N: n}, fmt.Sprintf("%s %s n=%d", impl.Name, op, n), prep})
			}
		}
	}
	// The single step and the adversarial draws, for drawImpls.
	for _, impl := range bench.Impls {
		if !slices.Contains(drawImpls, impl.Name) {
			continue
		}
		for _, l := range singleLaws {
			for _, n := range bench.Sizes(lo, hi) {
				if !impl.Supports(bench.SingleStep, n) {
					continue
				}
				prep := func() (func(), float64, error) { return bench.PrepareOf(impl, bench.SingleStep, n, seed, l) }
				jobs = append(jobs, job{Point{Impl: impl.Name, Op: singleOp(l), N: n}, fmt.Sprintf("%s %s n=%d", impl.Name, singleOp(l), n), prep})
				if impl.Name == "levels" {
					prep := func() (func(), float64, error) { return bench.PrepareOf(impl, bench.SingleStepEps0, n, seed, l) }
					jobs = append(jobs, job{Point{Impl: impl.Name, Op: singleOpEps0(l), N: n}, fmt.Sprintf("%s %s n=%d", impl.Name, singleOpEps0(l), n), prep})
				}
			}
		}
		for _, a := range adversarial(hi) {
			if !impl.Supports(a.op, a.n) {
				continue
			}
			op := string(a.op)
			if a.op == bench.DrawOnly {
				op = drawExpOp
			}
			prep := func() (func(), float64, error) { return bench.PrepareOf(impl, a.op, a.n, seed, bench.Exp) }
			jobs = append(jobs, job{Point{Impl: impl.Name, Op: op, N: a.n}, fmt.Sprintf("%s %s n=%d", impl.Name, op, a.n), prep})
		}
	}
	// The reference of two bare tree descents (what a step of ost must do at
	// least), measured in the same run.
	for _, n := range bench.Sizes(lo, hi) {
		prep := func() (func(), float64, error) {
			run, err := bench.PrepareFloor(n, seed)
			return run, 0, err
		}
		jobs = append(jobs, job{Point{Impl: bench.FloorImpl, Op: bench.TwoDescents, N: n}, fmt.Sprintf("floor n=%d", n), prep})
	}
	pr.Start("scaling", len(jobs))
	for _, j := range jobs {
		run, bpi, err := j.prep()
		if err != nil {
			sc.Err = err.Error()
			break
		}
		p := j.p
		p.BytesPerItem = bpi
		var all []float64
		if all, p.AllocsPerOp, err = measure(run, reps); err != nil {
			sc.Err = fmt.Sprintf("%s: %v", j.label, err)
			break
		}
		if p.Op == string(batchStep) {
			for k := range all {
				all[k] /= batchSize
			}
		}
		slices.Sort(all)
		p.NsPerOp, p.NsMedian, p.NsMax = all[0], median(all), all[len(all)-1]
		sc.Points = append(sc.Points, p)
		pr.Step()
	}
	pr.Done(fmt.Sprintf("%d measurements", len(sc.Points)))
	sc.Fits, sc.Ratios = fitScaling(sc.Points)
	return sc
}

// measure returns the time per call of run in each of reps measurements
// by testing.Benchmark, and the allocations per call.
func measure(run func(), reps int) (ns []float64, allocs int64, err error) {
	for range max(reps, 1) {
		res := testing.Benchmark(func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				run()
			}
		})
		if res.N == 0 {
			return nil, 0, fmt.Errorf("benchmark did not run")
		}
		ns = append(ns, float64(res.T.Nanoseconds())/float64(res.N))
		allocs = res.AllocsPerOp()
	}
	return ns, allocs, nil
}

// spreadAboveFastest returns, over points, the median and the largest of
// the median measurement's excess over the fastest, as a fraction: how much
// the machine's other work moved the measurements.
func spreadAboveFastest(points []Point) (med, most float64) {
	var xs []float64
	for _, p := range points {
		if p.NsPerOp > 0 && p.NsMedian > 0 {
			xs = append(xs, p.NsMedian/p.NsPerOp-1)
		}
	}
	if len(xs) == 0 {
		return math.NaN(), math.NaN()
	}
	slices.Sort(xs)
	return median(xs), xs[len(xs)-1]
}

// fitted reports whether fitScaling fits the series of op: not the
// adversarial draws, measured at two sizes on keys of two kinds.
func fitted(op string) bool {
	return op != string(bench.DrawTies) && op != string(bench.DrawCutoff) && op != drawExpOp
}

// fitScaling fits every (impl, op) series, ns against log2 n for the trees
// and log ns against log n for naive, and divides each backend's time by
// gonum's at the same n (the batch step's by gonum's batch step).
func fitScaling(points []Point) ([]Fit, []Ratio) {
	type key struct{ impl, op string }
	series := map[key][]Point{}
	var order []key
	for _, p := range points {
		k := key{p.Impl, p.Op}
		if _, ok := series[k]; !ok {
			order = append(order, k)
		}
		series[k] = append(series[k], p)
	}
	var fits []Fit
	for _, k := range order {
		ps := series[k]
		if len(ps) < 2 || !fitted(k.op) {
			continue
		}
		xs, ys := make([]float64, len(ps)), make([]float64, len(ps))
		model := "log2"
		if k.impl == "naive" {
			model = "loglog"
		}
		for i, p := range ps {
			xs[i] = math.Log2(float64(p.N))
			ys[i] = p.NsPerOp
			if model == "loglog" {
				ys[i] = math.Log2(p.NsPerOp)
			}
		}
		f := fitLine(xs, ys)
		f.Impl, f.Op, f.Model, f.From, f.To = k.impl, k.op, model, ps[0].N, ps[len(ps)-1].N
		fits = append(fits, f)
	}
	type at struct {
		impl, op string
		n        int
	}
	ns := map[at]float64{}
	for _, p := range points {
		ns[at{p.Impl, p.Op, p.N}] = p.NsPerOp
	}
	var ratios []Ratio
	for _, p := range points {
		g, ok := ns[at{bench.GonumWeighted, string(bench.StepEps0), p.N}]
		if !ok || p.Impl == bench.GonumWeighted || p.Op != string(bench.StepEps0) {
			continue
		}
		r := Ratio{Impl: p.Impl, N: p.N, Eps0: p.NsPerOp / g, Step: math.NaN(), Batch: math.NaN()}
		if s, ok := ns[at{p.Impl, string(bench.Step), p.N}]; ok {
			r.Step = s / g
		}
		b, okB := ns[at{p.Impl, string(batchStep), p.N}]
		if gb, ok := ns[at{bench.GonumWeighted, string(batchStep), p.N}]; ok && okB {
			r.Batch = b / gb
		}
		ratios = append(ratios, r)
	}
	sort.SliceStable(ratios, func(i, j int) bool { return ratios[i].N < ratios[j].N })
	return fits, ratios
}

// fitLine is the least-squares line y = Intercept + Slope·x with its R².
func fitLine(xs, ys []float64) Fit {
	a, b := stat.LinearRegression(xs, ys, nil, false)
	return Fit{Intercept: a, Slope: b, R2: stat.RSquared(xs, ys, nil, a, b)}
}
