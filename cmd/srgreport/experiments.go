package main

import (
	"fmt"
	"math"
	"runtime"
	"time"

	"github.com/reweighted/reweighted"
	"github.com/reweighted/reweighted/bench"
	"github.com/reweighted/reweighted/libsvm"
	"github.com/reweighted/reweighted/srg"
)

// embeddedName names the logistic-regression set generated from the seed
// when no -libsvm set is given.
const embeddedName = "generated"

// newSampler returns the constructor of the named backend, nil if unknown.
func newSampler(name string) func(n int) reweighted.Sampler {
	for _, impl := range bench.Impls {
		if impl.Name == name && impl.New != nil {
			return impl.New
		}
	}
	return nil
}

// runExperiments runs the synthetic experiment of the supplement and the
// logistic-regression experiments of Section 5 on every data set.
func runExperiments(r *Report, cfg config, sz sizes, pr *progress) {
	ns := newSampler(cfg.sampler)
	workers := runtime.GOMAXPROCS(0)

	pr.Start("synthetic", 1)
	t0 := time.Now()
	y := &Synthetic{Runs: sz.synthRuns, Epochs: sz.synthEpochs}
	res, err := srg.Synthetic(srg.SyntheticConfig{
		Runs: sz.synthRuns, Epochs: sz.synthEpochs, Seed: cfg.seed, NewSampler: ns, Workers: workers,
	})
	if err != nil {
		y.Err = err.Error()
	} else {
		y.N, y.D, y.RatioR = res.N, res.D, res.RatioR
		y.Log10ErrSGD, y.Log10ErrSRG = res.Log10ErrSGD, res.Log10ErrSRG
		y.Curves = curves(res.Curves)
	}
	y.SeedRatios = seedRatios(cfg.seed, sz.ratioSeeds, res.N, res.D, ns)
	y.Elapsed = time.Since(t0)
	r.Synthetic = y
	pr.Step()
	pr.Done(fmt.Sprintf("r = %.1f", y.RatioR))

	files := cfg.data
	if len(files) == 0 {
		files = dataFlags{{Name: embeddedName}}
	}
	// Each data set is a stage of its own: on a big one, the experiments
	// take minutes.
	for _, f := range files {
		pr.Start("data set "+f.Name, 1)
		d := runDataset(f, cfg, sz, ns, workers)
		r.Datasets = append(r.Datasets, d)
		pr.Step()
		note := fmt.Sprintf("n = %d, r = %.2f", d.N, d.RatioR)
		if d.Err != "" {
			note = "failed"
		}
		pr.Done(note)
	}
}

// runDataset reads one data set (or generates the embedded one) and runs
// the experiments of Section 5 on it.
func runDataset(f dataFile, cfg config, sz sizes, ns func(int) reweighted.Sampler, workers int) Dataset {
	t0 := time.Now()
	d := Dataset{Name: f.Name, Path: f.Path, Runs: sz.dataRuns, Epochs: sz.dataEpochs, Batch: 128, RatioR: math.NaN()}
	var ds *libsvm.Dataset
	if f.Path == "" {
		d.Embedded = true
		ds = embeddedSet(cfg.seed, sz.embeddedN)
	} else {
		var err error
		if ds, err = libsvm.ReadFile(f.Path); err != nil {
			d.Err = fmt.Sprintf("cannot read data set %q: %v", f.Name, err)
			return d
		}
		ds.NormalizeRows()
	}
	d.N, d.D = ds.Len(), ds.Dim()
	res, err := srg.Dataset(srg.DatasetConfig{
		Name: f.Name, Runs: sz.dataRuns, Epochs: sz.dataEpochs, Batch: d.Batch,
		Seed: cfg.seed, NewSampler: ns, Workers: workers, Data: ds,
	})
	d.Elapsed = time.Since(t0)
	if err != nil {
		d.Err = err.Error()
		return d
	}
	d.RatioR = res.RatioR
	d.Constant, d.Decreasing = curves(res.Constant), curves(res.Decreasing)
	d.FinalLog10 = res.FinalLog10
	return d
}

// embeddedSet is a binary classification set generated from seed: the
// synthetic regression set of the supplement (20 Gaussian features) with
// the sign of its target as label, rows normalised as in Section 5.
func embeddedSet(seed uint64, n int) *libsvm.Dataset {
	ds := libsvm.Synthetic(seed, n, 20)
	for i, y := range ds.Labels {
		ds.Labels[i] = -1
		if y > 0 {
			ds.Labels[i] = 1
		}
	}
	ds.NormalizeRows()
	return ds
}

// curves copies srg's curves into the report's own type.
func curves(cs []srg.Curve) []Curve {
	out := make([]Curve, len(cs))
	for i, c := range cs {
		out[i] = Curve{Method: c.Method, Evals: c.Evals, Log10Err: c.Log10Err, Log10Var: c.Log10Var}
	}
	return out
}

// seedRatios returns r = σ²/σ*² at x* of the synthetic set drawn from each
// of count seeds after seed: with Cauchy noise, r swings widely from one
// draw to the next, and the paper reports a single draw. Seeds whose set
// cannot be solved are left out.
func seedRatios(seed uint64, count, n, d int, ns func(int) reweighted.Sampler) []float64 {
	var rs []float64
	for k := range count {
		ds := libsvm.Synthetic(seed+1+uint64(k), n, d)
		p, err := srg.NewProblem(ds, ds.Labels, srg.Squared, 0)
		if err != nil {
			continue
		}
		sol, err := p.Solve(1e-12)
		if err != nil {
			continue
		}
		s2, ss2, err := srg.Variances(p, sol.X, ns)
		if err != nil || ss2 == 0 {
			continue
		}
		rs = append(rs, s2/ss2)
	}
	return rs
}
