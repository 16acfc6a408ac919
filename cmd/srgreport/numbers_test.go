package main

import (
	"fmt"
	"math"
	"sync/atomic"
	"testing"
	"time"

	"github.com/reweighted/reweighted"
	"github.com/reweighted/reweighted/libsvm"
	"github.com/reweighted/reweighted/srg"
	"github.com/stretchr/testify/require"
)

// The tests of this file hold the numbers the report prints to values
// worked out by hand from small inputs; each was a survivor of a mutation
// pass (seed 20) over timing.go, verdict.go, scaling.go, experiments.go and
// report.go.

// A timed run lasts about timingRun: an accuracy run that took 2^-7 s for 2
// epochs costs 2^-8 s an epoch, and 0.06 s is 15.36 of them, so 16 epochs
// are timed; far slower or far faster runs are held to the bounds.
func TestTimedEpochs(t *testing.T) {
	require.Equal(t, 16, timedEpochs(srg.Curve{Evals: []float64{0, 1, 2}, Seconds: []float64{0, 0.005, 0.0078125}}))
	require.Equal(t, timingMinEpochs, timedEpochs(srg.Curve{Evals: []float64{0, 2}, Seconds: []float64{0, 1}}), "0.5 s an epoch")
	require.Equal(t, timingMaxEpochs, timedEpochs(srg.Curve{Evals: []float64{0, 2}, Seconds: []float64{0, 1e-6}}), "0.5 µs an epoch")
	require.Equal(t, timingMinEpochs, timedEpochs(srg.Curve{Evals: []float64{0}, Seconds: []float64{0}}), "no interval")
}

// stalling wraps a distribution and sleeps once, on its Set call number at:
// an interval of the run it falls in takes far longer than the others.
type stalling struct {
	reweighted.Sampler
	sets, at int
	stall    time.Duration
}

func (s *stalling) Set(i int, a float64) error {
	s.sets++
	if s.sets == s.at {
		time.Sleep(s.stall)
	}
	return s.Sampler.Set(i, a)
}

// Property: the outliers a method's timing reports are the intervals its
// runs dropped, at least one a run when each run stalls once, and at most
// the intervals timed. SRG's sampler here sleeps 20 ms on its 100th key
// update, in the first timed epoch (the warm-up epoch of 64 examples, one a
// step, makes 64), where an interval of 8 steps takes microseconds.
func TestMeasureTimingCountsOutliers(t *testing.T) {
	const n = 64
	ds := generatedSet(5, n)
	ds.NormalizeRows()
	d := &Dataset{Name: "g", Batch: 1, data: ds}
	slow := srg.Curve{Evals: []float64{0, 2}, Seconds: []float64{0, 10}} // 5 s an epoch: timingMinEpochs timed
	res := &srg.DatasetResult{N: n, BigL: 0.25, Protocol: srg.WithoutReplacement,
		Constant: []srg.Curve{{Method: "SGD", Evals: slow.Evals, Seconds: slow.Seconds}, {Method: "SRG", Evals: slow.Evals, Seconds: slow.Seconds}}}
	var made atomic.Int32
	ns := func(n int) reweighted.Distribution {
		made.Add(1)
		return &stalling{Sampler: newSampler("naive")(n).(reweighted.Sampler), at: 100, stall: 20 * time.Millisecond}
	}
	tm := measureTiming(d, res, 2, 1, ns, func() {})
	require.Empty(t, tm.Err)
	require.EqualValues(t, 2, made.Load(), "one SRG run a repetition")
	e := tm.get("constant", "SRG")
	require.NotNil(t, e)
	require.Equal(t, timingMinEpochs, e.Epochs)
	require.Equal(t, 2*timingMinEpochs*tm.PerEpoch, e.Intervals, "every interval of both runs counted")
	require.GreaterOrEqual(t, e.Outliers, 2, "each run's stalled interval")
	require.LessOrEqual(t, e.Outliers, e.Intervals)
	g := tm.get("constant", "SGD")
	require.GreaterOrEqual(t, g.Outliers, 0)
	require.LessOrEqual(t, g.Outliers, g.Intervals)
}

// r of a synthetic set is σ²/σ*² at x* with ε = 0: (1/n)Σa_i² over
// (1/n²)(Σa_i)², a_i = ‖∇f_i(x*)‖, which is n·Σa_i²/(Σa_i)² ≥ 1. Each seed
// of seedRatios gives its set's r.
func TestSeedRatio(t *testing.T) {
	const n, d = 60, 4
	ns := newSampler("naive")
	for seed := uint64(1); seed <= 2; seed++ {
		ds := libsvm.Synthetic(seed, n, d)
		p, err := srg.NewProblem(ds, ds.Labels, srg.Squared, 0)
		require.NoError(t, err)
		sol, err := p.Solve(1e-12)
		require.NoError(t, err)
		var s1, s2 float64
		for _, a := range p.GradNorms(sol.X) {
			s1, s2 = s1+a, s2+a*a
		}
		want := n * s2 / (s1 * s1)
		got, ok := seedRatio(seed, n, d, ns)
		require.True(t, ok, "seed %d", seed)
		require.InEpsilon(t, want, got, 1e-9, "seed %d", seed)
		require.GreaterOrEqual(t, got, 1.0)
	}
	rs := seedRatios(0, 2, n, d, ns, func() {})
	require.Len(t, rs, 2, "seeds 1 and 2")
	want1, _ := seedRatio(1, n, d, ns)
	require.Equal(t, want1, rs[0])
	require.False(t, math.IsNaN(rs[1]))
}

// Property: where SRG was sooner nowhere, the verdict's sentence lists the
// sets and schedules where it was later, and says "none" only where there
// is no such one.
func TestVerdictSentenceLaterOn(t *testing.T) {
	later := VerdictRow{Dataset: "a", Schedule: "constant", Log10: -1, RatioLo: 1.5, RatioHi: 2}
	noise := VerdictRow{Dataset: "b", Schedule: "decreasing", Log10: -2, RatioLo: 0.5, RatioHi: 2}
	require.Equal(t, "**In seconds:** SRG was sooner nowhere. It was later on a at the constant step (1e-1).",
		verdictSentence([]VerdictRow{later}))
	require.Equal(t, "**In seconds:** SRG was sooner nowhere. Within the timing's noise: b at the decreasing steps (1e-2).",
		verdictSentence([]VerdictRow{noise}))
	// What the run cannot tell is said apart from what it measured, and
	// the first sentence does not claim more than the run can tell.
	unknown := VerdictRow{Dataset: "c", Schedule: "constant", Log10: -3, GainBound: ">", Gain: 2, CostLo: 1.5, CostHi: 3}
	require.Equal(t, "not known", unknown.Sooner())
	require.Equal(t, "**In seconds:** SRG was sooner nowhere that this run can tell. It was later on a at the constant step (1e-1). "+
		"Not known, the run being too short to tell: c at the constant step (1e-3).", verdictSentence([]VerdictRow{later, unknown}))
	sooner := VerdictRow{Dataset: "d", Schedule: "constant", Log10: 0, GainBound: ">", Gain: 5, CostLo: 2, CostHi: 3}
	require.Equal(t, "**In seconds:** SRG was sooner on d at the constant step (1e0). It was later on a at the constant step (1e-1).",
		verdictSentence([]VerdictRow{sooner, later}))
}

// The outlier gaps of the accuracy runs are those more than gapFactor
// times their curve's median gap: here gaps of 1, 1, 1, 30, 1 s (median 1)
// in one curve and 2, 2, 19, 2 s (median 2, 19 within 10 times it) in the
// other, so one of 9, the largest 30 s against a median of 1 s.
func TestRawGaps(t *testing.T) {
	res := &srg.DatasetResult{
		Constant:   []srg.Curve{{Method: "SRG", Seconds: []float64{0, 1, 2, 3, 33, 34}}},
		Decreasing: []srg.Curve{{Method: "SGD", Seconds: []float64{0, 2, 4, 23, 25}}, {Method: "SVRG", Seconds: []float64{5}}},
	}
	require.Equal(t, Gaps{Count: 1, Of: 9, Largest: 30, Median: 1, Curve: "constant/SRG"}, rawGaps(res))
	// Two more in the second curve (23 and 40 s against a median of 2 s), the
	// larger there.
	res.Decreasing[0].Seconds = []float64{0, 2, 4, 6, 29, 31, 71}
	require.Equal(t, Gaps{Count: 3, Of: 11, Largest: 40, Median: 2, Curve: "decreasing/SGD"}, rawGaps(res))
}

// The time to an accuracy is read off the curves and the timing: a mean
// curve at 10^0, 10^-0.5, 10^-1.5 at epochs 0, 1, 2 reaches 10^-1 half-way
// from epoch 1 to 2, at 1.5; its best run (10^-1 at epoch 1) and its worst
// (10^-1 at epoch 2) bracket it; with epochs costing 2 s (median), 0.5 s
// (cheapest) and 4 s (dearest), that is 3 s (0.75 to 6 s).
func TestTimesToByHand(t *testing.T) {
	d := Dataset{
		Result: &srg.DatasetResult{Constant: []srg.Curve{{Method: "SRG", Evals: []float64{0, 1, 2},
			Log10Err: []float64{0, -0.5, -1.5}, Log10ErrMin: []float64{0, -1, -2}, Log10ErrMax: []float64{0, -0.25, -1}}}},
		Timing: &Timing{Methods: []EpochTiming{{Schedule: "constant", Method: "SRG", Median: 2, Min: 0.5, Max: 4}}},
	}
	got := timesTo(d)
	require.Len(t, got, len(accuracyLevels), "one measure recorded")
	first := got[0]
	require.Equal(t, TimeTo{Measure: measureDist, Schedule: "constant", Method: "SRG", Log10: -1,
		Epochs: 1.5, EpochsLo: 1, EpochsHi: 2, Seconds: 3, SecondsLo: 0.75, SecondsHi: 6}, first)
	second := got[1]
	require.Equal(t, -2.0, second.Log10)
	require.True(t, math.IsNaN(second.Epochs) && math.IsNaN(second.Seconds), "the mean curve never reaches 10^-2")
	require.Equal(t, 2.0, second.EpochsLo, "the best run reaches 10^-2 at epoch 2")
}

// The synthetic problem is read from its start, 1e0, where every run is
// at a relative error of 1: that level counts as reached at the first
// checkpoint after the start at or below it (here epoch 2, between 10^0.5
// at epoch 1 and 10^-0.5 at epoch 3 at half-way), and a curve that never
// comes back below it (SGD's, above its start) never reaches it.
func TestSyntheticReadFromItsStart(t *testing.T) {
	evals := []float64{0, 1, 3, 4}
	require.Equal(t, 2.0, reachAfterStart(evals, []float64{0, 0.5, -0.5, -1}, 0))
	require.True(t, math.IsNaN(reachAfterStart(evals, []float64{0, 0.5, 0.8, 0.3}, 0)))
	// Below the start, the start plays no part: 10^-1 at epoch 4.
	require.Equal(t, 4.0, reachAfterStart(evals, []float64{0, 0.5, -0.5, -1}, -1))
	y := &Synthetic{Runs: 2, Epochs: 4, Result: &srg.SyntheticResult{N: 10, D: 2, Curves: []srg.Curve{
		{Method: "SGD", Evals: evals, Log10Err: []float64{0, 0.5, 0.8, 0.3}},
		{Method: "SRG", Evals: evals, Log10Err: []float64{0, 0.5, -0.5, -1}},
	}}}
	d, ok := syntheticSet(y)
	require.True(t, ok)
	got := map[string]float64{}
	for _, tt := range timesTo(d) {
		got[fmt.Sprintf("%s %g", tt.Method, tt.Log10)] = tt.Epochs
	}
	require.Equal(t, 2.0, got["SRG 0"])
	require.Equal(t, 4.0, got["SRG -1"])
	require.True(t, math.IsNaN(got["SGD 0"]))
	require.Len(t, got, 2*len(syntheticLevels), "each method at each level")
	_, ok = syntheticSet(&Synthetic{Err: "failed"})
	require.False(t, ok)
}

// The synthetic problem's timing times SGD and SRG at batch 1 on the set
// of the seed, one run of each a repetition.
func TestSyntheticTiming(t *testing.T) {
	res, err := srg.Synthetic(srg.SyntheticConfig{Runs: 1, Epochs: 1, Seed: 3, N: 60, D: 3, NewSampler: newSampler("levels")})
	require.NoError(t, err)
	steps := 0
	tm := measureSyntheticTiming(&res, 2, 3, newSampler("levels"), func() { steps++ })
	require.Empty(t, tm.Err)
	require.Equal(t, 4, steps)
	for _, m := range []string{"SGD", "SRG"} {
		e := tm.get("constant", m)
		require.NotNil(t, e, m)
		require.Len(t, e.Seconds, 2, m)
		require.Positive(t, e.Median, m)
	}
}
