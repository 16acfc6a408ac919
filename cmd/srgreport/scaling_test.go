package main

import (
	"bytes"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/reweighted/reweighted/bench"
	"github.com/reweighted/reweighted/internal/backends"
	"github.com/stretchr/testify/require"
)

func TestFitLineKnownLines(t *testing.T) {
	xs := []float64{1, 2, 3, 4, 5}
	for _, c := range []struct{ a, b float64 }{{3, 2}, {-1, 0.5}, {100, -7}} {
		ys := make([]float64, len(xs))
		for i, x := range xs {
			ys[i] = c.a + c.b*x
		}
		f := fitLine(xs, ys)
		require.InDelta(t, c.b, f.Slope, 1e-12)
		require.InDelta(t, c.a, f.Intercept, 1e-12)
		require.InDelta(t, 1, f.R2, 1e-12)
	}
	// Noise lowers R² below 1 but keeps the slope near the truth.
	f := fitLine(xs, []float64{2.1, 3.9, 6.2, 7.8, 10.1})
	require.InDelta(t, 2, f.Slope, 0.1)
	require.Less(t, f.R2, 1.0)
	require.Greater(t, f.R2, 0.99)
}

// points builds a series of impl for op with ns(n) per step.
func points(impl, op string, ns func(n float64) float64, sizes ...int) []Point {
	var ps []Point
	for _, n := range sizes {
		ps = append(ps, Point{Impl: impl, Op: op, N: n, NsPerOp: ns(float64(n))})
	}
	return ps
}

func TestFitScalingModels(t *testing.T) {
	sizes := []int{1 << 8, 1 << 10, 1 << 12, 1 << 14}
	var ps []Point
	// A tree: 100 + 50·log2 n ns; naive: 3n ns (linear); gonum: 20 + 5·log2 n.
	ps = append(ps, points("naive", "step", func(n float64) float64 { return 3 * n }, sizes...)...)
	ps = append(ps, points("naive", "step-eps0", func(n float64) float64 { return 2 * n }, sizes...)...)
	ps = append(ps, points("ost", "step", func(n float64) float64 { return 100 + 50*math.Log2(n) }, sizes...)...)
	ps = append(ps, points("ost", "step-eps0", func(n float64) float64 { return 40 + 10*math.Log2(n) }, sizes...)...)
	ps = append(ps, points("gonum-weighted", "step-eps0", func(n float64) float64 { return 20 + 5*math.Log2(n) }, sizes[:3]...)...)
	// Batch steps per item: ost 30 + 4·log2 n, gonum 10 + 2·log2 n, both
	// only from n = 2^10.
	ps = append(ps, points("ost", "batch-step", func(n float64) float64 { return 30 + 4*math.Log2(n) }, sizes[1:]...)...)
	ps = append(ps, points("gonum-weighted", "batch-step", func(n float64) float64 { return 10 + 2*math.Log2(n) }, sizes[1:]...)...)
	fits, ratios := fitScaling(ps)

	byKey := map[[2]string]Fit{}
	for _, f := range fits {
		byKey[[2]string{f.Impl, f.Op}] = f
	}
	require.Len(t, byKey, 7)
	require.InDelta(t, 4, byKey[[2]string{"ost", "batch-step"}].Slope, 1e-9)
	naive := byKey[[2]string{"naive", "step"}]
	require.Equal(t, "loglog", naive.Model)
	require.InDelta(t, 1, naive.Slope, 1e-12, "3n is linear in n")
	require.InDelta(t, 1, naive.R2, 1e-12)
	ost := byKey[[2]string{"ost", "step"}]
	require.Equal(t, "log2", ost.Model)
	require.InDelta(t, 50, ost.Slope, 1e-9, "ns per doubling")
	require.InDelta(t, 100, ost.Intercept, 1e-9)
	require.Equal(t, 1<<8, ost.From)
	require.Equal(t, 1<<14, ost.To)
	require.InDelta(t, 5, byKey[[2]string{"gonum-weighted", "step-eps0"}].Slope, 1e-9)

	// Ratios exist only where gonum was measured, for the backends.
	require.Len(t, ratios, 6)
	for _, q := range ratios {
		require.NotEqual(t, "gonum-weighted", q.Impl)
		require.Less(t, q.N, 1<<14)
		g := 20 + 5*math.Log2(float64(q.N))
		lg := math.Log2(float64(q.N))
		switch {
		case q.Impl == "ost" && q.N >= 1<<10:
			require.InDelta(t, (30+4*lg)/(10+2*lg), q.Batch, 1e-12, "batch per item over gonum's")
		default:
			require.True(t, math.IsNaN(q.Batch), "%s at n = %d: no batch measured", q.Impl, q.N)
		}
		if q.Impl == "ost" {
			require.InDelta(t, (40+10*lg)/g, q.Eps0, 1e-12)
			require.InDelta(t, (100+50*lg)/g, q.Step, 1e-12)
		}
	}
	for i := 1; i < len(ratios); i++ {
		require.LessOrEqual(t, ratios[i-1].N, ratios[i].N, "ratios sorted by n")
	}
}

func TestFitScalingSkipsSinglePoints(t *testing.T) {
	fits, ratios := fitScaling([]Point{{Impl: "ost", Op: "step", N: 256, NsPerOp: 10}})
	require.Empty(t, fits)
	require.Empty(t, ratios)
}

func TestMeasureScalingTiny(t *testing.T) {
	var out bytes.Buffer
	pr := newProgress(&out, false)
	sc := measureScaling(4, 5, 1<<4, time.Millisecond, 1, 1, pr)
	require.Empty(t, sc.Err)
	// naive only at n = 16 (naiveMax), the other backends at 16 and 32;
	// gonum runs only the ε = 0 step; the floor runs at both sizes; levels,
	// btree and gonum also run the single step on two laws of keys at both
	// sizes (levels at ε = 0 as well), and at n = 32 the draws on
	// near-ties, near the cutoff and on Exp(1) keys.
	require.Len(t, sc.Points, 2+4*(len(backends.Every())-1)+2+2+len(drawImpls)*(2*2+3)+2*2)
	floor := 0
	drawn := map[string]int{}
	for _, p := range sc.Points {
		if p.Impl == bench.FloorImpl {
			require.Equal(t, bench.TwoDescents, p.Op)
			floor++
		}
		if slices.Contains(drawImpls, p.Impl) {
			drawn[p.Op]++
		}
		require.Greater(t, p.NsPerOp, 0.0)
		require.False(t, math.IsInf(p.NsPerOp, 0))
		require.LessOrEqual(t, p.N, 32)
		if p.Impl == "naive" {
			require.Equal(t, 16, p.N)
		}
	}
	require.Equal(t, 2, floor)
	for _, op := range []string{singleOp(bench.Exp), singleOp(bench.LogNormal)} {
		require.Equal(t, 2*len(drawImpls), drawn[op], op)
	}
	for _, op := range []string{string(bench.DrawTies), string(bench.DrawCutoff), drawExpOp} {
		require.Equal(t, len(drawImpls), drawn[op], op)
	}
	for _, op := range []string{singleOpEps0(bench.Exp), singleOpEps0(bench.LogNormal)} {
		require.Equal(t, 2, drawn[op], op)
	}
	require.Contains(t, out.String(), "scaling done")
}

// From n = 2m the stage times the batch step of every impl, gonum's
// included, per item; the batch ratios to gonum follow.
func TestMeasureScalingBatch(t *testing.T) {
	var out bytes.Buffer
	sc := measureScaling(8, 8, 1<<8, time.Millisecond, 1, 1, newProgress(&out, false))
	require.Empty(t, sc.Err)
	require.Equal(t, 2*batchSize, 1<<8)
	batch := map[string]Point{}
	for _, p := range sc.Points {
		if p.Op == string(batchStep) {
			batch[p.Impl] = p
		}
	}
	require.Len(t, batch, len(bench.Impls), "every impl, gonum's included")
	for impl, p := range batch {
		require.Equal(t, 256, p.N)
		require.Greater(t, p.NsPerOp, 0.0, impl)
		require.False(t, math.IsInf(p.NsPerOp, 0), impl)
	}
	require.Len(t, sc.Ratios, len(backends.Every()))
	for _, q := range sc.Ratios {
		require.InEpsilon(t, batch[q.Impl].NsPerOp/batch[bench.GonumWeighted].NsPerOp, q.Batch, 1e-12, q.Impl)
	}
}

// An interval far above its run's median is the machine's other work: it is
// dropped and counted; SVRG's uneven intervals are all kept.
func TestEpochCostOfDropsOutliers(t *testing.T) {
	secs := []float64{0, 1, 2, 3, 13, 14} // intervals 1, 1, 1, 10, 1
	cost, out, of := epochCostOf(secs, 4, false)
	require.Equal(t, 4.0, cost, "mean kept interval 1, four an epoch")
	require.Equal(t, 1, out)
	require.Equal(t, 5, of)
	cost, out, _ = epochCostOf(secs, 4, true)
	require.InEpsilon(t, 14.0/5*4, cost, 1e-12)
	require.Zero(t, out)
}

// Every repetition runs each job once, the two of a pair (SGD and SRG of a
// schedule) back to back, which first alternating.
func TestRepOrderPairsRunBackToBack(t *testing.T) {
	for r := range 6 {
		o := repOrder(8, r)
		require.ElementsMatch(t, []int{0, 1, 2, 3, 4, 5, 6, 7}, o, "rep %d", r)
		for k := 0; k < len(o); k += 2 {
			require.Equal(t, o[k]/2, o[k+1]/2, "rep %d: a pair back to back: %v", r, o)
		}
		require.Equal(t, r%2 == 1, o[0]%2 == 1, "rep %d: which goes first alternates", r)
	}
	require.ElementsMatch(t, []int{0, 1, 2}, repOrder(3, 1))
}

// The cost section shows the single step and the adversarial draws: each
// time beside its ratio to gonum's (the single step) or to the draw on
// Exp(1) keys at the same n (the adversarial draws), and their figures.
func TestMarkdownDrawWorkloads(t *testing.T) {
	r := &Report{Sampler: "levels", Scaling: Scaling{Benchtime: time.Millisecond, Reps: 1, Points: []Point{
		{Impl: "levels", Op: singleOp(bench.Exp), N: 1 << 16, NsPerOp: 300},
		{Impl: "levels", Op: singleOp(bench.LogNormal), N: 1 << 16, NsPerOp: 330},
		{Impl: bench.GonumWeighted, Op: singleOp(bench.Exp), N: 1 << 16, NsPerOp: 400},
		{Impl: bench.GonumWeighted, Op: singleOp(bench.LogNormal), N: 1 << 16, NsPerOp: 440},
		{Impl: "levels", Op: singleOpEps0(bench.Exp), N: 1 << 16, NsPerOp: 200},
		{Impl: "levels", Op: string(bench.DrawTies), N: 1000, NsPerOp: 800},
		{Impl: "levels", Op: drawExpOp, N: 1000, NsPerOp: 100},
		{Impl: "levels", Op: string(bench.DrawCutoff), N: 1 << 16, NsPerOp: 150},
		{Impl: "levels", Op: drawExpOp, N: 1 << 16, NsPerOp: 120},
		{Impl: "btree", Op: string(bench.DrawCutoff), N: 1 << 16, NsPerOp: 500},
	}},
		Figures: map[string]Figure{figSingle: {File: "single-step.svg", Caption: "single"}, figAdversarial: {File: "draw-adversarial.svg", Caption: "adversarial"}},
	}
	var b bytes.Buffer
	require.NoError(t, writeMarkdown(&b, r))
	md := b.String()
	for _, want := range []string{
		"| n | levels exp | levels / gonum, exp | gonum-weighted exp | levels lognormal | levels / gonum, lognormal | gonum-weighted lognormal |",
		"| 2^16 | 300 | 0.75 | 400 | 330 | 0.75 | 440 |",
		"| Impl | n | near-ties | Exp(1) | ratio | n | near the cutoff | Exp(1) | ratio |",
		"| levels | 1000 | 800 | 100 | 8.00 | 2^16 | 150 | 120 | 1.25 |",
		"| btree | — | — | — | — | 2^16 | 500 | — | — |",
		"![single](single-step.svg)", "![adversarial](draw-adversarial.svg)",
	} {
		require.Contains(t, md, want)
	}
	specs := map[string]figureSpec{}
	for _, s := range figureSpecs(r) {
		specs[s.key] = s
	}
	single := specs[figSingle].series
	require.Len(t, single, 5, "levels and gonum, two laws each, and levels at ε = 0 on Exp(1) keys")
	require.Equal(t, "levels ε = 0 exp", single[1].label)
	require.Equal(t, []float64{200}, single[1].ys)
	require.False(t, single[1].dashed, "Exp(1) keys: solid")
	adv := specs[figAdversarial].series
	require.Len(t, adv, 4, "levels on Exp(1), near-ties and near the cutoff; btree near the cutoff")
	// Each adversarial workload is its own series of marks: no line joins
	// the near-ties at n = 1000 to the keys near the cutoff at 2^16.
	require.Equal(t, []float64{1000}, adv[1].xs, "levels' near-ties")
	require.Equal(t, []float64{800}, adv[1].ys)
	require.NotNil(t, adv[1].marks)
	require.Equal(t, []float64{1 << 16}, adv[2].xs, "levels near the cutoff")
	require.Equal(t, []float64{150}, adv[2].ys)
	require.NotNil(t, adv[2].marks)
	require.Nil(t, adv[0].marks, "the Exp(1) keys are one workload: a line")
}
