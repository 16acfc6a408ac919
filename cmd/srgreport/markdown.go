package main

import (
	"fmt"
	"io"
	"maps"
	"math"
	"math/bits"
	"slices"
	"strings"
	"time"

	"github.com/reweighted/reweighted/bench"
	"github.com/reweighted/reweighted/srg"
)

// Figure keys: the SVG files of the report, by role.
const (
	figScaling     = "scaling"
	figSingle      = "single-step"
	figAdversarial = "draw-adversarial"
	figSynthErr    = "synthetic-error"
	figSynthVar    = "synthetic-variance"
	figFig1        = "figure1"
	figFig1Time    = "figure1-seconds"
	figFig1Subopt  = "figure1-suboptimality"
	methodSGD      = "SGD"
	methodSRG      = "SRG"
	methodSVRG     = "SVRG"
	methodShuffled = "Reshuffled"
)

// writeMarkdown writes index.md.
func writeMarkdown(w io.Writer, r *Report) error {
	m := &mdWriter{w: w}
	m.printf("# Stochastic Reweighted Gradient: report\n")
	m.verdict(r)
	m.header(r)
	m.claims(r)
	m.conformance(r)
	m.scaling(r)
	m.experiments(r)
	m.errata(r)
	return m.err
}

// mdWriter remembers the first write error, so the sections need not check.
type mdWriter struct {
	w       io.Writer
	err     error
	figures int
}

func (m *mdWriter) printf(format string, args ...any) {
	if m.err == nil {
		_, m.err = fmt.Fprintf(m.w, format, args...)
	}
}

// row writes one table row; cells must not hold "|" or newlines.
func (m *mdWriter) row(cells ...string) {
	for i, c := range cells {
		cells[i] = cell(c)
	}
	m.printf("| %s |\n", strings.Join(cells, " | "))
}

// table writes a header row and its separator.
func (m *mdWriter) table(cols ...string) {
	m.printf("\n")
	m.row(cols...)
	m.printf("|%s\n", strings.Repeat("---|", len(cols)))
}

// figure embeds a figure, if it was drawn, with a numbered italic caption.
func (m *mdWriter) figure(r *Report, key string) {
	f, ok := r.Figures[key]
	if !ok {
		return
	}
	m.figures++
	m.printf("\n![%s](%s)\n\n*Figure %d: %s*\n", f.Caption, f.File, m.figures, f.Caption)
}

// cell makes s safe inside a table cell.
func cell(s string) string {
	return oneLine(strings.ReplaceAll(s, "|", "\\|"))
}

// fmtG formats x with prec significant digits; NaN (not measured) is a dash.
func fmtG(x float64, prec int) string {
	switch {
	case math.IsNaN(x):
		return "—"
	case math.IsInf(x, 1):
		return "∞"
	case math.IsInf(x, -1):
		return "−∞"
	}
	return fmt.Sprintf("%.*g", prec, x)
}

// fmtF formats x with prec decimals; NaN is a dash.
func fmtF(x float64, prec int) string {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return fmtG(x, prec)
	}
	return fmt.Sprintf("%.*f", prec, x)
}

func (m *mdWriter) header(r *Report) {
	mode := "full"
	if r.Quick {
		mode = "quick (-quick: fewer runs, epochs, sizes and states)"
	}
	m.printf("\n## The run\n\n")
	if errs := r.Errors(); len(errs) > 0 {
		m.printf("**%d problem(s):**\n\n", len(errs))
		for _, e := range errs {
			m.printf("- %s\n", oneLine(e))
		}
		m.printf("\n")
	} else {
		m.printf("**All checks passed** (the paper's claims, the backends' conformance, the experiments).\n\n")
	}
	m.printf("Every number below is measured by this run, except those in columns labelled *paper*, ")
	m.printf("which are quoted from the paper for comparison.\n\n")
	m.printf("- mode: %s; seed: %d; started %s, took %s\n", mode, r.Seed, r.Started.UTC().Format(time.RFC3339), fmtDuration(r.Elapsed))
	mc := r.Machine
	m.printf("- machine: %s; %d CPUs, GOMAXPROCS %d; %s %s/%s; 1-, 5- and 15-minute load average %s at the start, %s at the end\n",
		orUnknown(mc.CPU), mc.CPUs, mc.GOMAXPROCS, mc.Go, mc.OS, mc.Arch, fmtLoad(mc.LoadStart), fmtLoad(mc.LoadEnd))
	m.printf("- sampler used by SRG in the experiments: `%s`", r.Sampler)
	if r.Guarantee != "" {
		m.printf(" (%s)", r.Guarantee)
	}
	m.printf("\n")
	if len(r.Datasets) > 0 {
		proto := "without replacement (the paper's protocol)"
		if withReplacement(r) {
			proto = "with replacement (`-replace`; not the paper's protocol)"
		}
		m.printf("- data-set mini-batches: %s\n", proto)
	}
}

// orUnknown is s, or "unknown CPU" if s is empty.
func orUnknown(s string) string {
	if s == "" {
		return "unknown CPU"
	}
	return s
}

// fmtLoad formats load averages as "0.52 / 0.40 / 0.31"; "unknown" if not read.
func fmtLoad(l []float64) string {
	if len(l) == 0 {
		return "unknown"
	}
	var parts []string
	for _, x := range l {
		parts = append(parts, fmtF(x, 2))
	}
	return strings.Join(parts, " / ")
}

// oneLine folds s onto one line.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

func (m *mdWriter) claims(r *Report) {
	m.printf("\n## 1. The paper's claims, checked numerically\n\n")
	m.printf("Each claim is tried on random instances; *worst ratio* is the largest left side / right side ")
	m.printf("observed, at most 1 when the claim held, up to floating-point rounding: a check accepts a ratio up to ")
	m.printf("1 + 1e-9 (Lemmas 1, 3, 4 and 5), 1 + 1e-12 (Theorem 1, Proposition 3, Corollaries 1 and 2) or ")
	m.printf("exactly 1 (the rest), and the Monte Carlo means of the corollaries also within four standard errors of the bound. ")
	m.printf("Ratios are shown to 4 digits, so one within rounding of 1 is shown as 1.\n")
	if len(r.Claims) == 0 {
		m.printf("\nNot checked in this run.\n")
		return
	}
	m.table("Claim", "Statement", "Test", "Instances", "Worst ratio", "Result", "Notes")
	pass := 0
	for _, c := range r.Claims {
		res := "**fail**"
		if c.Pass {
			res = "pass"
			pass++
		}
		m.row(c.Claim, c.Statement, "`"+c.Test+"`", fmt.Sprint(c.Instances), fmtG(c.WorstRatio, 4), res, c.Notes)
	}
	m.printf("\n%d of %d claims held.\n", pass, len(r.Claims))
}

func (m *mdWriter) conformance(r *Report) {
	m.printf("\n## 2. Backend conformance\n\n")
	if len(r.Conformance) == 0 {
		m.printf("Not checked in this run.\n")
		return
	}
	m.printf("Each backend first runs the conformance kit: the map mode (`samplertest.Check`: every property of the contract, ")
	m.printf("its rapid state machine and the near-cutoff regressions) on the map-exact backends, which have Algorithm 4's map from u to an item, ")
	m.printf("and the law mode (`samplertest.CheckLaw`: everything that needs no map, and the law of the draws against the exact p* by χ² tests ")
	m.printf("and, for a sampler that draws by rejection, each item's per-attempt probability) on the law-exact ones, ")
	m.printf("whose law no map implies (`go test ./internal/backends` runs it on every backend). ")
	m.printf("Then it holds %d states: random ones of up to %d items ", r.Conformance[0].States, r.ConfMaxN)
	m.printf("(every tenth up to %d) drawn with `samplertest.Keys` (zeros, ties, subnormal and huge keys), ", r.ConfBigN)
	m.printf("alternating with %d near-cutoff ones from `samplertest.NearCutoff` (tail keys on the cutoff ε·λ(r) of Lemma 1 or 1–3 ulps off it, ", r.Conformance[0].NearCutoff)
	m.printf("at subnormal, unit and 2^700 scales), where a float predicate picks another ρ than exact arithmetic. ")
	m.printf("Each is checked by `samplertest.Verify` against the exact rational oracle (the exact ρ, λ within 1e-9, ")
	m.printf("total variation within 1e-9, and every draw's exact interval within 1e-9 of u) at the edge bounds ")
	m.printf("(0, 1/n, just below 1/n, 1/(2n), tiny and subnormal ε) and at random ε; a law-exact backend by `samplertest.VerifyLaw` ")
	m.printf("(the same, with its draws and per-attempt law in place of the map).\n")
	m.table("Backend", "Kind", "Kit, map mode", "Kit, law mode", "States", "near-cutoff", "(state, ε) checks", "Failures")
	verdict := func(s string) string {
		switch s {
		case "pass":
			return "pass"
		case "law-exact: no map":
			return "—"
		case "by the map mode":
			return "by the map"
		}
		return "**fail**"
	}
	for _, c := range r.Conformance {
		kind, _, _ := strings.Cut(c.Guarantee, ":")
		m.row("`"+c.Backend+"`", kind, verdict(c.Kit), verdict(c.LawKit), fmt.Sprint(c.States), fmt.Sprint(c.NearCutoff), fmt.Sprint(c.Checks), fmt.Sprint(c.Failures))
	}
	for _, c := range r.Conformance {
		if verdict(c.Kit) == "**fail**" {
			m.printf("\nConformance kit failures of `%s` (map mode): %s\n", c.Backend, oneLine(c.Kit))
		}
		if verdict(c.LawKit) == "**fail**" {
			m.printf("\nConformance kit failures of `%s` (law mode): %s\n", c.Backend, oneLine(c.LawKit))
		}
		if c.Failures > 0 {
			m.printf("\nFirst failure of `%s`: %s\n", c.Backend, oneLine(c.FirstFailure))
		}
	}
	d := r.Differential
	m.printf("\nExact map, item for item, on the same %d states (%d near the cutoff): ", d.States, d.NearCutoff)
	m.printf("%d draws over all backends, of which **%d return the item whose exact interval holds u**; ", d.Samples, d.ExactItems)
	m.printf("the others have u within 1e-9 of an exact interval's edge, as `Verify` checks (the probes sit there on purpose). ")
	m.printf("Every backend against `%s`: the same ρ at every bound, and the same item but for %d draws within 1e-9 of an edge; ", r.Conformance[0].Backend, d.AtEdge)
	m.printf("**%d failures**.\n", d.Failures)
	if d.Failures > 0 {
		m.printf("\nFirst failure: %s\n", oneLine(d.FirstFailure))
	}
}

// series returns ns per op of impl and op by n.
func series(points []Point, impl, op string) map[int]Point {
	out := map[int]Point{}
	for _, p := range points {
		if p.Impl == impl && p.Op == op {
			out[p.N] = p
		}
	}
	return out
}

// scalingColumns lists the (impl, op) series in bench.Impls order.
func scalingColumns(points []Point) [][2]string {
	var cols [][2]string
	for _, impl := range bench.Impls {
		for _, op := range scalingOps {
			if len(series(points, impl.Name, string(op))) > 0 {
				cols = append(cols, [2]string{impl.Name, string(op)})
			}
		}
	}
	if len(series(points, bench.FloorImpl, bench.TwoDescents)) > 0 {
		cols = append(cols, [2]string{bench.FloorImpl, bench.TwoDescents})
	}
	return cols
}

// opLabel names a workload in a table.
func opLabel(op string) string {
	switch op {
	case string(bench.Step):
		return "ε = 1/(2n)"
	case string(bench.StepEps0):
		return "ε = 0"
	case bench.TwoDescents:
		return "(two descents)"
	case singleOp(bench.Exp):
		return "Draw + Set, Exp(1) keys"
	case singleOp(bench.LogNormal):
		return "Draw + Set, lognormal keys"
	case singleOpEps0(bench.Exp):
		return "Draw + Set at ε = 0, Exp(1) keys"
	case singleOpEps0(bench.LogNormal):
		return "Draw + Set at ε = 0, lognormal keys"
	}
	return op
}

func (m *mdWriter) scaling(r *Report) {
	sc := r.Scaling
	m.printf("\n## 3. Cost per SRG step\n\n")
	if len(sc.Points) == 0 && sc.Err == "" {
		m.printf("Not measured in this run.\n")
		m.epochCost(r)
		return
	}
	m.printf("One SRG step is `Sample` (for the law-exact `levels`, `reweighted.Draw`) then `Set` of the drawn item to a fresh key (`bench.Prepare`), timed by ")
	m.printf("`testing.Benchmark`: each point is the fastest of %d measurements of %s (the machine may be shared, and ", sc.Reps, sc.Benchtime)
	m.printf("interference only adds time). gonum's `sampleuv.Weighted` has no lower bound ε ")
	m.printf("and runs the ε = 0 step (`Take` then `Reweight`). The last column is a reference, not a sampler: two ")
	m.printf("root-to-leaf descents of a bare balanced tree of n 32-byte nodes at random slots (`bench.Floor`), ")
	m.printf("which is what an `ost` step must do at least (draw an item, reinsert it) once updates have scattered its nodes; ")
	m.printf("with %s points it is noisy, like every column. ", sc.Benchtime)
	if med, most := spreadAboveFastest(sc.Points); !math.IsNaN(med) {
		m.printf("The median of a point's %d measurements was, over the points, a median %.0f%% above its fastest, at most %.0f%% ", sc.Reps, 100*med, 100*most)
		m.printf("(every measurement is in `summary.json`: `ns_per_op_median`, `ns_per_op_max`). ")
	}
	m.printf("Nanoseconds per step, the fastest measurement:\n")
	if sc.Err != "" {
		m.printf("\nThe stage stopped early: %s\n", oneLine(sc.Err))
	}
	cols := scalingColumns(sc.Points)
	head := []string{"n"}
	for _, c := range cols {
		head = append(head, c[0]+" "+opLabel(c[1]))
	}
	m.table(head...)
	// The sizes of this table's columns only: the adversarial draws are
	// measured at other sizes (1000 is not a power of two).
	var ns []int
	for _, p := range sc.Points {
		if slices.Contains(cols, [2]string{p.Impl, p.Op}) {
			ns = append(ns, p.N)
		}
	}
	slices.Sort(ns)
	ns = slices.Compact(ns)
	for _, n := range ns {
		cells := []string{fmt.Sprintf("2^%d", bitLen(n))}
		for _, c := range cols {
			if p, ok := series(sc.Points, c[0], c[1])[n]; ok {
				cells = append(cells, fmtF(p.NsPerOp, 0))
			} else {
				cells = append(cells, "—")
			}
		}
		m.row(cells...)
	}
	if nv := series(sc.Points, "naive", string(bench.Step)); len(nv) > 0 && len(nv) < len(ns) {
		top := slices.Max(slices.Collect(maps.Keys(nv)))
		m.printf("\nnaive is measured up to n = 2^%d only: filling it with n random keys costs O(n²).\n", bitLen(top))
	}
	m.figure(r, figScaling)

	m.printf("\nFitted slopes. For the trees, ns against log2 n (slope = ns per doubling of n; a good fit means ")
	m.printf("O(log n); R² well below 1 means the cost is not linear in log2 n over this range (cache misses grow once ")
	m.printf("the structure leaves the caches), or that the points are noisy); for naive, log ns against log n ")
	m.printf("(slope 1 means linear in n):\n")
	m.table("Impl", "Workload", "Model", "Slope", "R²", "n")
	for _, f := range sc.Fits {
		model, slope := "ns = a + b·log2 n", fmtF(f.Slope, 1)+" ns/doubling"
		if f.Model == "loglog" {
			model, slope = "log ns = a + b·log n", fmtF(f.Slope, 2)
		}
		m.row(f.Impl, opLabel(f.Op), model, slope, fmtF(f.R2, 3), fmt.Sprintf("2^%d … 2^%d", bitLen(f.From), bitLen(f.To)))
	}

	if len(sc.Ratios) > 0 {
		m.printf("\nTime per step relative to gonum's Weighted at the same n (below 1: faster than gonum). ")
		m.printf("*ε = 0* compares the same work; *ε = 1/(2n)* is the backend's SRG step against gonum's ε = 0 step; ")
		m.printf("*batch* is the backend's batch step per item against gonum's (see below):\n")
		var impls []string
		for _, q := range sc.Ratios {
			if !slices.Contains(impls, q.Impl) {
				impls = append(impls, q.Impl)
			}
		}
		head := []string{"n"}
		for _, impl := range impls {
			head = append(head, impl+" ε = 0", impl+" ε = 1/(2n)", impl+" batch")
		}
		m.table(head...)
		for _, n := range ns {
			cells := []string{fmt.Sprintf("2^%d", bitLen(n))}
			any := false
			for _, impl := range impls {
				q := Ratio{Eps0: math.NaN(), Step: math.NaN(), Batch: math.NaN()} // shown as dashes
				if k := slices.IndexFunc(sc.Ratios, func(o Ratio) bool { return o.Impl == impl && o.N == n }); k >= 0 {
					q, any = sc.Ratios[k], true
				}
				cells = append(cells, fmtF(q.Eps0, 2), fmtF(q.Step, 2), fmtF(q.Batch, 2))
			}
			if any {
				m.row(cells...)
			}
		}
	}

	m.batchCost(r, ns)
	m.singleCost(r)
	m.adversarialCost(r)
	m.epochCost(r)

	m.printf("\nHeap bytes per item taken by the structure (measured by `bench.Prepare` at the largest n):\n")
	m.table("Impl", "n", "Bytes per item")
	for _, impl := range bench.Impls {
		var last Point
		for _, p := range sc.Points {
			if p.Impl == impl.Name && p.Op != string(batchStep) && p.N >= last.N {
				last = p
			}
		}
		if last.N > 0 {
			m.row(impl.Name, fmt.Sprintf("2^%d", bitLen(last.N)), fmtF(last.BytesPerItem, 1))
		}
	}
}

// batchCost writes the batch step per item beside the single step, for
// every impl that has both.
func (m *mdWriter) batchCost(r *Report, ns []int) {
	points := r.Scaling.Points
	type pair struct{ impl, single string }
	var cols []pair
	for _, impl := range bench.Impls {
		// The batch step runs at ε = 1/(2n), as the single step does for
		// every backend, law-exact ones included; only gonum's Weighted,
		// which has no ε, runs the ε = 0 step.
		single := string(bench.Step)
		if impl.New == nil && impl.Law == nil {
			single = string(bench.StepEps0)
		}
		if len(series(points, impl.Name, string(batchStep))) > 0 && len(series(points, impl.Name, single)) > 0 {
			cols = append(cols, pair{impl.Name, single})
		}
	}
	if len(cols) == 0 {
		return
	}
	m.printf("\nThe same work in mini-batches, as SRG does it in the experiments of section 4: a batch step draws m = %d ", batchSize)
	m.printf("items without replacement at ε = 1/(2n) (`reweighted.DrawBatch`) and then sets their %d keys (`reweighted.SetBatch`); ", batchSize)
	m.printf("gonum's Weighted does %d `Take` then %d `Reweight` (ε = 0, no batch path). ", batchSize, batchSize)
	m.printf("Measured from n = 2m. Nanoseconds per item, beside the single step of the table above:\n")
	head := []string{"n"}
	for _, c := range cols {
		head = append(head, c.impl+" "+opLabel(c.single), c.impl+" batch, per item")
	}
	m.table(head...)
	for _, n := range ns {
		cells := []string{fmt.Sprintf("2^%d", bitLen(n))}
		any := false
		for _, c := range cols {
			single, b := "—", "—"
			if p, ok := series(points, c.impl, c.single)[n]; ok {
				single = fmtF(p.NsPerOp, 0)
			}
			if p, ok := series(points, c.impl, string(batchStep))[n]; ok {
				b, any = fmtF(p.NsPerOp, 0), true
			}
			cells = append(cells, single, b)
		}
		if any {
			m.row(cells...)
		}
	}
}

// fmtN writes n as a power of two when it is one.
func fmtN(n int) string {
	if n > 0 && n&(n-1) == 0 {
		return fmt.Sprintf("2^%d", bitLen(n))
	}
	return fmt.Sprint(n)
}

// singleCost writes the single step through reweighted.Draw and Set, on
// Exp(1) and lognormal keys, with its ratio to gonum's.
func (m *mdWriter) singleCost(r *Report) {
	points := r.Scaling.Points
	var impls []string
	for _, impl := range drawImpls {
		if len(series(points, impl, singleOp(bench.Exp)))+len(series(points, impl, singleOp(bench.LogNormal))) > 0 {
			impls = append(impls, impl)
		}
	}
	if len(impls) == 0 {
		return
	}
	m.printf("\nOne step of SRG on a batch of one as a user makes it: `reweighted.Step` at ε = 1/(2n), `Set` of the item drawn last to a fresh key ")
	m.printf("of the same law, then the next draw (`bench.SingleStep`); gonum's Weighted does `Take` then `Reweight` (ε = 0). Unlike the table above, the keys are Exp(1) ")
	m.printf("(few binades) or lognormal, exp of N(0, 3²) (some 35 binades), and a map-exact backend draws through `reweighted.Draw` too. ")
	m.printf("Nanoseconds per step, the fastest measurement, and the ratio to gonum's at the same n and keys:\n")
	head := []string{"n"}
	for _, l := range singleLaws {
		for _, impl := range impls {
			head = append(head, fmt.Sprintf("%s %s", impl, l))
			if impl != bench.GonumWeighted {
				head = append(head, fmt.Sprintf("%s / gonum, %s", impl, l))
			}
		}
	}
	m.table(head...)
	var ns []int
	for _, p := range points {
		if p.Op == singleOp(bench.Exp) || p.Op == singleOp(bench.LogNormal) {
			ns = append(ns, p.N)
		}
	}
	slices.Sort(ns)
	for _, n := range slices.Compact(ns) {
		cells := []string{fmtN(n)}
		for _, l := range singleLaws {
			g, okG := series(points, bench.GonumWeighted, singleOp(l))[n]
			for _, impl := range impls {
				p, ok := series(points, impl, singleOp(l))[n]
				v, ratio := math.NaN(), math.NaN()
				if ok {
					v = p.NsPerOp
					if okG {
						ratio = p.NsPerOp / g.NsPerOp
					}
				}
				cells = append(cells, fmtF(v, 0))
				if impl != bench.GonumWeighted {
					cells = append(cells, fmtF(ratio, 2))
				}
			}
		}
		m.row(cells...)
	}
	m.singleCostEps0(r)
	m.figure(r, figSingle)
}

// singleCostEps0 writes levels' single step at ε = 0 beside gonum's, whose
// law it then is.
func (m *mdWriter) singleCostEps0(r *Report) {
	points := r.Scaling.Points
	var ns []int
	for _, l := range singleLaws {
		for n := range series(points, "levels", singleOpEps0(l)) {
			ns = append(ns, n)
		}
	}
	if len(ns) == 0 {
		return
	}
	m.printf("\nThe same step at ε = 0, plain proportional sampling, gonum's own law (`bench.SingleStepEps0`), nanoseconds and ratio to gonum's:\n")
	head := []string{"n"}
	for _, l := range singleLaws {
		head = append(head, fmt.Sprintf("levels %s, ε = 0", l), fmt.Sprintf("levels / gonum, %s, ε = 0", l))
	}
	m.table(head...)
	slices.Sort(ns)
	for _, n := range slices.Compact(ns) {
		cells := []string{fmtN(n)}
		for _, l := range singleLaws {
			v, ratio := math.NaN(), math.NaN()
			if p, ok := series(points, "levels", singleOpEps0(l))[n]; ok {
				v = p.NsPerOp
				if g, okG := series(points, bench.GonumWeighted, singleOp(l))[n]; okG {
					ratio = p.NsPerOp / g.NsPerOp
				}
			}
			cells = append(cells, fmtF(v, 0), fmtF(ratio, 2))
		}
		m.row(cells...)
	}
}

// adversarialCost writes the draws on the adversarial keys beside the
// draws on Exp(1) keys at the same n.
func (m *mdWriter) adversarialCost(r *Report) {
	points := r.Scaling.Points
	type adv struct {
		op, label string
	}
	advs := []adv{{string(bench.DrawTies), "near-ties"}, {string(bench.DrawCutoff), "near the cutoff"}}
	var rows [][]string
	for _, impl := range drawImpls {
		row := []string{impl}
		any := false
		for _, a := range advs {
			pts := series(points, impl, a.op)
			if len(pts) == 0 {
				row = append(row, "—", "—", "—", "—")
			}
			for n, p := range pts {
				ref := math.NaN()
				if q, ok := series(points, impl, drawExpOp)[n]; ok {
					ref = q.NsPerOp
				}
				row = append(row, fmtN(n), fmtF(p.NsPerOp, 0), fmtF(ref, 0), fmtF(p.NsPerOp/ref, 2))
				any = true
			}
		}
		if any {
			rows = append(rows, row)
		}
	}
	if len(rows) == 0 {
		return
	}
	m.printf("\nA draw on the keys that are hardest to decide: `reweighted.Draw` at ε = 1/(2n), each after an update (the drawn item's key moved ")
	m.printf("by one ulp, so that the draw must find the cutoff again; gonum's Weighted: `Take`, then `Reweight` to the key moved so, at ε = 0) ")
	m.printf("on *near-ties*, one key and n − 1 keys within a relative 10⁻⁷ of each other just below the cutoff of Lemma 1 ")
	m.printf("(`bench.DrawTies`), and on keys of which half lie within a relative 10⁻⁹ of the cutoff (`bench.DrawCutoff`, the keys of `SolveCutoff`), ")
	m.printf("each beside the same draw and update on Exp(1) keys at the same n. Nanoseconds per draw and update, the fastest measurement:\n")
	m.table("Impl", "n", "near-ties", "Exp(1)", "ratio", "n", "near the cutoff", "Exp(1)", "ratio")
	for _, row := range rows {
		m.row(row...)
	}
	m.figure(r, figAdversarial)
}

// epochCost writes what an SRG epoch costs against an SGD epoch, per
// example, on each data set of the experiments.
func (m *mdWriter) epochCost(r *Report) {
	var rows [][]string
	for _, d := range r.Datasets {
		if c := d.EpochCost; c != nil {
			rows = append(rows, []string{d.Name, fmt.Sprint(d.Result.N), fmtG(c.SGD, 2), fmtG(c.SRG, 2), fmtSpread(c.Ratio, c.RatioMin, c.RatioMax, 3)})
		}
	}
	if len(rows) == 0 {
		return
	}
	m.printf("\nWhat this costs in an epoch: the wall-clock time per example of SGD and of SRG on the data sets of section 4 ")
	proto := "without"
	if withReplacement(r) {
		proto = "with"
	}
	m.printf("(constant step, mini-batches drawn %s replacement as there, SRG on `%s`; the median cost of an epoch, ", proto, r.Sampler)
	m.printf("timed apart as section 4 says, over n), and SRG's time over SGD's: the median, and the range, of the ratio in each of the %d repetitions. ", timingRepsOf(r.Datasets))
	m.printf("An SRG example does SGD's work and ")
	m.printf("adds its share of a batch step as above, its key (the gradient norm, from quantities the gradient computes) and its weight:\n")
	m.table("Data set", "n", "SGD µs per example", "SRG µs per example", "SRG / SGD (range)")
	for _, row := range rows {
		m.row(row...)
	}
}

// bitLen returns log2 n for a power of two n.
func bitLen(n int) int {
	return max(bits.Len(uint(n))-1, 0)
}

func (m *mdWriter) experiments(r *Report) {
	m.printf("\n## 4. Experiments, measured next to the paper\n")
	if r.ExperimentsSkipped {
		m.printf("\nNot run: %s\n", r.ExperimentsSkipNotes)
		return
	}
	m.synthetic(r)
	m.datasets(r)
}

func (m *mdWriter) synthetic(r *Report) {
	m.printf("\n### Synthetic least squares (supplement, Appendix D)\n\n")
	y := r.Synthetic
	if y == nil {
		m.printf("Not run.\n")
		return
	}
	if y.Err != "" {
		m.printf("**Failed:** %s\n", oneLine(y.Err))
		return
	}
	res := y.Result
	m.printf("n = %d, d = %d, Gaussian features and weights, Cauchy noise, generated from the seed; SGD and SRG with batch 1, ", res.N, res.D)
	m.printf("α = 1/(2L), ε = 1/(2n), x_0 = 0, averaged over %d runs of %d epochs (the paper: %d runs). ", y.Runs, y.Epochs, paperSyntheticNRuns)
	m.printf("The final error is the mean log10 relative error over the last quarter of the run.\n")
	m.table("Quantity", "paper", "measured")
	m.row("r = σ²/σ*² at x*", fmt.Sprintf("≈ %d", paperSyntheticR), fmtF(res.RatioR, 1))
	if rs := y.SeedRatios; len(rs) > 0 {
		q := slices.Sorted(slices.Values(rs))
		m.row(fmt.Sprintf("r on the sets of the next %d seeds: median [min, max]", len(q)), "—",
			fmt.Sprintf("%s [%s, %s]", fmtF(median(q), 1), fmtF(q[0], 1), fmtF(q[len(q)-1], 1)))
	}
	m.row("final log10 relative error, SGD", "—", fmtF(res.Log10ErrSGD, 2))
	m.row("final log10 relative error, SRG", "—", fmtF(res.Log10ErrSRG, 2))
	m.row("orders of magnitude gained by SRG (SGD − SRG)", fmt.Sprintf("≈ %.0f", paperSyntheticGain), fmtF(res.Log10ErrSGD-res.Log10ErrSRG, 2))
	// The paper gives r, not its logarithm: quote r next to the derived value.
	m.row("gain the variance ratio predicts, log10 r", fmt.Sprintf("%s (log10 %d)", fmtF(math.Log10(paperSyntheticR), 2), paperSyntheticR),
		fmtF(math.Log10(res.RatioR), 2))
	fl := y.Floor
	m.printf("\n**Why SGD ends above where it started.** With x_0 = 0 the starting error is ‖x*‖² = %s. ", fmtG(fl.XStarSq, 3))
	m.printf("SGD with a constant step α does not converge: it settles where the pull towards x* balances the noise of ")
	m.printf("its gradient estimate, at E‖x_k − x*‖² of order α·σ²/μ (Gower et al. 2019, Theorem 3.1, bound it by 2α·σ²/μ). ")
	m.printf("Here α = %s, σ² = %s (the mean squared gradient norm at x*, large because the Cauchy noise puts a few huge ", fmtG(fl.Alpha, 3), fmtG(fl.Sigma2, 3))
	m.printf("residuals in the data) and μ = λ_min(AᵀA/n) = %s, so α·σ²/μ = %s, which is 10^%s times ‖x*‖²: ",
		fmtG(fl.Mu, 3), fmtG(fl.Alpha*fl.Sigma2/fl.Mu, 3), fmtF(fl.Log10Rel, 2))
	m.printf("SGD's relative error rises from 1 (log10 0) towards that floor (the dashed line) and fluctuates below it. ")
	m.printf("SRG's estimate has variance σ*² = %s at x* instead of σ², r = %s times smaller, so its floor is lower by about log10 r = %s; ",
		fmtG(res.SigmaStar2, 3), fmtF(res.RatioR, 1), fmtF(math.Log10(res.RatioR), 2))
	m.printf("the measured gap is %s.\n", fmtF(res.Log10ErrSGD-res.Log10ErrSRG, 2))
	m.figure(r, figSynthErr)
	m.figure(r, figSynthVar)
}

// final returns the final log10 error of method under schedule, NaN if not
// measured.
func final(d Dataset, schedule, method string) float64 {
	if d.Result != nil {
		if v, ok := d.Result.FinalLog10[schedule+"/"+method]; ok {
			return v
		}
	}
	return math.NaN()
}

// withReplacement reports whether the data-set runs drew their mini-batches
// with replacement.
func withReplacement(r *Report) bool {
	return slices.ContainsFunc(r.Datasets, func(d Dataset) bool {
		return d.Result != nil && d.Result.Protocol == srg.WithReplacement
	})
}

// protocolText says how the data-set runs drew their mini-batches.
func protocolText(r *Report) string {
	if withReplacement(r) {
		return "with replacement (`-replace`; the paper draws without): SGD and SVRG uniformly, SRG from p_k, " +
			"each example weighted 1/(n p_k^i)"
	}
	return "without replacement, as the paper does: SGD and SVRG draw m distinct examples uniformly; SRG draws them by " +
		"ordered successive sampling from p_k (each from p_k restricted to the examples not yet drawn, " +
		"`reweighted.DrawBatch`) and weights them with Des Raj's estimator for ordered samples (`srg.DesRajWeights`), " +
		"which is unbiased. The paper cites El Hanchi and Stephens (2020) for its bias correction without stating it; " +
		"Des Raj's is the classical unbiased estimator for this design and is the one used here"
}

func (m *mdWriter) datasets(r *Report) {
	m.printf("\n### ℓ2-regularised logistic regression (Section 5, the paper's Figure 1)\n\n")
	if len(r.Datasets) == 0 {
		m.printf("No data set in this run.\n")
		return
	}
	m.printf("Rows normalised to unit norm, μ = 1/n, x_0 = 0, mini-batches of m = 128 drawn %s. ", protocolText(r))
	m.printf("Constant step α = 1/(2𝓛) with SRG's ε = 1/(2n), and the decreasing steps of Appendix C with ε_k = 𝓛α_k/n. ")
	m.printf("The table gives the final log10 relative error after the last epoch, averaged over runs. ")
	m.printf("For the paper's data sets it quotes the paper: r in [%.0f, %.0f] on its four sets, and SRG about %.0f order of magnitude ",
		paperDatasetRLo, paperDatasetRHi, paperDatasetGain)
	m.printf("more accurate than SGD at constant step (at decreasing steps: %s). ", paperDatasetNote)
	m.printf("At a constant step the gap between SGD and SRG opens only once SGD reaches its noise floor ")
	m.printf("(on mushrooms after about 100 epochs); a shorter run (`-quick`, `-epochs`) understates it.\n")
	m.table("Data set", "n", "d", "runs × epochs", "r paper", "r measured",
		"const SGD", "const SRG", "const SVRG", "gain SGD − SRG paper", "gain measured",
		"decr SGD", "decr SRG", "decr Reshuffled")
	for _, d := range r.Datasets {
		name := d.Name
		if !d.Paper {
			name += " (not in the paper)"
		}
		if d.Result == nil {
			m.row(name, "—", "—", "—", "—", "**failed**", "—", "—", "—", "—", "—", "—", "—", "—")
			continue
		}
		rPaper, gainPaper := "—", "—"
		if d.Paper {
			rPaper = fmt.Sprintf("%.0f–%.0f", paperDatasetRLo, paperDatasetRHi)
			gainPaper = fmt.Sprintf("≈ %.0f", paperDatasetGain)
		}
		m.row(name, fmt.Sprint(d.Result.N), fmt.Sprint(d.Result.D), fmt.Sprintf("%d × %d", d.Runs, d.Epochs), rPaper, fmtF(d.Result.RatioR, 2),
			fmtF(final(d, "constant", methodSGD), 2), fmtF(final(d, "constant", methodSRG), 2), fmtF(final(d, "constant", methodSVRG), 2),
			gainPaper, fmtF(final(d, "constant", methodSGD)-final(d, "constant", methodSRG), 2),
			fmtF(final(d, "decreasing", methodSGD), 2), fmtF(final(d, "decreasing", methodSRG), 2), fmtF(final(d, "decreasing", methodShuffled), 2))
	}
	m.printf("\n")
	for _, d := range r.Datasets {
		if res := d.Result; res != nil {
			m.printf("- %s: constant step α = 1/(2𝓛) = %.3g with 𝓛 = %.3g (Lmax = %.3g, L = %.3g), ε = 1/(2n); decreasing steps from α_0 = %.3g", d.Name,
				res.Alpha, res.BigL, res.Lmax, res.L, res.Alpha)
			if c := curveOf(res.Decreasing, methodSGD); c != nil && len(c.Alpha) > 0 {
				m.printf(" down to %.3g after %s epochs (SGD)", c.Alpha[len(c.Alpha)-1], fmtG(c.Evals[len(c.Evals)-1], 3))
			}
			m.printf(".\n")
		}
	}
	for _, d := range r.Datasets {
		switch {
		case d.Err != "":
			m.printf("- %s: **failed:** %s\n", d.Name, oneLine(d.Err))
		case d.Source == "embedded":
			m.printf("- %s: embedded in the command (UCI data, CC BY 4.0; see the README); took %s.\n", d.Name, fmtDuration(d.Elapsed))
		case d.Source == generatedName:
			m.printf("- %s: generated from the seed (labels: sign of the synthetic regression target); took %s.\n", d.Name, fmtDuration(d.Elapsed))
		case strings.HasPrefix(d.Source, generatedName+" "): // -like
			m.printf("- %s: %s; took %s.\n", d.Name, d.Source, fmtDuration(d.Elapsed))
		default:
			m.printf("- %s: read from `%s`; took %s.\n", d.Name, d.Source, fmtDuration(d.Elapsed))
		}
	}
	m.figure(r, figFig1)
	m.subopt(r)
	m.figure(r, figFig1Subopt)
	m.timeTo(r)
	m.stepCost(r)
	m.figure(r, figFig1Time)
	m.printf("\nEvery curve (epochs, seconds, mean log10 relative error and relative suboptimality, each with its smallest and largest value over the runs) ")
	m.printf("is in `summary.json` and in `curves.csv`, to re-plot.\n")
}

// subopt introduces the second measure: why it is there and how exact it
// is on each set.
func (m *mdWriter) subopt(r *Report) {
	var parts []string
	for _, d := range r.Datasets {
		if d.Result != nil && d.Result.FStar != 0 {
			parts = append(parts, fmt.Sprintf("%s F(x₀) = %s, F(x*) = %s, exact above %s", d.Name, fmtG(d.Result.F0, 6),
				fmtG(d.Result.FStar, 6), fmtG(d.Result.SuboptFloor, 1)))
		}
	}
	if len(parts) == 0 {
		return
	}
	m.printf("\n**The relative suboptimality.** The same runs, measured in (F(x_k) − F(x*))/(F(x_0) − F(x*)), the usual measure of ")
	m.printf("logistic regression: near x* it weighs the error in each direction by the curvature of F there, where the paper's ")
	m.printf("distance weighs all directions alike, so an error along a direction that few rows span (curvature little above μ = 1/n; ")
	m.printf("a wide set has many) costs little in F and much in the distance. ")
	m.printf("F(x*) is that of the x* above, which exceeds the exact minimum by at most ‖∇F(x*)‖²/(2μ): the measure is exact ")
	m.printf("down to a floor far below the levels read here: %s.\n", strings.Join(parts, "; "))
}

// curveOf returns the curve of method in cs, nil if none.
func curveOf(cs []srg.Curve, method string) *srg.Curve {
	for k := range cs {
		if cs[k].Method == method {
			return &cs[k]
		}
	}
	return nil
}

// stepCost says how much longer than SGD's an SRG epoch took, from the
// seconds at the end of the constant-step curves.
func (m *mdWriter) stepCost(r *Report) {
	var parts, only []string
	slower, faster := 0, 0
	for _, d := range r.Datasets {
		if d.Result == nil {
			continue
		}
		if c := d.EpochCost; c != nil {
			parts = append(parts, fmt.Sprintf("%s %s× (%s–%s× over the repetitions; %s µs against %s µs per example)", d.Name, fmtF(c.Ratio, 1),
				fmtF(c.RatioMin, 1), fmtF(c.RatioMax, 1), fmtG(c.SRG, 2), fmtG(c.SGD, 2)))
		}
		if _, s, g, ok := deepest(d, func(srgOK, sgdOK bool) bool { return srgOK && sgdOK }); ok {
			if s > g {
				slower++
			} else {
				faster++
			}
		}
		if lv, _, _, ok := deepest(d, func(srgOK, sgdOK bool) bool { return srgOK && !sgdOK }); ok {
			only = append(only, fmt.Sprintf("1e%d on %s", int(lv), d.Name))
		}
	}
	if len(parts) == 0 {
		return
	}
	m.printf("\nAn epoch of SRG took, in wall-clock time, this many times an epoch of SGD (constant step, median of the timing's repetitions): %s. ",
		strings.Join(parts, ", "))
	m.printf("SRG adds to each example a draw from the sampler and an update of its key (section 3 gives their cost against n, alone and in batches), ")
	m.printf("next to a gradient that, for a sparse row, costs little.%s ", rowCostNote(r))
	switch {
	case slower > 0 && faster == 0:
		m.printf("At the smallest relative error both reached, SRG took longer than SGD on every data set: ")
		m.printf("up to that accuracy its gain in epochs does not pay for its sampler in time.")
	case faster > 0 && slower == 0:
		m.printf("At the smallest relative error both reached, SRG was faster than SGD on every data set.")
	case faster > 0:
		m.printf("At the smallest relative error both reached, SRG was faster than SGD on %d data set(s) and slower on %d.", faster, slower)
	}
	if len(only) > 0 {
		m.printf(" Below SGD's noise floor the comparison is not one of time: at the constant step SRG reached %s, ", strings.Join(only, ", "))
		m.printf("which SGD did not reach in the run at all.")
	}
	m.printf("\n")
}

// deepest returns the smallest accuracy level for which keep, told whether
// SRG and SGD reached it at the constant step, holds, with the seconds they
// took (NaN: not reached).
func deepest(d Dataset, keep func(srgOK, sgdOK bool) bool) (level, srgS, sgdS float64, ok bool) {
	for _, lv := range accuracyLevels {
		s, g := timeAt(d, "constant", methodSRG, lv).Seconds, timeAt(d, "constant", methodSGD, lv).Seconds
		if keep(!math.IsNaN(s), !math.IsNaN(g)) {
			level, srgS, sgdS, ok = lv, s, g, true
		}
	}
	return level, srgS, sgdS, ok
}

// timeAt returns the epochs and seconds method took under schedule to reach
// level in the relative distance; NaN if not reached or not measured.
func timeAt(d Dataset, schedule, method string, level float64) TimeTo {
	return timeIn(d, measureDist, schedule, method, level)
}

// timeIn is timeAt in the named measure.
func timeIn(d Dataset, measure, schedule, method string, level float64) TimeTo {
	for _, t := range d.TimeTo {
		if t.Measure == measure && t.Schedule == schedule && t.Method == method && t.Log10 == level {
			return t
		}
	}
	return TimeTo{Epochs: math.NaN(), Seconds: math.NaN()}
}

// timeTo writes the time-to-accuracy table.
func (m *mdWriter) timeTo(r *Report) {
	if !slices.ContainsFunc(r.Datasets, func(d Dataset) bool { return len(d.TimeTo) > 0 }) {
		return
	}
	m.printf("\n**Wall-clock time, beyond the paper.** An SRG step costs more than an SGD step (a draw from the sampler and a ")
	m.printf("key update per example), so fewer epochs need not mean less time. The table gives, for each method, the epochs and ")
	m.printf("the seconds its mean curve takes to reach 1e-1, 1e-2, 1e-3 and 1e-4 in the relative distance and in the relative suboptimality (interpolated between ")
	m.printf("checkpoints; — if not reached in the run). The seconds are the epochs times the median cost of an epoch of that method ")
	m.printf("and schedule, measured as the next paragraph says, with the range over the repetitions in brackets.\n")
	head := []string{"Data set", "Measure", "Steps", "Method"}
	for _, lv := range accuracyLevels {
		head = append(head, fmt.Sprintf("1e%d: epochs", int(lv)), fmt.Sprintf("1e%d: seconds", int(lv)))
	}
	m.table(head...)
	for _, d := range r.Datasets {
		seen := map[string]bool{}
		// The paper's measure first, then the suboptimality.
		var byMeasure []TimeTo
		for _, ms := range measures {
			for _, t := range d.TimeTo {
				if t.Measure == ms.name {
					byMeasure = append(byMeasure, t)
				}
			}
		}
		for _, t := range byMeasure {
			k := t.Measure + "/" + t.Schedule + "/" + t.Method
			if seen[k] {
				continue
			}
			seen[k] = true
			cells := []string{d.Name, measureWord(t.Measure), t.Schedule, t.Method}
			for _, lv := range accuracyLevels {
				u := timeIn(d, t.Measure, t.Schedule, t.Method, lv) // dashes if not reached
				cells = append(cells, fmtF(u.Epochs, 1), fmtSpread(u.Seconds, u.SecondsLo, u.SecondsHi, 2))
			}
			m.row(cells...)
		}
	}
	m.timing(r)
}

// timing says how the seconds were measured and what the measurement saw.
func (m *mdWriter) timing(r *Report) {
	var ds []Dataset
	for _, d := range r.Datasets {
		if d.Timing != nil && len(d.Timing.Methods) > 0 {
			ds = append(ds, d)
		}
	}
	if len(ds) == 0 {
		return
	}
	t0 := ds[0].Timing
	m.printf("\n**How the seconds were measured.** The accuracy runs execute %d runs at once, on every core, so the seconds ", r.Machine.GOMAXPROCS)
	m.printf("they record mix each method's cost with the others' and with the machine's other jobs; the report does not use them. ")
	m.printf("After a set's accuracy runs, each method ran alone (one goroutine, nothing else of this command at work, a GC before each run) ")
	m.printf("for %d warm-up epoch(s) and then enough epochs to last about %d ms (%d to %d, *epochs timed*), with %d checkpoints an epoch; ",
		t0.Warmup, timingRun.Milliseconds(), timingMinEpochs, timingMaxEpochs, t0.PerEpoch)
	m.printf("%d repetitions, SRG right after SGD (or before, every other repetition) and the pairs of methods rotated, ", t0.Reps)
	m.printf("so that a slow spell of the machine hits both sides of a ratio alike. Within a run, a checkpoint interval more than %d times the run's median ", outlierFactor)
	m.printf("is taken for other work and dropped (SVRG's intervals are uneven by design, a full gradient now and then: its cost is the whole time). ")
	m.printf("Milliseconds per epoch, median (min–max over the repetitions):\n")
	head := []string{"Data set", "Steps", "Method", "epochs timed", "ms per epoch", "µs per example", "intervals dropped"}
	m.table(head...)
	for _, d := range ds {
		for _, e := range d.Timing.Methods {
			n := math.NaN()
			if d.Result != nil {
				n = float64(d.Result.N)
			}
			m.row(d.Name, e.Schedule, e.Method, fmt.Sprint(e.Epochs), fmtSpread(1e3*e.Median, 1e3*e.Min, 1e3*e.Max, 3), fmtG(1e6*e.Median/n, 2),
				fmt.Sprintf("%d of %d", e.Outliers, e.Intervals))
		}
	}
	m.printf("\n")
	for _, d := range ds {
		t := d.Timing
		share := "not measured"
		if !math.IsNaN(t.CPUShare) {
			share = fmt.Sprintf("%.0f%% of a core", 100*t.CPUShare)
		}
		g := d.Gaps
		gaps := "none"
		if g.Count > 0 {
			gaps = fmt.Sprintf("%d of %d, the largest %s ms (%s) against its curve's median of %s ms", g.Count, g.Of,
				fmtG(1e3*g.Largest, 3), g.Curve, fmtG(1e3*g.Median, 2))
		}
		m.printf("- %s: the timing took %s and got %s; checkpoint gaps of the accuracy runs more than %d times their curve's median: %s.\n",
			d.Name, fmtDuration(t.Elapsed), share, gapFactor, gaps)
	}
}

func (m *mdWriter) errata(r *Report) {
	m.printf("\n## 5. Errata to the paper\n")
	if len(r.Errata) == 0 {
		m.printf("\nNone listed.\n")
		return
	}
	m.printf("\nFor the steps of proofs that the claims evaluate, *Measured* counts the instances of this run on ")
	m.printf("which the step as printed fails, and those on which the correction fails.\n")
	m.table("Where", "The paper says", "Correction", "Checked by", "Measured")
	for _, e := range r.Errata {
		measured := "—"
		if e.Tried > 0 {
			measured = fmt.Sprintf("printed fails on %d of %d; corrected on %d", e.PrintedFails, e.Tried, e.CorrectedFails)
		}
		m.row(e.Where, e.Text, e.Correction, e.Check, measured)
	}
}

// median of sorted xs.
func median(xs []float64) float64 {
	k := len(xs) / 2
	if len(xs)%2 == 1 {
		return xs[k]
	}
	return (xs[k-1] + xs[k]) / 2
}
