package main

import (
	"fmt"
	"math"
	"runtime"
	"slices"
	"time"

	"github.com/reweighted/reweighted"
	"github.com/reweighted/reweighted/internal/cputime"
	"github.com/reweighted/reweighted/libsvm"
	"github.com/reweighted/reweighted/srg"
)

// The timing of the data-set experiments. The accuracy runs execute several
// runs at once on every core, so the seconds they record mix the methods'
// cost with each other's and with whatever else the machine runs. Every
// wall-clock figure of the report therefore comes from a separate
// measurement made for a shared machine: after a set's accuracy runs, each
// method runs alone (one goroutine, nothing else of this process at work,
// a GC before each run) for warm-up plus timed epochs, several repetitions
// with the methods interleaved, so that a slow spell of the machine hits all
// methods alike; within a run, checkpoint intervals far above the run's
// median are dropped and counted as outliers. The seconds to reach an
// accuracy are then the epochs the accuracy runs took times the median
// cost of an epoch, with the spread of the repetitions.
const (
	timingWarmup = 1 // epochs run before timing: SRG's keys start at 0
	// A timed run lasts about timingRun at least (a scheduler's time slice
	// is a few ms: shorter runs would time the machine's other jobs), from
	// timingMinEpochs to timingMaxEpochs epochs.
	timingRun       = 60 * time.Millisecond
	timingMinEpochs = 2
	timingMaxEpochs = 256
	timingPerEpoch  = 8 // checkpoint intervals per epoch, at most: each holds at least 4 iterations
	// outlierFactor: an interval more than this times its run's median is
	// the machine's other work, not the method's.
	outlierFactor = 4
	// gapFactor: a checkpoint gap of an accuracy run more than this times
	// its curve's median gap is counted as an outlier gap.
	gapFactor = 10
)

// EpochTiming is the wall-clock cost of an epoch (n gradient evaluations) of
// one method under one schedule, measured as described above.
type EpochTiming struct {
	Schedule string `json:"schedule"`
	Method   string `json:"method"`
	// Epochs is the number of epochs timed in each repetition.
	Epochs int `json:"timed_epochs"`
	// Seconds holds one cost per repetition, in the order run.
	Seconds []float64 `json:"seconds_per_epoch"`
	// Median, Min and Max summarise Seconds.
	Median float64 `json:"median"`
	Min    float64 `json:"min"`
	Max    float64 `json:"max"`
	// Outliers counts the checkpoint intervals dropped (more than
	// outlierFactor times their run's median) of Intervals timed.
	Outliers  int `json:"outlier_intervals"`
	Intervals int `json:"intervals"`
}

// Timing is the measurement of every method's epoch cost on one data set.
type Timing struct {
	Reps     int `json:"repetitions"`
	Warmup   int `json:"warmup_epochs"`
	PerEpoch int `json:"intervals_per_epoch"`
	// Methods lists the (schedule, method) pairs of the accuracy runs.
	Methods []EpochTiming `json:"methods"`
	// CPUShare is the process's CPU time over the wall-clock time of the
	// measurement, which runs one goroutine: well below 1, the machine
	// gave it less than a core. NaN where the OS does not say.
	CPUShare float64       `json:"cpu_share"`
	Elapsed  time.Duration `json:"elapsed_seconds"`
	Err      string        `json:"error,omitempty"`
}

// Gaps is what the seconds recorded inside the accuracy runs show: checkpoint
// gaps more than gapFactor times their curve's median. The report does not
// use those seconds; it reports them.
type Gaps struct {
	Count int `json:"count"`
	Of    int `json:"of"`
	// Largest is the largest such gap and Median its curve's median gap,
	// in seconds.
	Largest float64 `json:"largest_seconds"`
	Median  float64 `json:"median_seconds"`
	Curve   string  `json:"curve"` // schedule/method of the largest
}

// get returns the timing of method under schedule, nil if not measured.
func (t *Timing) get(schedule, method string) *EpochTiming {
	if t == nil {
		return nil
	}
	for k := range t.Methods {
		if e := &t.Methods[k]; e.Schedule == schedule && e.Method == method {
			return e
		}
	}
	return nil
}

// measureTiming times an epoch of every method of res on d's data, reps
// times, as the package comment says; step is called after each run.
func measureTiming(d *Dataset, res *srg.DatasetResult, reps int, seed uint64, ns func(int) reweighted.Distribution, step func()) *Timing {
	n := d.data.Len()
	t := &Timing{Reps: max(reps, 1), Warmup: timingWarmup, PerEpoch: min(max(n/(4*d.Batch), 1), timingPerEpoch)}
	p, err := srg.NewProblem(d.data, d.data.Labels, srg.Logistic, 1/float64(n))
	if err != nil {
		t.Err = err.Error()
		return t
	}
	var jobs []timingJob
	for _, sc := range []struct {
		name   string
		sched  srg.Schedule
		curves []srg.Curve
	}{
		{"constant", srg.ExperimentalConstant(n, res.BigL), res.Constant},
		{"decreasing", srg.Experimental(n, res.BigL, p.Mu), res.Decreasing},
	} {
		for _, c := range sc.curves {
			m, ok := methodByName(c.Method)
			if !ok {
				continue
			}
			jobs = append(jobs, timingJob{sc.name, sc.sched, m, c})
		}
	}
	timeJobs(t, p, jobs, srg.Options{Batch: d.Batch, Protocol: res.Protocol, NewSampler: ns}, seed, step)
	return t
}

// measureSyntheticTiming times an epoch of SGD and of SRG on the synthetic
// least-squares set of res (seed, batch 1, the constant step of
// srg.Synthetic), reps times, as the package comment says; step is called
// after each run.
func measureSyntheticTiming(res *srg.SyntheticResult, reps int, seed uint64, ns func(int) reweighted.Distribution, step func()) *Timing {
	t := &Timing{Reps: max(reps, 1), Warmup: timingWarmup, PerEpoch: timingPerEpoch}
	ds := libsvm.Synthetic(seed, res.N, res.D)
	p, err := srg.NewProblem(ds, ds.Labels, srg.Squared, 0)
	if err != nil {
		t.Err = err.Error()
		return t
	}
	sched := srg.Constant{Alpha: res.Alpha, Eps: 1 / (2 * float64(res.N))}
	var jobs []timingJob
	for _, c := range res.Curves {
		if m, ok := methodByName(c.Method); ok {
			jobs = append(jobs, timingJob{"constant", sched, m, c})
		}
	}
	timeJobs(t, p, jobs, srg.Options{Batch: 1, NewSampler: ns}, seed, step)
	return t
}

// timingJob is one method under one schedule to time, with the curve of
// its accuracy runs.
type timingJob struct {
	schedule string
	sched    srg.Schedule
	method   srg.Method
	curve    srg.Curve
}

// timeJobs times the jobs on p into t, t.Reps repetitions in repOrder,
// each run with opts (batch, protocol, sampler) and its own seed; step is
// called after each run.
func timeJobs(t *Timing, p *srg.Problem, jobs []timingJob, opts srg.Options, seed uint64, step func()) {
	start := time.Now()
	cpu0, haveCPUTime := cputime.Process()
	defer func() {
		t.Elapsed = time.Since(start)
		t.CPUShare = math.NaN()
		if cpu1, ok := cputime.Process(); haveCPUTime && ok {
			t.CPUShare = (cpu1 - cpu0).Seconds() / t.Elapsed.Seconds()
		}
	}()
	for _, j := range jobs {
		t.Methods = append(t.Methods, EpochTiming{Schedule: j.schedule, Method: j.curve.Method, Epochs: timedEpochs(j.curve)})
	}
	per := t.PerEpoch
	for r := range t.Reps {
		for _, j := range repOrder(len(jobs), r) {
			runtime.GC()
			o := opts
			o.Method, o.Schedule = jobs[j].method, jobs[j].sched
			o.Epochs, o.PerEpoch, o.Seed = float64(timingWarmup+t.Methods[j].Epochs), per, seed+uint64(1000*r+j)
			tr, err := srg.Run(p, o)
			if err != nil {
				t.Err = err.Error()
				return
			}
			cost, out, of := epochCostOf(tr.Seconds[timingWarmup*per:], per, jobs[j].method == srg.SVRG)
			e := &t.Methods[j]
			e.Seconds = append(e.Seconds, cost)
			e.Outliers += out
			e.Intervals += of
			step()
		}
	}
	for k := range t.Methods {
		e := &t.Methods[k]
		q := slices.Sorted(slices.Values(e.Seconds))
		e.Median, e.Min, e.Max = median(q), q[0], q[len(q)-1]
	}
}

// repOrder is the order of the jobs in repetition r. The jobs come in
// pairs (SGD then SRG, then the other two methods, of each schedule, as the
// curves list them), and a pair runs back to back, so the two methods of a
// pair see the machine alike and their ratio in a repetition is fair; the
// pairs rotate from one repetition to the next, and which of a pair goes
// first alternates.
func repOrder(jobs, r int) []int {
	pairs := (jobs + 1) / 2
	var out []int
	for k := range pairs {
		p := (k + r) % pairs
		a, b := 2*p, 2*p+1
		if r%2 == 1 {
			a, b = b, a
		}
		for _, j := range []int{a, b} {
			if j < jobs {
				out = append(out, j)
			}
		}
	}
	return out
}

// timedEpochs returns the epochs to time of the method of c, from the cost
// of an epoch its accuracy runs recorded (a rough guide: they ran
// alongside others), so that a timed run lasts about timingRun.
func timedEpochs(c srg.Curve) int {
	k := len(c.Seconds) - 1
	if k < 1 || !(c.Seconds[k] > 0) || !(c.Evals[k] > 0) {
		return timingMinEpochs
	}
	perEpoch := c.Seconds[k] / c.Evals[k]
	return min(max(int(math.Ceil(timingRun.Seconds()/perEpoch)), timingMinEpochs), timingMaxEpochs)
}

// epochCostOf returns the seconds per epoch of a run from its cumulative
// seconds at per checkpoints an epoch: the mean of its intervals but those
// more than outlierFactor times their median, which it counts. SVRG's
// intervals are lumpy by design (a full gradient now and then), so its cost
// is the whole time over the epochs, with no outliers dropped.
func epochCostOf(secs []float64, per int, lumpy bool) (cost float64, outliers, intervals int) {
	var gaps []float64
	for k := 1; k < len(secs); k++ {
		gaps = append(gaps, secs[k]-secs[k-1])
	}
	if len(gaps) == 0 {
		return math.NaN(), 0, 0
	}
	med := median(slices.Sorted(slices.Values(gaps)))
	if lumpy || med <= 0 {
		return (secs[len(secs)-1] - secs[0]) * float64(per) / float64(len(gaps)), 0, len(gaps)
	}
	var sum float64
	kept := 0
	for _, g := range gaps {
		if g > outlierFactor*med {
			outliers++
			continue
		}
		sum += g
		kept++
	}
	return sum / float64(kept) * float64(per), outliers, len(gaps)
}

// methodByName maps a curve's method name back to the method.
func methodByName(name string) (srg.Method, bool) {
	for _, m := range []srg.Method{srg.SGD, srg.Reshuffled, srg.SRG, srg.SVRG} {
		if m.String() == name {
			return m, true
		}
	}
	return 0, false
}

// rawGaps finds the outlier gaps of the seconds recorded in the accuracy runs.
func rawGaps(res *srg.DatasetResult) Gaps {
	var g Gaps
	for _, sc := range []struct {
		name   string
		curves []srg.Curve
	}{{"constant", res.Constant}, {"decreasing", res.Decreasing}} {
		for _, c := range sc.curves {
			var gaps []float64
			for k := 1; k < len(c.Seconds); k++ {
				gaps = append(gaps, c.Seconds[k]-c.Seconds[k-1])
			}
			if len(gaps) == 0 {
				continue
			}
			med := median(slices.Sorted(slices.Values(gaps)))
			for _, x := range gaps {
				g.Of++
				if x > gapFactor*med && med > 0 {
					g.Count++
					if x > g.Largest {
						g.Largest, g.Median, g.Curve = x, med, sc.name+"/"+c.Method
					}
				}
			}
		}
	}
	return g
}

// secondsPerEpoch returns the median cost of an epoch of method under
// schedule on d, NaN if not measured.
func secondsPerEpoch(d Dataset, schedule, method string) float64 {
	if e := d.Timing.get(schedule, method); e != nil {
		return e.Median
	}
	return math.NaN()
}

// pairedRatios returns, for each repetition, the cost of an epoch of a over
// that of b under schedule, sorted; nil if either was not measured. The two
// ran in the same repetition, close in time, so their ratio shares its
// conditions.
func pairedRatios(d Dataset, schedule, a, b string) []float64 {
	ea, eb := d.Timing.get(schedule, a), d.Timing.get(schedule, b)
	if ea == nil || eb == nil || len(ea.Seconds) != len(eb.Seconds) || len(ea.Seconds) == 0 {
		return nil
	}
	out := make([]float64, len(ea.Seconds))
	for k := range out {
		out[k] = ea.Seconds[k] / eb.Seconds[k]
	}
	slices.Sort(out)
	return out
}

// fmtSpread formats a median with its range, as "1.2 (1.1–1.4)".
func fmtSpread(med, lo, hi float64, prec int) string {
	if math.IsNaN(med) {
		return "—"
	}
	return fmt.Sprintf("%s (%s–%s)", fmtG(med, prec), fmtG(lo, prec), fmtG(hi, prec))
}
