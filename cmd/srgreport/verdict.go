package main

import (
	"fmt"
	"maps"
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

// verdictSets returns the sets the verdict reads: the synthetic problem,
// if it ran, then the data sets.
func verdictSets(r *Report) []Dataset {
	var out []Dataset
	if v, ok := syntheticSet(r.Synthetic); ok {
		out = append(out, v)
	}
	return append(out, r.Datasets...)
}

// verdictRows lists, for every set, schedule and measure, the accuracies
// that SRG or SGD reached, with the timing of both.
func verdictRows(sets []Dataset, measure string) []VerdictRow {
	var rows []VerdictRow
	for _, d := range sets {
		if d.Result == nil {
			continue
		}
		for _, sched := range []string{"constant", "decreasing"} {
			q := pairedRatios(d, sched, methodSRG, methodSGD)
			if len(q) == 0 {
				continue
			}
			for _, lv := range d.accuracies() {
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
	sets := verdictSets(r)
	if len(sets) == 0 {
		return
	}
	m.printf("\n## SRG against SGD: time to accuracy\n\n")
	m.printf("How many epochs and seconds SRG and SGD take to reach each accuracy, on %s. ", setsText(sets))
	m.printf("Accuracy is measured two ways: the paper's relative distance %s, ", measureOf(measureDist).label)
	m.printf("and the relative suboptimality %s, the usual measure for logistic regression. ", measureOf(measureSubopt).label)
	m.printf("Section 4 says how exact each is.\n\n")
	m.printf("- *SGD epochs* and *SRG epochs* are read from the mean curve over the runs. ")
	m.printf("In brackets: the best and the worst run. A dash: not reached in the run.\n")
	m.printf("- *Gain* is SGD's epochs over SRG's. Above 1, SRG needs fewer epochs.\n")
	m.printf("- *Epoch cost* is the time of an SRG epoch over an SGD epoch's: the median, and the range over %d repetitions. ", timingRepsOf(sets))
	m.printf("They are timed apart from the runs (section 4, *How the seconds were measured*).\n")
	m.printf("- *Seconds* are the epochs times the median time of an epoch.\n")
	m.printf("- SRG is sooner in seconds when its gain exceeds its epoch cost. ")
	m.printf("*SRG sooner* says yes when that holds in every repetition, no when in none, and *within noise* otherwise.\n")
	m.printf("- Where only one method reached an accuracy, the gain is a bound (> or <). ")
	m.printf("*Not known* means the bound does not settle the question: a longer run would.\n")
	for _, ms := range measures {
		rows := verdictRows(sets, ms.name)
		m.printf("\n**Relative %s %s.**", measureWord(ms.name), ms.label)
		if len(rows) == 0 {
			m.printf(" Neither method reached any of the accuracies in this run.\n")
			continue
		}
		m.printf("\n")
		m.table("Set", "Steps", "Accuracy", "SGD epochs", "SRG epochs", "Gain (SGD / SRG epochs)", "Epoch cost (SRG / SGD)",
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
	for _, d := range sets {
		if s := decides(d); s != "" {
			m.printf("- %s\n", s)
		}
	}
	if missing := missingLevels(sets); len(missing) > 0 {
		m.printf("\n**Levels not reached**, and why:\n\n")
		for _, s := range missing {
			m.printf("- %s\n", s)
		}
	}
	if s := notRun(r.Datasets); s != "" {
		m.printf("\n%s\n", s)
	}
	if notes := busyNotes(r.Machine, sets); len(notes) > 0 {
		m.printf("\n**The machine was busy:** %s. Medians and paired ratios resist that, but the seconds are less certain than on an idle machine.\n",
			strings.Join(notes, "; "))
	}
}

// setsText names the sets of the verdict in prose.
func setsText(sets []Dataset) string {
	var parts []string
	for _, d := range sets {
		switch {
		case d.Name == syntheticName && d.Batch == 1:
			parts = append(parts, "the synthetic least-squares problem of the supplement (batch 1)")
		default:
			parts = append(parts, d.Name)
		}
	}
	var data []string
	if len(parts) > 0 && sets[0].Name == syntheticName {
		data, parts = parts[1:], parts[:1]
	} else {
		data, parts = parts, nil
	}
	if len(data) > 0 {
		parts = append(parts, "the logistic regressions of section 4 (mini-batches of "+fmt.Sprint(batchSize)+") on "+joinAnd(data))
	}
	return joinAnd(parts)
}

// joinAnd joins parts as "a", "a and b", "a, b and c".
func joinAnd(parts []string) string {
	if len(parts) < 2 {
		return strings.Join(parts, "")
	}
	return strings.Join(parts[:len(parts)-1], ", ") + " and " + parts[len(parts)-1]
}

// notRun says which of the paper's four data sets the run left out, and
// the command that runs them; empty if it ran all four.
func notRun(datasets []Dataset) string {
	var missing []string
	for _, name := range slices.Sorted(maps.Keys(paperSets)) {
		if !slices.ContainsFunc(datasets, func(d Dataset) bool { return d.Paper && d.Name == name }) {
			missing = append(missing, name)
		}
	}
	if len(missing) == 0 {
		return ""
	}
	var flags []string
	for _, name := range missing {
		flags = append(flags, fmt.Sprintf("-libsvm %s=PATH/%s", name, name))
	}
	return fmt.Sprintf("**Not run:** %s, of the paper's four data sets. "+
		"They are not embedded in the command; download them from the LIBSVM binary data sets page "+
		"(https://www.csie.ntu.edu.tw/~cjlin/libsvmtools/datasets/binary.html). "+
		"This runs them: `go run ./cmd/srgreport %s`. "+
		"`-libsvm` replaces the embedded sets: give every set you want by path.",
		joinAnd(missing), strings.Join(flags, " "))
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

// timingRepsOf returns the repetitions of the epoch timing of the sets.
func timingRepsOf(sets []Dataset) int {
	for _, d := range sets {
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
	// One sentence a verdict: what is known first, then what is not.
	var out []string
	switch yes := groups["yes"]; {
	case len(yes) > 0:
		out = append(out, "SRG was sooner on "+strings.Join(yes, "; ")+".")
	case len(groups["not known"]) > 0:
		out = append(out, "SRG was sooner nowhere that this run can tell.")
	default:
		out = append(out, "SRG was sooner nowhere.")
	}
	if w := groups["no"]; len(w) > 0 {
		out = append(out, "It was later on "+strings.Join(w, "; ")+".")
	}
	if w := groups["within noise"]; len(w) > 0 {
		out = append(out, "Within the timing's noise: "+strings.Join(w, "; ")+".")
	}
	if w := groups["not known"]; len(w) > 0 {
		out = append(out, "Not known, the run being too short to tell: "+strings.Join(w, "; ")+".")
	}
	return "**In seconds:** " + strings.Join(out, " ")
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

// decides says, for one set, whether SRG's gain in epochs or its epoch
// cost decides the verdict under each schedule it ran: with no gain (SRG
// saves at most a tenth of SGD's epochs), no sampler could make SRG
// sooner; with a gain above the cost, SRG is sooner until its epoch costs
// that gain; with a gain below the cost, a cheaper sampler would turn the
// verdict. Where one method alone reached the accuracies, it says which.
// Empty if nothing was measured.
func decides(d Dataset) string {
	if d.Result == nil {
		return ""
	}
	ms := verdictMeasure(d)
	rows := verdictRows([]Dataset{d}, ms)
	if len(rows) == 0 {
		return ""
	}
	var out []string
	for _, sched := range []string{"constant", "decreasing"} {
		cs := d.Result.Constant
		if sched == "decreasing" {
			cs = d.Result.Decreasing
		}
		if len(cs) == 0 && !slices.ContainsFunc(rows, func(v VerdictRow) bool { return v.Schedule == sched }) {
			continue // not run under this schedule
		}
		at := "At the " + scheduleLabel(sched)
		var gains []float64
		var levels, srgOnly, sgdOnly []string
		var bound, costHi float64
		first := 0.0 // the first level only SRG reached
		cost := math.NaN()
		for _, v := range rows {
			if v.Schedule != sched {
				continue
			}
			cost, costHi = v.Cost, v.CostHi
			lv := fmt.Sprintf("1e%d", int(v.Log10))
			switch v.GainBound {
			case "":
				gains, levels = append(gains, v.Gain), append(levels, lv)
			case ">":
				if len(srgOnly) == 0 {
					bound, first = v.Gain, v.Log10
				}
				srgOnly = append(srgOnly, lv)
			case "<":
				sgdOnly = append(sgdOnly, lv)
			}
		}
		costs := fmt.Sprintf("An SRG epoch costs %s SGD epochs.", fmtG(cost, 3))
		if len(gains) == 0 {
			switch {
			case len(srgOnly) > 0:
				s := fmt.Sprintf("%s, only SRG reached %s in %d epochs. Its gain there is above %s. %s",
					at, strings.Join(srgOnly, ", "), d.Epochs, fmtG(bound, 3), costs)
				if costHi < bound {
					s += " So SRG is sooner there, however long SGD would take."
				} else {
					s += " So this run cannot tell whether SRG is sooner there; a longer run would raise the bound."
				}
				if c := curveOf(cs, methodSGD); c != nil {
					if ys, _, _ := measureOf(ms).curve(*c); len(ys) > 0 && len(ys) == len(c.Evals) {
						tr := trend(c.Evals, ys, sched, first)
						s += fmt.Sprintf(" SGD ended at 10^%s, %s.", fmtF(ys[len(ys)-1], 1), tr)
						if costHi >= bound && strings.HasPrefix(tr, "levelled off") && ys[len(ys)-1] > first {
							s += fmt.Sprintf(" If it stays there, SGD never reaches 1e%d at this step, and SRG is sooner.", int(first))
						}
					}
				}
				out = append(out, s)
			case len(sgdOnly) > 0:
				out = append(out, fmt.Sprintf("%s, only SGD reached %s in %d epochs.", at, strings.Join(sgdOnly, ", "), d.Epochs))
			default:
				out = append(out, at+", no accuracy was reached by either method.")
			}
			continue
		}
		lo, hi := slices.Min(gains), slices.Max(gains)
		g := fmtG(lo, 3)
		if fmtG(hi, 3) != g {
			g += " to " + fmtG(hi, 3)
		}
		s := fmt.Sprintf("%s, the gain in epochs is %s (%s). %s", at, g, strings.Join(levels, ", "), costs)
		switch {
		case hi <= noGain && hi <= 1:
			s += " SRG needs as many epochs as SGD or more. So the epochs decide: an SRG epoch does an SGD epoch's work too, " +
				"and no sampler, however cheap, could make SRG sooner."
		case hi <= noGain:
			s += fmt.Sprintf(" SRG saves at most a tenth of SGD's epochs. So the epochs decide: an SRG epoch does an SGD epoch's work too, "+
				"and its sampler would have to cost under %s%% of an SGD epoch.", fmtG(100*(hi-1), 2))
		case lo > cost:
			s += fmt.Sprintf(" The gain is above the cost, so the gain decides. SRG stays sooner while its epoch costs less than %s SGD epochs.",
				fmtG(lo, 3))
		case hi < cost:
			s += fmt.Sprintf(" The gain is below the cost, so the cost decides. A sampler that brought SRG's epoch under %s SGD epochs "+
				"would make SRG sooner.", fmtG(hi, 3))
		default:
			s += " The gain lies on both sides of the cost, so the cost decides level by level."
		}
		if len(srgOnly) > 0 {
			s += fmt.Sprintf(" Only SRG reached %s, a gain above %s.", strings.Join(srgOnly, ", "), fmtG(bound, 3))
		}
		out = append(out, s)
	}
	return fmt.Sprintf("**%s** (relative %s). %s", d.Name, measureWord(ms), strings.Join(out, " "))
}

// missingLevels says, for every level of 1e-1 … 1e-4 that neither SRG nor
// SGD reached on a set under a schedule in a measure, where their curves
// ended and whether they had levelled off (a constant step's noise floor)
// or were still falling, and then how long the first level missed would
// take at their pace (see trend).
func missingLevels(sets []Dataset) []string {
	var out []string
	for _, d := range sets {
		if d.Result == nil {
			continue
		}
		for _, ms := range measures {
			for _, sched := range []string{"constant", "decreasing"} {
				var miss []string
				next := 0.0 // the first level missed
				for _, lv := range d.accuracies() {
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
