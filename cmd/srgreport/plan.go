package main

import (
	"fmt"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/reweighted/reweighted/internal/backends"
)

// stagePlan is a stage a run will go through, what it covers and its rough
// length.
type stagePlan struct {
	stage, what string
	expect      time.Duration
}

// Rough costs, from runs on a 2-core machine, for the plan printed at the
// start; they set the ETA of a stage before it has counted any unit.
// The data-set costs are CPU time per example of a run of the eight curves
// (SGD, SRG, reshuffled SGD and SVRG under two schedules, the relative
// distance and suboptimality recorded twice an epoch), halved as the
// formula below counts: a fixed part and a part per stored value of the
// row (measured: mushrooms, 22 values a row, 2.0 µs; phishing, 30, 1.9 µs;
// rcv1's shape, 74, 4.3 µs with its Newton-CG x*). The synthetic cost
// includes the variance recorded at each checkpoint.
const (
	usPerExampleAllMethods = 1.4  // µs for one example through the eight curves, fixed part
	usPerStoredValue       = 0.03 // µs for each stored value of its row
	usPerExampleSynthetic  = 2.8  // µs for one example through SGD and SRG, batch 1
	secondsPerState        = 0.22
	secondsKit             = 15
)

// plan lists the stages cfg selects with their rough lengths.
func plan(cfg config, sz sizes, datasets []Dataset) []stagePlan {
	workers := float64(runtime.GOMAXPROCS(0))
	sec := func(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }
	var out []stagePlan
	if cfg.claims {
		c := 5.0
		if !cfg.quick {
			c = 40
		}
		out = append(out, stagePlan{"claims", "the paper's lemmas, propositions, theorems and corollaries", sec(c)})
	}
	if cfg.conformance {
		nb := len(backends.Every())
		out = append(out, stagePlan{"conformance", fmt.Sprintf("%d backends: the kit on each, then %d states on all (%d steps)",
			nb, sz.states, conformanceUnits(nb, sz.states)),
			sec(secondsKit + secondsPerState*float64(sz.states))})
	}
	if cfg.scaling {
		s := 45.0
		if sz.scaleHi >= 20 {
			s = 180
		}
		if cfg.override != nil {
			s = 1
		}
		out = append(out, stagePlan{"scaling", fmt.Sprintf("n = 2^%d … 2^%d", sz.scaleLo, sz.scaleHi), sec(s)})
	}
	if cfg.experiments {
		out = append(out, stagePlan{"synthetic", fmt.Sprintf("%d runs × %d epochs", sz.synthRuns, sz.synthEpochs),
			sec(1 + float64(sz.synthRuns*sz.synthEpochs*1000)*2*usPerExampleSynthetic/1e6/workers)})
		reps := max(sz.timingReps, 1)
		out = append(out, stagePlan{"timing synthetic", fmt.Sprintf("%d repetitions of 2 methods", reps),
			sec(float64(reps*2) * 0.6 * timingRun.Seconds())})
		for _, d := range datasets {
			n := float64(d.data.Len())
			us := usPerExampleAllMethods + usPerStoredValue*float64(d.data.NNZ())/max(n, 1)
			acc := 1 + n*float64(d.Epochs*d.Runs)*2*us/1e6/workers
			out = append(out, stagePlan{"data set " + d.Name, fmt.Sprintf("n = %d, %d runs × %d epochs", d.data.Len(), d.Runs, d.Epochs), sec(acc)})
			reps := max(sz.timingReps, 1)
			out = append(out, stagePlan{"timing " + d.Name, fmt.Sprintf("%d repetitions of 8 methods", reps),
				sec(float64(reps*8) * 0.6 * timingRun.Seconds())})
		}
	}
	return out
}

// announce prints the plan: what will run, each stage's rough length and
// the total, and hands the lengths to pr for its ETAs.
func announce(pr *progress, cfg config, stages []stagePlan) {
	var total time.Duration
	pr.expects = map[string]time.Duration{}
	width := 0
	for _, s := range stages {
		total += s.expect
		pr.expects[s.stage] = s.expect
		width = max(width, len(s.stage))
	}
	mode := "full run"
	if cfg.quick {
		mode = "quick run (-quick)"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s, seed %d, report into %s: about %s in all on %d CPUs (rough: a busy machine can take twice as long)",
		mode, cfg.seed, filepath.Clean(cfg.out), roughDuration(total), runtime.NumCPU())
	for _, s := range stages {
		fmt.Fprintf(&b, "\n  %-*s  about %-6s  %s", width, s.stage, roughDuration(s.expect), s.what)
	}
	pr.Printf("%s", b.String())
}

// roughDuration rounds d for a plan: to 5 s under a minute, to 30 s above.
func roughDuration(d time.Duration) string {
	if d < time.Minute {
		return max(d.Round(5*time.Second), 5*time.Second).String()
	}
	return d.Round(30 * time.Second).String()
}

// writtenFiles lists every file the run wrote: the report's three files,
// its figures and their PNG copies.
func writtenFiles(r *Report, out string) []string {
	files := []string{filepath.Join(out, "index.md"), filepath.Join(out, "summary.json"), filepath.Join(out, "curves.csv")}
	var figs []string
	for _, f := range r.Figures {
		figs = append(figs, filepath.Join(out, f.File))
		if f.PNG != "" {
			figs = append(figs, f.PNG)
		}
	}
	slices.Sort(figs)
	return append(files, figs...)
}
