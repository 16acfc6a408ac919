package main

import (
	"fmt"
	"math"
	"strings"
)

// VerdictRow compares SRG with SGD at one accuracy that both reached, on one
// data set under one schedule. Ratio is SRG's seconds over SGD's: the
// epochs' ratio times the median over the timing's repetitions of the
// ratio of their epoch costs in the same repetition; RatioLo and RatioHi
// use the smallest and largest of those.
type VerdictRow struct {
	Dataset, Schedule string
	Log10             float64
	SGD, SRG          TimeTo
	Ratio             float64
	RatioLo, RatioHi  float64
}

// Sooner says whether SRG reached the accuracy sooner in seconds: "yes"
// when it did in every repetition of the timing, "no" when it did in none,
// "within noise" otherwise.
func (v VerdictRow) Sooner() string {
	switch {
	case v.RatioHi < 1:
		return "yes"
	case v.RatioLo > 1:
		return "no"
	}
	return "within noise"
}

// verdictRows lists, for every data set and schedule, the accuracies both
// SRG and SGD reached.
func verdictRows(r *Report) []VerdictRow {
	var rows []VerdictRow
	for _, d := range r.Datasets {
		if d.Result == nil {
			continue
		}
		for _, sched := range []string{"constant", "decreasing"} {
			q := pairedRatios(d, sched, methodSRG, methodSGD)
			for _, lv := range accuracyLevels {
				g, s := timeAt(d, sched, methodSGD, lv), timeAt(d, sched, methodSRG, lv)
				if math.IsNaN(g.Epochs) || math.IsNaN(s.Epochs) || len(q) == 0 {
					continue
				}
				e := s.Epochs / g.Epochs
				rows = append(rows, VerdictRow{Dataset: d.Name, Schedule: sched, Log10: lv, SGD: g, SRG: s,
					Ratio: e * median(q), RatioLo: e * q[0], RatioHi: e * q[len(q)-1]})
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

// verdict opens the report: does SRG beat SGD, in epochs and in seconds.
func (m *mdWriter) verdict(r *Report) {
	if len(r.Datasets) == 0 {
		return
	}
	m.printf("\n## SRG against SGD: time to accuracy\n\n")
	rows := verdictRows(r)
	if len(rows) == 0 {
		m.printf("No accuracy of 1e-1 to 1e-4 was reached by both SRG and SGD in this run (section 4 has the curves).\n")
		return
	}
	m.printf("The epochs and the seconds SRG and SGD take to reach a relative error ‖x − x*‖²/‖x₀ − x*‖² of 1e-1 … 1e-4 ")
	m.printf("on the data sets of section 4 (logistic regression, mini-batches of %d), where both reach it. ", batchSize)
	m.printf("Epochs are read from the mean curve over the runs, with in brackets the best and the worst run. ")
	m.printf("Seconds are those epochs times the median cost of an epoch of the method, timed apart from everything else ")
	m.printf("(section 4, *How the seconds were measured*), with in brackets the cheapest and the dearest of %d repetitions; ", timingRepsOf(r))
	m.printf("the ratio's range pairs SRG and SGD repetitions run side by side. *SRG sooner*: yes when SRG's time is lower ")
	m.printf("in every repetition, no when in none.\n")
	m.table("Data set", "Steps", "Accuracy", "SGD epochs", "SRG epochs", "SGD seconds", "SRG seconds", "SRG / SGD seconds", "SRG sooner")
	for _, v := range rows {
		m.row(v.Dataset, scheduleLabel(v.Schedule), fmt.Sprintf("1e%d", int(v.Log10)),
			fmtSpread(v.SGD.Epochs, v.SGD.EpochsLo, v.SGD.EpochsHi, 3), fmtSpread(v.SRG.Epochs, v.SRG.EpochsLo, v.SRG.EpochsHi, 3),
			fmtSpread(v.SGD.Seconds, v.SGD.SecondsLo, v.SGD.SecondsHi, 2), fmtSpread(v.SRG.Seconds, v.SRG.SecondsLo, v.SRG.SecondsHi, 2),
			fmtSpread(v.Ratio, v.RatioLo, v.RatioHi, 2), v.Sooner())
	}
	m.printf("\n%s\n", verdictSentence(r, rows))
	if notes := busyNotes(r.Machine, r.Datasets); len(notes) > 0 {
		m.printf("\n**The machine was busy:** %s. Medians and paired ratios resist that, but the seconds are less certain than on an idle machine.\n",
			strings.Join(notes, "; "))
	}
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

// verdictSentence says plainly where SRG is sooner in seconds and where not,
// set by set and schedule by schedule.
func verdictSentence(r *Report, rows []VerdictRow) string {
	type key struct{ d, s string }
	groups := map[string][]string{}
	var order []key
	seen := map[key]bool{}
	for _, v := range rows {
		k := key{v.Dataset, v.Schedule}
		if !seen[k] {
			seen[k] = true
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
	switch {
	case len(groups["yes"]) == 0:
		b.WriteString("**In seconds, SRG reached no accuracy sooner than SGD in this run**: ")
		b.WriteString("later on " + orNone(groups["no"]))
		if w := groups["within noise"]; len(w) > 0 {
			b.WriteString("; within the timing's noise on " + strings.Join(w, "; "))
		}
		b.WriteString(".")
	default:
		b.WriteString("**In seconds, SRG was sooner than SGD on " + strings.Join(groups["yes"], "; ") + "**")
		if w := groups["no"]; len(w) > 0 {
			b.WriteString(", and later on " + strings.Join(w, "; "))
		}
		if w := groups["within noise"]; len(w) > 0 {
			b.WriteString("; within the timing's noise on " + strings.Join(w, "; "))
		}
		b.WriteString(".")
	}
	var only []string
	for _, d := range r.Datasets {
		for _, sched := range []string{"constant", "decreasing"} {
			for _, lv := range accuracyLevels {
				if s, g := timeAt(d, sched, methodSRG, lv), timeAt(d, sched, methodSGD, lv); !math.IsNaN(s.Epochs) && math.IsNaN(g.Epochs) {
					only = append(only, fmt.Sprintf("1e%d on %s at the %s (%s s)", int(lv), d.Name, scheduleLabel(sched), fmtG(s.Seconds, 2)))
				}
			}
		}
	}
	if len(only) > 0 {
		b.WriteString(" SRG alone reached " + strings.Join(only, ", ") + ": SGD did not in the run, whatever the time.")
	}
	return b.String()
}

// orNone joins parts, or says "none".
func orNone(parts []string) string {
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, "; ")
}
