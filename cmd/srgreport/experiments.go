package main

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"time"

	"github.com/reweighted/reweighted"
	"github.com/reweighted/reweighted/internal/backends"
	"github.com/reweighted/reweighted/internal/paperdata"
	"github.com/reweighted/reweighted/libsvm"
	"github.com/reweighted/reweighted/srg"
)

// generatedName names the logistic-regression set generated from the seed,
// which tests use instead of the embedded sets to stay fast.
const generatedName = "generated"

// bigSet is the size above which a data set runs a quarter of the default
// epochs (unless -epochs is given): an epoch of it has more than 156
// iterations of 128 examples, so it reaches its noise floor in fewer
// epochs, and it costs more per epoch.
const bigSet = 20000

// accuracyLevels are the relative errors, as log10, of the time-to-accuracy
// table.
var accuracyLevels = []float64{-1, -2, -3, -4}

// newSampler returns the constructor of the named backend, nil if unknown.
func newSampler(name string) func(n int) reweighted.Distribution {
	if b, ok := backends.ByName(name); ok {
		return b.Dist
	}
	return nil
}

// runExperiments runs the synthetic experiment of the supplement and the
// logistic-regression experiments of Section 5 on every data set.
func runExperiments(r *Report, cfg config, sz sizes, pr *progress) {
	ns := newSampler(cfg.sampler)
	workers := runtime.GOMAXPROCS(0)

	// Progress counts x*, every run and every other seed's r.
	pr.Start("synthetic", 1+2*sz.synthRuns+sz.ratioSeeds)
	t0 := time.Now()
	y := &Synthetic{Runs: sz.synthRuns, Epochs: sz.synthEpochs}
	res, err := srg.Synthetic(srg.SyntheticConfig{
		Runs: sz.synthRuns, Epochs: sz.synthEpochs, Seed: cfg.seed, NewSampler: ns, Workers: workers,
		Progress: func(done, _ int) { pr.SetDone(done) },
	})
	n, d := res.N, res.D
	if err != nil {
		y.Err = err.Error()
		n, d = 1000, 10
	} else {
		y.Result = &res
		y.Floor = sgdFloor(res)
	}
	pr.SetDone(1 + 2*sz.synthRuns)
	y.SeedRatios = seedRatios(cfg.seed, sz.ratioSeeds, n, d, ns, pr.Step)
	y.Elapsed = time.Since(t0)
	r.Synthetic = y
	pr.Done(fmt.Sprintf("r = %.1f", res.RatioR))
	if y.Result != nil {
		pr.Start("timing synthetic", len(res.Curves)*max(sz.timingReps, 1))
		y.Timing = measureSyntheticTiming(y.Result, sz.timingReps, cfg.seed, ns, pr.Step)
		note := "failed"
		if v, ok := syntheticSet(y); ok {
			y.TimeTo = timesTo(v)
			v.TimeTo = y.TimeTo
			if c := epochCost(v); c != nil {
				note = fmt.Sprintf("an SRG epoch takes %s× an SGD epoch (%s–%s)", fmtF(c.Ratio, 1), fmtF(c.RatioMin, 1), fmtF(c.RatioMax, 1))
			}
		}
		pr.Done(note)
	}

	// Each data set is a stage of its own: on a big one, the experiments
	// take minutes.
	for i := range r.Datasets {
		d := &r.Datasets[i]
		// Progress counts x* and every run.
		pr.Start("data set "+d.Name, datasetUnits(d))
		runDataset(d, cfg, ns, workers, pr.SetDone)
		if d.Err != "" {
			pr.Done("failed")
			continue
		}
		pr.Done(fmt.Sprintf("n = %d, r = %.2f", d.Result.N, d.Result.RatioR))
		// The timing is a stage of its own: its ETA counts its runs.
		pr.Start("timing "+d.Name, timingJobs(d.Result)*max(sz.timingReps, 1))
		timeDataset(d, sz, cfg.seed, ns, pr.Step)
		note := "failed"
		if c := d.EpochCost; c != nil {
			note = fmt.Sprintf("an SRG epoch takes %s× an SGD epoch (%s–%s)", fmtF(c.Ratio, 1), fmtF(c.RatioMin, 1), fmtF(c.RatioMax, 1))
		}
		pr.Done(note)
	}
}

// datasetUnits is the number of progress units of d's experiments: x*,
// then every run of the eight curves.
func datasetUnits(d *Dataset) int { return 1 + 8*d.Runs }

// timingJobs is the number of runs in one repetition of the timing: one
// per curve.
func timingJobs(res *srg.DatasetResult) int {
	return len(res.Constant) + len(res.Decreasing)
}

// loadDatasets reads and checks every data set of the run before any long
// stage: the -libsvm files, or by default the embedded mushrooms and
// phishing (tests: a set generated from the seed). A set that is missing,
// unreadable, empty, has a single label or a NaN or infinite value is an
// error naming it.
func loadDatasets(cfg config, sz sizes) ([]Dataset, error) {
	var out []Dataset
	memLimit := cfg.memLimit
	if memLimit == 0 {
		memLimit = availableMemory()
	}
	add := func(name, source string, ds *libsvm.Dataset) error {
		if err := checkDataset(ds, batchSize, !cfg.replace); err != nil {
			return fmt.Errorf("data set %q (%s): %w", name, source, err)
		}
		if err := checkMemory(ds, sz.dataRuns, memLimit); err != nil {
			return fmt.Errorf("data set %q (%s): %w", name, source, err)
		}
		ds.NormalizeRows()
		epochs := sz.dataEpochs
		if cfg.epochs == 0 {
			epochs = modeEpochs(ds, epochs)
		}
		out = append(out, Dataset{
			Name: name, Source: source, Paper: paperSets[name] == ds.Len() && source != generatedName,
			Runs: sz.dataRuns, Epochs: epochs, Batch: batchSize, data: ds,
		})
		return nil
	}
	switch {
	case len(cfg.data) > 0:
		for _, f := range cfg.data {
			ds, err := libsvm.ReadFile(f.Path)
			if err != nil {
				return nil, fmt.Errorf("cannot read data set %q: %w", f.Name, err)
			}
			if err := add(f.Name, f.Path, ds); err != nil {
				return nil, err
			}
		}
	case sz.generatedN > 0:
		if err := add(generatedName, generatedName, generatedSet(cfg.seed, sz.generatedN)); err != nil {
			return nil, err
		}
	default:
		for _, s := range paperdata.Sets {
			ds, err := s.Read()
			if err != nil {
				return nil, err
			}
			if err := add(s.Name, "embedded", ds); err != nil {
				return nil, err
			}
		}
	}
	for k, ds := range likeSets(cfg) {
		if err := add(likeName(cfg.like[k]), likeSource(cfg.like[k]), ds); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// checkDataset refuses, before anything is measured, a set the experiments
// cannot run on: each of dataChecks in turn, the first refusal returned. A
// mini-batch holds batch examples, drawn without replacement if distinct.
func checkDataset(ds *libsvm.Dataset, batch int, distinct bool) error {
	for _, c := range dataChecks {
		if err := c(ds, batch, distinct); err != nil {
			return err
		}
	}
	return nil
}

// dataChecks are the up-front checks of a data set, cheapest first; a new
// check (say, of the memory the solver needs) is one more entry.
var dataChecks = []func(ds *libsvm.Dataset, batch int, distinct bool) error{
	checkLabels,
	checkBatch,
	checkValues,
}

// checkLabels refuses a set that is empty or has one label.
func checkLabels(ds *libsvm.Dataset, _ int, _ bool) error {
	if ds.Len() == 0 {
		return errors.New("no examples")
	}
	pos := slices.ContainsFunc(ds.Labels, func(y float64) bool { return y > 0 })
	// Not y <= 0: a NaN label counts as negative here, and checkValues
	// refuses it.
	neg := slices.ContainsFunc(ds.Labels, func(y float64) bool { return !(y > 0) })
	if !pos || !neg {
		return fmt.Errorf("a single label in %d examples: logistic regression needs two", ds.Len())
	}
	return nil
}

// checkBatch refuses a set with fewer examples than a mini-batch drawn
// without replacement.
func checkBatch(ds *libsvm.Dataset, batch int, distinct bool) error {
	if distinct && ds.Len() < batch {
		return fmt.Errorf("%d examples, fewer than a mini-batch of %d drawn without replacement (-replace draws with replacement)",
			ds.Len(), batch)
	}
	return nil
}

// checkValues refuses any value srg.NewProblem refuses (NaN or infinite
// labels and features).
func checkValues(ds *libsvm.Dataset, _ int, _ bool) error {
	_, err := srg.NewProblem(ds, ds.Labels, srg.Logistic, 1/float64(ds.Len()))
	return err
}

// runDataset runs the experiments of Section 5 on one data set read by
// loadDatasets, with the relative suboptimality beside the paper's
// relative distance; progress gets the units done (datasetUnits).
func runDataset(d *Dataset, cfg config, ns func(int) reweighted.Distribution, workers int, progress func(done int)) {
	t0 := time.Now()
	res, err := srg.Dataset(srg.DatasetConfig{
		Name: d.Name, Runs: d.Runs, Epochs: d.Epochs, Batch: d.Batch,
		Seed: cfg.seed, NewSampler: ns, Workers: workers, Data: d.data, WithReplacement: cfg.replace,
		Suboptimality: true, Progress: func(done, _ int) { progress(done) },
	})
	d.Elapsed = time.Since(t0)
	if err != nil {
		d.Err = err.Error()
		return
	}
	d.Result = &res
	d.Gaps = rawGaps(&res)
}

// timeDataset times every method of d's experiments (timing.go) and derives
// the wall-clock figures from it; step is called after each timed run.
func timeDataset(d *Dataset, sz sizes, seed uint64, ns func(int) reweighted.Distribution, step func()) {
	d.Timing = measureTiming(d, d.Result, sz.timingReps, seed, ns, step)
	d.EpochCost = epochCost(*d)
	d.TimeTo = timesTo(*d)
}

// timesTo returns, per measure, schedule, method and accuracy level, the
// epochs and seconds the curves of d take to reach it.
func timesTo(d Dataset) []TimeTo {
	var out []TimeTo
	for _, sc := range []struct {
		name   string
		curves []srg.Curve
	}{{"constant", d.Result.Constant}, {"decreasing", d.Result.Decreasing}} {
		for _, c := range sc.curves {
			cost := math.NaN()
			lo, hi := math.NaN(), math.NaN()
			if e := d.Timing.get(sc.name, c.Method); e != nil {
				cost, lo, hi = e.Median, e.Min, e.Max
			}
			for _, ms := range measures {
				mean, best, worst := ms.curve(c)
				if mean == nil {
					continue
				}
				for _, lv := range d.accuracies() {
					e := reachAfterStart(c.Evals, mean, lv)
					out = append(out, TimeTo{Measure: ms.name, Schedule: sc.name, Method: c.Method, Log10: lv, Epochs: e,
						EpochsLo: reachAfterStart(c.Evals, best, lv), EpochsHi: reachAfterStart(c.Evals, worst, lv),
						Seconds: e * cost, SecondsLo: e * lo, SecondsHi: e * hi})
				}
			}
		}
	}
	return out
}

// accuracyMeasure is a measure of accuracy that the curves record.
type accuracyMeasure struct {
	name string
	// label is its formula, for tables and captions.
	label string
	// curve returns the mean curve of c in this measure and its best and
	// worst run; nil if c does not record it.
	curve func(c srg.Curve) (mean, best, worst []float64)
}

// Names of the measures, in TimeTo.Measure.
const (
	measureDist   = "distance"
	measureSubopt = "suboptimality"
)

// measures are the accuracies the verdict and the figures read: the
// paper's relative distance to x*, then the relative suboptimality.
var measures = []accuracyMeasure{
	{measureDist, "‖x − x*‖²/‖x₀ − x*‖²", func(c srg.Curve) ([]float64, []float64, []float64) {
		return c.Log10Err, c.Log10ErrMin, c.Log10ErrMax
	}},
	{measureSubopt, "(F(x) − F(x*))/(F(x₀) − F(x*))", func(c srg.Curve) ([]float64, []float64, []float64) {
		return c.Log10Subopt, c.Log10SuboptMin, c.Log10SuboptMax
	}},
}

// measureOf returns the measure named name.
func measureOf(name string) accuracyMeasure {
	for _, m := range measures {
		if m.name == name {
			return m
		}
	}
	return measures[0]
}

// reachOf returns the epochs at which ys first reaches level, interpolated
// as reach does; NaN if never (or ys not measured).
func reachOf(evals, ys []float64, level float64) float64 {
	if len(ys) != len(evals) {
		return math.NaN()
	}
	e, _ := reach(srg.Curve{Evals: evals, Log10Err: ys, Seconds: make([]float64, len(evals))}, level)
	return e
}

// reachAfterStart is reachOf for a level that the start may already be at
// (the synthetic set's 1e0: every run starts at a relative error of 1):
// then the level is reached at the first checkpoint after the start at or
// below it.
func reachAfterStart(evals, ys []float64, level float64) float64 {
	if len(ys) > 1 && len(ys) == len(evals) && ys[0] <= level {
		return reachOf(evals[1:], ys[1:], level)
	}
	return reachOf(evals, ys, level)
}

// syntheticName names the synthetic least-squares problem in the verdict.
const syntheticName = "synthetic"

// syntheticLevels are the accuracies the verdict reads the synthetic
// problem at: its start, 1e0, which SGD's noise floor lies above, then the
// data sets' levels.
var syntheticLevels = append([]float64{0}, accuracyLevels...)

// syntheticSet returns the synthetic experiment of y as a data set of the
// verdict: its curves under the constant step, its timing and its times
// to accuracy; false if it did not run.
func syntheticSet(y *Synthetic) (Dataset, bool) {
	if y == nil || y.Result == nil {
		return Dataset{}, false
	}
	res := y.Result
	return Dataset{Name: syntheticName, Source: generatedName, Runs: y.Runs, Epochs: y.Epochs, Batch: 1,
		Result: &srg.DatasetResult{Name: syntheticName, N: res.N, D: res.D, RatioR: res.RatioR, Constant: res.Curves},
		TimeTo: y.TimeTo, Timing: y.Timing, levels: syntheticLevels}, true
}

// reach returns the epochs and seconds at which the mean curve c first
// reaches log10 relative error level, interpolated linearly between the two
// checkpoints around it; NaN if it never does.
func reach(c srg.Curve, level float64) (epochs, seconds float64) {
	for k, v := range c.Log10Err {
		if v > level {
			continue
		}
		if k == 0 {
			return c.Evals[0], c.Seconds[0]
		}
		prev := c.Log10Err[k-1]
		t := (prev - level) / (prev - v)
		return c.Evals[k-1] + t*(c.Evals[k]-c.Evals[k-1]), c.Seconds[k-1] + t*(c.Seconds[k]-c.Seconds[k-1])
	}
	return math.NaN(), math.NaN()
}

// generatedSet is a binary classification set generated from seed: the
// synthetic regression set of the supplement (20 Gaussian features) with
// the sign of its target as label.
func generatedSet(seed uint64, n int) *libsvm.Dataset {
	ds := libsvm.Synthetic(seed, n, 20)
	for i, y := range ds.Labels {
		ds.Labels[i] = -1
		if y > 0 {
			ds.Labels[i] = 1
		}
	}
	return ds
}

// sgdFloor places SGD's noise floor on the synthetic set: with the constant
// step α, E‖x_k − x*‖² ≤ (1 − αμ)^k‖x_0 − x*‖² + 2ασ²/μ (Gower et al. 2019,
// Theorem 3.1), so SGD settles near ασ²/μ, which is far above its starting
// error ‖x_0 − x*‖² = ‖x*‖² when the Cauchy noise makes σ² large.
func sgdFloor(res srg.SyntheticResult) NoiseFloor {
	f := NoiseFloor{Alpha: res.Alpha, Sigma2: res.Sigma2, Mu: res.Mu, XStarSq: res.XStarSq}
	f.Log10Rel = math.Log10(f.Alpha * f.Sigma2 / f.Mu / f.XStarSq)
	return f
}

// seedRatios returns r = σ²/σ*² at x* of the synthetic set drawn from each
// of count seeds after seed: with Cauchy noise, r swings widely from one
// draw to the next, and the paper reports a single draw. Seeds whose set
// cannot be solved are left out. step is called after each seed.
func seedRatios(seed uint64, count, n, d int, ns func(int) reweighted.Distribution, step func()) []float64 {
	var rs []float64
	for k := range count {
		if r, ok := seedRatio(seed+1+uint64(k), n, d, ns); ok {
			rs = append(rs, r)
		}
		step()
	}
	return rs
}

// seedRatio returns r of the synthetic set of seed; false if it cannot be
// solved.
func seedRatio(seed uint64, n, d int, ns func(int) reweighted.Distribution) (float64, bool) {
	ds := libsvm.Synthetic(seed, n, d)
	p, err := srg.NewProblem(ds, ds.Labels, srg.Squared, 0)
	if err != nil {
		return 0, false
	}
	sol, err := p.Solve(1e-12)
	if err != nil {
		return 0, false
	}
	s2, ss2, err := srg.Variances(p, sol.X, ns)
	if err != nil || ss2 == 0 {
		return 0, false
	}
	return s2 / ss2, true
}
