package main

import (
	"fmt"
	"math"
	"slices"
	"strings"
)

// VerdictRow compares SRG with SGD at one accuracy in one measure, on one
// data set under one schedule, where at least one of the two reached it.
//
// Gain is SRG's gain in epochs, SGD's epochs over SRG's: the break-even
// epoch cost, below which SRG's epoch may cost (relative to SGD's) and SRG
// still be sooner. When only one method reached the accuracy in the run of
// Epochs epochs, Gain is a bound: GainBound is ">" (SGD did not get there:
// the gain exceeds Epochs over SRG's epochs) or "<" (SRG did not); "" when
// exact.
//
// Cost is the median over the timing's repetitions of SRG's epoch cost over
// SGD's in the same repetition, CostLo and CostHi the smallest and largest.
// Ratio is SRG's seconds over SGD's, Cost over Gain, with RatioLo and
// RatioHi from CostLo and CostHi (NaN unless both reached the accuracy).
type VerdictRow struct {
	Dataset, Schedule, Measure string
	Log10                      float64
	SGD, SRG                   TimeTo
	Epochs                     float64 // the run's length
	Gain                       float64
	GainBound                  string
	Cost, CostLo, CostHi       float64
	Ratio, RatioLo, RatioHi    float64
}

// Sooner says whether SRG reached the accuracy sooner in seconds: "yes"
// when it did in every repetition of the timing, "no" when it did in none,
// "within noise" otherwise. With a bound on the gain it says "yes" when
// even the bound beats the dearest repetition's cost, "no" when the
// cheapest loses to it, and "not known" otherwise: the run was too short to
// tell.
func (v VerdictRow) Sooner() string {
	switch v.GainBound {
	case ">":
		if v.CostHi < v.Gain {
			return "yes"
		}
		return "not known"
	case "<":
		if v.CostLo > v.Gain {
			return "no"
		}
		return "not known"
	}
	switch {
	case v.RatioHi < 1:
		return "yes"
	case v.RatioLo > 1:
		return "no"
	}
	return "within noise"
}

// verdictRows lists, for every data set, schedule and measure, the
// accuracies that SRG or SGD reached, with the timing of both.
func verdictRows(r *Report, measure string) []VerdictRow {
	var rows []VerdictRow
	for _, d := range r.Datasets {
		if d.Result == nil {
			continue
		}
		for _, sched := range []string{"constant", "decreasing"} {
			q := pairedRatios(d, sched, methodSRG, methodSGD)
			if len(q) == 0 {
				continue
			}
			for _, lv := range accuracyLevels {
				g, s := timeIn(d, measure, sched, methodSGD, lv), timeIn(d, measure, sched, methodSRG, lv)
				v := VerdictRow{Dataset: d.Name, Schedule: sched, Measure: measure, Log10: lv, SGD: g, SRG: s,
					Epochs: float64(d.Epochs), Cost: median(q), CostLo: q[0], CostHi: q[len(q)-1],
					Ratio: math.NaN(), RatioLo: math.NaN(), RatioHi: math.NaN()}
				sOK, gOK := !math.IsNaN(s.Epochs), !math.IsNaN(g.Epochs)
				switch {
				case sOK && gOK:
					v.Gain = g.Epochs / s.Epochs
					v.Ratio, v.RatioLo, v.RatioHi = v.Cost/v.Gain, v.CostLo/v.Gain, v.CostHi/v.Gain
				case sOK:
					v.Gain, v.GainBound = v.Epochs/s.Epochs, ">"
				case gOK:
					v.Gain, v.GainBound = g.Epochs/v.Epochs, "<"
				default:
					continue
				}
				rows = append(rows, v)
			}
		}
	}
	return rows
}

// scheduleLabel names a schedule in prose.
func scheduleLabel(s string) string {
	if s == "constant" {
		return "constant step"
	}
	return "decreasing steps"
}

// verdict opens the report: does SRG beat SGD, in epochs and in seconds,
// and which of the two decides it on each set.
func (m *mdWriter) verdict(r *Report) {
	if len(r.Datasets) == 0 {
		return
	}
	m.printf("\n## SRG against SGD: time to accuracy\n\n")
	m.printf("The epochs and the seconds SRG and SGD take to reach 1e-1 … 1e-4 on the data sets of section 4 ")
	m.printf("(logistic regression, mini-batches of %d) in two measures: the paper's relative distance %s, ", batchSize, measureOf(measureDist).label)
	m.printf("and the relative suboptimality %s, the usual measure for logistic regression (section 4 says how exact each is). ", measureOf(measureSubopt).label)
	m.printf("Epochs are read from the mean curve over the runs, with in brackets the best and the worst run (a dash: that run did not get there). ")
	m.printf("*Break-even* is SRG's gain in epochs, SGD's epochs over SRG's: SRG is sooner in seconds exactly when its epoch costs ")
	m.printf("less than that many SGD epochs. *Epoch cost* is what an SRG epoch costs in SGD epochs, the median and the range over %d ", timingRepsOf(r))
	m.printf("repetitions timed apart from everything else (section 4, *How the seconds were measured*), SRG and SGD side by side in each. ")
	m.printf("Seconds are the epochs times the median cost of an epoch. *SRG sooner*: yes when SRG's time is lower in every repetition, ")
	m.printf("no when in none. Where only one method reached an accuracy in the run, the other's epochs read — and the break-even is a bound; ")
	m.printf("*not known* then means the run was too short to tell.\n")
	for _, ms := range measures {
		rows := verdictRows(r, ms.name)
		m.printf("\n**Relative %s %s.**", measureWord(ms.name), ms.label)
		if len(rows) == 0 {
			m.printf(" Neither method reached 1e-1 on any set in this run.\n")
			continue
		}
		m.printf("\n")
		m.table("Data set", "Steps", "Accuracy", "SGD epochs", "SRG epochs", "Break-even (SGD / SRG epochs)", "Epoch cost (SRG / SGD)",
			"SGD seconds", "SRG seconds", "SRG / SGD seconds", "SRG sooner")
		for _, v := range rows {
			m.row(v.Dataset, scheduleLabel(v.Schedule), fmt.Sprintf("1e%d", int(v.Log10)),
				fmtReached(v.SGD, v.Epochs), fmtReached(v.SRG, v.Epochs), fmtGain(v),
				fmtSpread(v.Cost, v.CostLo, v.CostHi, 2),
				fmtSpread(v.SGD.Seconds, v.SGD.SecondsLo, v.SGD.SecondsHi, 2), fmtSpread(v.SRG.Seconds, v.SRG.SecondsLo, v.SRG.SecondsHi, 2),
				fmtSpread(v.Ratio, v.RatioLo, v.RatioHi, 2), v.Sooner())
		}
		m.printf("\n%s\n", verdictSentence(rows))
	}
	m.printf("\n**What decides it, set by set.**\n\n")
	for _, d := range r.Datasets {
		if s := decides(d); s != "" {
			m.printf("- %s\n", s)
		}
	}
	if missing := missingLevels(r); len(missing) > 0 {
		m.printf("\n**Levels not reached**, and why:\n\n")
		for _, s := range missing {
			m.printf("- %s\n", s)
		}
	}
	if notes := busyNotes(r.Machine, r.Datasets); len(notes) > 0 {
		m.printf("\n**The machine was busy:** %s. Medians and paired ratios resist that, but the seconds are less certain than on an idle machine.\n",
			strings.Join(notes, "; "))
	}
}

// fmtReached formats the epochs a method took, with its best and worst
// run, or "—" with the run's length if it did not get there.
func fmtReached(t TimeTo, epochs float64) string {
	if math.IsNaN(t.Epochs) {
		return fmt.Sprintf("— (not in %s)", fmtG(epochs, 3))
	}
	return fmtSpread(t.Epochs, t.EpochsLo, t.EpochsHi, 3)
}

// fmtGain formats the break-even: exact, or a bound.
func fmtGain(v VerdictRow) string {
	if v.GainBound != "" {
		return v.GainBound + " " + fmtG(v.Gain, 3)
	}
	return fmtG(v.Gain, 3)
}

// timingRepsOf returns the repetitions of the epoch timing of the run.
func timingRepsOf(r *Report) int {
	for _, d := range r.Datasets {
		if d.Timing != nil {
			return d.Timing.Reps
		}
	}
	return 0
}

// verdictSentence says plainly where SRG is sooner in seconds and where
// not, set by set and schedule by schedule, in one measure.
func verdictSentence(rows []VerdictRow) string {
	type key struct{ d, s string }
	groups := map[string][]string{}
	var order []key
	for _, v := range rows {
		if k := (key{v.Dataset, v.Schedule}); !slices.Contains(order, k) {
			order = append(order, k)
		}
	}
	for _, k := range order {
		by := map[string][]string{}
		var kinds []string
		for _, v := range rows {
			if v.Dataset != k.d || v.Schedule != k.s {
				continue
			}
			w := v.Sooner()
			if len(by[w]) == 0 {
				kinds = append(kinds, w)
			}
			by[w] = append(by[w], fmt.Sprintf("1e%d", int(v.Log10)))
		}
		for _, w := range kinds {
			groups[w] = append(groups[w], fmt.Sprintf("%s at the %s (%s)", k.d, scheduleLabel(k.s), strings.Join(by[w], ", ")))
		}
	}
	var b strings.Builder
	if len(groups["yes"]) == 0 {
		b.WriteString("**In seconds, SRG reached no accuracy sooner than SGD in this measure**: ")
		b.WriteString("later on " + orNone(groups["no"]))
	} else {
		b.WriteString("**In seconds, SRG was sooner than SGD on " + strings.Join(groups["yes"], "; ") + "**")
		if w := groups["no"]; len(w) > 0 {
			b.WriteString(", and later on " + strings.Join(w, "; "))
		}
	}
	if w := groups["within noise"]; len(w) > 0 {
		b.WriteString("; within the timing's noise on " + strings.Join(w, "; "))
	}
	if w := groups["not known"]; len(w) > 0 {
		b.WriteString("; not known from a run this short on " + strings.Join(w, "; "))
	}
	b.WriteString(".")
	return b.String()
}

// orNone joins parts, or says "none".
func orNone(parts []string) string {
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, "; ")
}

// verdictMeasure is the measure a set's sentence reads: the paper's
// distance, or on a wide set (more features than examples, where x* is
// least determined by the data) the suboptimality; the other one where
// SRG and SGD reached no level together in the first.
func verdictMeasure(d Dataset) string {
	order := []string{measureDist, measureSubopt}
	if d.Result != nil && d.Result.D > d.Result.N {
		order = []string{measureSubopt, measureDist}
	}
	for _, ms := range order {
		for _, sched := range []string{"constant", "decreasing"} {
			for _, lv := range accuracyLevels {
				if !math.IsNaN(timeIn(d, ms, sched, methodSGD, lv).Epochs) && !math.IsNaN(timeIn(d, ms, sched, methodSRG, lv).Epochs) {
					return ms
				}
			}
		}
	}
	return order[0]
}

// noGain is the gain in epochs up to which SRG is said to need SGD's
// epochs: for SRG to be sooner, its sampler would have to cost less than a
// tenth of an SGD epoch on top of the SGD epoch's work it also does.
const noGain = 1.1

// decides says, for one data set, whether SRG's gain in epochs or its
// epoch cost decides the verdict under each schedule: with no gain (SRG
// needs at least SGD's epochs), no sampler could make SRG sooner; with a
// gain above the cost, SRG is sooner until its epoch costs that gain; with
// a gain below the cost, a cheaper sampler would turn the verdict. Empty if
// nothing was measured.
func decides(d Dataset) string {
	if d.Result == nil {
		return ""
	}
	ms := verdictMeasure(d)
	rows := verdictRows(&Report{Datasets: []Dataset{d}}, ms)
	if len(rows) == 0 {
		return ""
	}
	type verdictCase struct{ kind, at, cost, gainLo, gainHi string }
	var cases []verdictCase
	for _, sched := range []string{"constant", "decreasing"} {
		var gains []float64
		var levels []string
		cost := math.NaN()
		for _, v := range rows {
			if v.Schedule == sched && v.GainBound == "" {
				gains, levels = append(gains, v.Gain), append(levels, fmt.Sprintf("1e%d", int(v.Log10)))
				cost = v.Cost
			}
		}
		if len(gains) == 0 {
			cases = append(cases, verdictCase{kind: "none", at: "the " + scheduleLabel(sched)})
			continue
		}
		lo, hi := slices.Min(gains), slices.Max(gains)
		g := fmtG(lo, 3)
		if fmtG(hi, 3) != g {
			g += "–" + fmtG(hi, 3)
		}
		c := verdictCase{at: fmt.Sprintf("%s at the %s (%s)", g, scheduleLabel(sched), strings.Join(levels, ", ")),
			cost: fmt.Sprintf("%s× at the %s", fmtG(cost, 3), scheduleLabel(sched)), gainLo: fmtG(lo, 3), gainHi: fmtG(hi, 3)}
		switch {
		case hi <= noGain:
			c.kind = "epochs"
		case lo > cost:
			c.kind = "gain"
		case hi < cost:
			c.kind = "cost"
		default:
			c.kind = "mixed"
		}
		cases = append(cases, c)
	}
	// One clause per kind, the schedules of that kind together.
	var parts []string
	for _, kind := range []string{"epochs", "gain", "cost", "mixed", "none"} {
		var at, cost, lo, hi []string
		for _, c := range cases {
			if c.kind == kind {
				at, cost, lo, hi = append(at, c.at), append(cost, c.cost), append(lo, c.gainLo), append(hi, c.gainHi)
			}
		}
		if len(at) == 0 {
			continue
		}
		gain, costs := "SRG's gain in epochs is "+strings.Join(at, " and "), strings.Join(cost, " and ")
		switch kind {
		case "epochs":
			parts = append(parts, gain+": SRG needs about SGD's epochs or more, while an SRG epoch does an SGD epoch's work and more "+
				"(it costs "+costs+"), so the epochs decide: no sampler, however cheap, could make SRG sooner")
		case "gain":
			parts = append(parts, gain+", above its epoch cost ("+costs+"): the gain decides, and SRG stays sooner while its epoch "+
				"costs less than "+strings.Join(lo, " and ")+" SGD epochs")
		case "cost":
			parts = append(parts, gain+", below its epoch cost ("+costs+"): the epoch cost decides, and a sampler that brought SRG's "+
				"epoch under "+strings.Join(hi, " and ")+" SGD epochs would make it sooner")
		case "mixed":
			parts = append(parts, gain+", on both sides of its epoch cost ("+costs+"): the cost decides level by level")
		case "none":
			parts = append(parts, "at "+strings.Join(at, " and ")+" no level was reached by both, so neither decides yet")
		}
	}
	return fmt.Sprintf("**%s** (relative %s): %s.", d.Name, measureWord(ms), strings.Join(parts, "; "))
}

// missingLevels says, for every level of 1e-1 … 1e-4 that neither SRG nor
// SGD reached on a set under a schedule in a measure, where their curves
// ended and whether they had levelled off (a constant step's noise floor)
// or were still falling, and then how long the first level missed would
// take at their pace (see trend).
func missingLevels(r *Report) []string {
	var out []string
	for _, d := range r.Datasets {
		if d.Result == nil {
			continue
		}
		for _, ms := range measures {
			for _, sched := range []string{"constant", "decreasing"} {
				var miss []string
				next := 0.0 // the first level missed
				for _, lv := range accuracyLevels {
					if math.IsNaN(timeIn(d, ms.name, sched, methodSGD, lv).Epochs) && math.IsNaN(timeIn(d, ms.name, sched, methodSRG, lv).Epochs) {
						if len(miss) == 0 {
							next = lv
						}
						miss = append(miss, fmt.Sprintf("1e%d", int(lv)))
					}
				}
				if len(miss) == 0 {
					continue
				}
				var ends []string
				for _, meth := range []string{methodSGD, methodSRG} {
					cs := d.Result.Constant
					if sched == "decreasing" {
						cs = d.Result.Decreasing
					}
					c := curveOf(cs, meth)
					if c == nil {
						continue
					}
					ys, _, _ := ms.curve(*c)
					if len(ys) == 0 {
						continue
					}
					ends = append(ends, fmt.Sprintf("%s ended at 10^%s, %s", meth, fmtF(ys[len(ys)-1], 1), trend(c.Evals, ys, sched, next)))
				}
				if len(ends) == 0 {
					continue
				}
				out = append(out, fmt.Sprintf("%s, %s, relative %s: neither reached %s in %d epochs (%s).", d.Name, scheduleLabel(sched),
					measureWord(ms.name), strings.Join(miss, ", "), d.Epochs,
					strings.Join(ends, "; ")))
			}
		}
	}
	return out
}

// trend says how a log10 curve ended over the last quarter of the run: a
// constant step's curve that fell by less than 0.1 has levelled off at its
// noise floor, which more epochs do not lower; a curve still falling is
// extrapolated on its last quarter, straight in log10 against log10
// epochs (decreasing steps shrink like 1/k, and the error with them), to
// the epochs next would reach 10^next.
func trend(evals, ys []float64, schedule string, next float64) string {
	k := len(ys) - 1 - max(len(ys)/4, 1)
	if k < 0 || evals[k] <= 0 {
		return "too short a run to tell its trend"
	}
	end, last := ys[len(ys)-1], evals[len(evals)-1]
	drop := ys[k] - end
	span := fmt.Sprintf("%s decades over its last %s epochs", fmtF(drop, 2), fmtEpochs(last-evals[k]))
	if drop < 0.1 && schedule == "constant" {
		return "levelled off (" + span + "): the constant step's noise floor, which more epochs do not lower"
	}
	if drop <= 0 {
		return "no longer falling (" + span + ")"
	}
	slope := drop / math.Log10(last/evals[k])
	need := last * math.Pow(10, (end-next)/slope)
	return fmt.Sprintf("still falling (%s): at that pace 1e%d would take about %s epochs", span, int(next), fmtEpochs(need))
}

// measureWord names a measure in prose, after "relative".
func measureWord(name string) string {
	if name == measureSubopt {
		return "suboptimality"
	}
	return "distance"
}

// fmtEpochs formats a number of epochs: whole from 10 on, else to two
// digits.
func fmtEpochs(e float64) string {
	if e >= 10 {
		return fmtF(e, 0)
	}
	return fmtG(e, 2)
}
