package main

import (
	"bytes"
	"fmt"
	"image/color"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/reweighted/reweighted/bench"
	"github.com/reweighted/reweighted/srg"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Colours of the paper's Figure 1: SGD blue, SRG orange, SVRG green,
// shuffled SGD purple; the backends get their own.
var colours = map[string]color.Color{
	methodSGD:           color.RGBA{31, 119, 180, 255},
	methodSRG:           color.RGBA{255, 127, 14, 255},
	methodSVRG:          color.RGBA{44, 160, 44, 255},
	methodShuffled:      color.RGBA{148, 103, 189, 255},
	"naive":             color.RGBA{214, 39, 40, 255},
	"ost":               color.RGBA{31, 119, 180, 255},
	"segtree":           color.RGBA{255, 127, 14, 255},
	"btree":             color.RGBA{148, 103, 189, 255},
	bench.GonumWeighted: color.RGBA{44, 160, 44, 255},
	bench.FloorImpl:     color.Gray{Y: 128},
}

// plotSeries is one line of a figure.
type plotSeries struct {
	label  string
	xs, ys []float64
	colour color.Color
	dashed bool
	// marks: the points alone, drawn with this glyph, no line through
	// them (points of different workloads, which a line would join).
	marks draw.GlyphDrawer
}

// figureSpec is one figure: axes, series, and where it goes.
type figureSpec struct {
	key, file, caption    string
	title, xlabel, ylabel string
	logX, logY            bool
	series                []plotSeries
}

// figureSpecs lists the figures a report has data for.
func figureSpecs(r *Report) []figureSpec {
	var specs []figureSpec
	if len(r.Scaling.Points) > 0 {
		s := figureSpec{
			key: figScaling, file: "scaling.svg",
			caption: "Cost of one SRG step (Sample, or Draw for the law-exact levels, then Set) against n, log-log; solid: ε = 1/(2n), dashed: ε = 0 " +
				"(gonum's Weighted: Take then Reweight); grey: two descents of a bare tree (bench.Floor; a reference, not a sampler).",
			title: "Cost per SRG step", xlabel: "n", ylabel: "ns per step", logX: true, logY: true,
		}
		for _, c := range scalingColumns(r.Scaling.Points) {
			pts := series(r.Scaling.Points, c[0], c[1])
			var xs, ys []float64
			for _, n := range slices.Sorted(maps.Keys(pts)) {
				xs, ys = append(xs, float64(n)), append(ys, pts[n].NsPerOp)
			}
			s.series = append(s.series, plotSeries{
				label: c[0] + " " + opLabel(c[1]), xs: xs, ys: ys, colour: colours[c[0]],
				dashed: c[1] == string(bench.StepEps0) && c[0] != bench.GonumWeighted,
			})
		}
		specs = append(specs, s)
	}
	if s, ok := singleFigure(r); ok {
		specs = append(specs, s)
	}
	if s, ok := adversarialFigure(r); ok {
		specs = append(specs, s)
	}
	if y := r.Synthetic; y != nil && y.Result != nil && len(y.Result.Curves) > 0 {
		res := y.Result
		e := figureSpec{
			key: figSynthErr, file: "synthetic-error.svg",
			caption: fmt.Sprintf("Synthetic least squares (n = %d, d = %d): log10 relative error ‖x_k − x*‖²/‖x_0 − x*‖² "+
				"against epochs, mean of %d runs; grey dashes: SGD's noise floor α·σ²/μ relative to ‖x*‖² (see the text).", res.N, res.D, y.Runs),
			title: "Synthetic: relative error", xlabel: "epochs (gradient evaluations / n)", ylabel: "log10 relative error",
		}
		v := figureSpec{
			key: figSynthVar, file: "synthetic-variance.svg",
			caption: "Synthetic least squares: log10 variance of the gradient estimator, σ²(x_k, 1/n) for SGD and " +
				"σ²(x_k, p_k) for SRG, against epochs.",
			title: "Synthetic: estimator variance", xlabel: "epochs (gradient evaluations / n)", ylabel: "log10 variance",
		}
		for _, c := range res.Curves {
			e.series = append(e.series, plotSeries{label: c.Method, xs: c.Evals, ys: c.Log10Err, colour: colours[c.Method]})
			if c.Log10Var != nil {
				v.series = append(v.series, plotSeries{label: c.Method, xs: c.Evals, ys: c.Log10Var, colour: colours[c.Method]})
			}
		}
		if fl := y.Floor.Log10Rel; !math.IsNaN(fl) && !math.IsInf(fl, 0) {
			xs := res.Curves[0].Evals
			e.series = append(e.series, plotSeries{label: "SGD floor", xs: []float64{xs[0], xs[len(xs)-1]},
				ys: []float64{fl, fl}, colour: color.Gray{Y: 128}, dashed: true})
		}
		specs = append(specs, e)
		if len(v.series) > 0 {
			specs = append(specs, v)
		}
	}
	return specs
}

// seriesXY returns the ns per op of impl and op against n, by n.
func seriesXY(points []Point, impl, op string) (xs, ys []float64) {
	pts := series(points, impl, op)
	for _, n := range slices.Sorted(maps.Keys(pts)) {
		xs, ys = append(xs, float64(n)), append(ys, pts[n].NsPerOp)
	}
	return xs, ys
}

// singleFigure is the single step (reweighted.Draw then Set) against n,
// for drawImpls at ε = 1/(2n) and levels at ε = 0 too: solid on Exp(1)
// keys, dashed on lognormal keys.
func singleFigure(r *Report) (figureSpec, bool) {
	s := figureSpec{
		key: figSingle, file: "single-step.svg",
		caption: "One SRG step on a batch of one (reweighted.Draw at ε = 1/(2n), then Set of the drawn item; levels at ε = 0 too, " +
			"plain proportional sampling; gonum's Weighted: Take then Reweight, which is ε = 0) " +
			"against n, log-log; solid: Exp(1) keys, dashed: lognormal keys (exp of N(0, 3²)).",
		title: "Draw + Set", xlabel: "n", ylabel: "ns per step", logX: true, logY: true,
	}
	for _, impl := range drawImpls {
		for _, l := range singleLaws {
			xs, ys := seriesXY(r.Scaling.Points, impl, singleOp(l))
			if len(xs) == 0 {
				continue
			}
			label := drawLabel(impl) + " " + string(l)
			s.series = append(s.series, plotSeries{label: label, xs: xs, ys: ys, colour: drawColour(impl), dashed: l == bench.LogNormal})
			if xs, ys := seriesXY(r.Scaling.Points, impl, singleOpEps0(l)); len(xs) > 0 {
				s.series = append(s.series, plotSeries{label: drawLabel(impl) + " ε = 0 " + string(l), xs: xs, ys: ys, colour: eps0Colour, dashed: l == bench.LogNormal})
			}
		}
	}
	return s, len(s.series) > 0
}

// eps0Colour draws a sampler's step at ε = 0 beside its step at ε = 1/(2n).
var eps0Colour = color.RGBA{23, 190, 207, 255}

// adversarialFigure is the draw on adversarial keys beside the draw on
// Exp(1) keys, against n, for drawImpls: a line through the Exp(1) keys'
// points, a triangle for the near-ties (at the smaller n), a square for the
// keys near the cutoff (at the larger): two workloads, which no line joins.
func adversarialFigure(r *Report) (figureSpec, bool) {
	s := figureSpec{
		key: figAdversarial, file: "draw-adversarial.svg",
		caption: "A draw after a one-ulp update of the drawn key (reweighted.Draw at ε = 1/(2n), then Set; gonum's Weighted: Take, then Reweight) " +
			"against n, log-log; lines: Exp(1) keys; triangles: near-ties just below the cutoff; squares: half of the keys within 10⁻⁹ of the cutoff.",
		title: "Draw on adversarial keys", xlabel: "n", ylabel: "ns per draw and update", logX: true, logY: true,
	}
	for _, impl := range drawImpls {
		xs, ys := seriesXY(r.Scaling.Points, impl, drawExpOp)
		ax, ay := seriesXY(r.Scaling.Points, impl, string(bench.DrawTies))
		cx, cy := seriesXY(r.Scaling.Points, impl, string(bench.DrawCutoff))
		if len(xs) > 0 {
			s.series = append(s.series, plotSeries{label: drawLabel(impl) + " Exp(1)", xs: xs, ys: ys, colour: drawColour(impl)})
		}
		if len(ax) > 0 {
			s.series = append(s.series, plotSeries{label: drawLabel(impl) + " near-ties", xs: ax, ys: ay, colour: drawColour(impl), marks: draw.TriangleGlyph{}})
		}
		if len(cx) > 0 {
			s.series = append(s.series, plotSeries{label: drawLabel(impl) + " near the cutoff", xs: cx, ys: cy, colour: drawColour(impl), marks: draw.SquareGlyph{}})
		}
	}
	return s, len(s.series) > 0
}

// drawLabel is impl's name in a legend of the figures of the draws, short
// enough for the legend's tile.
func drawLabel(impl string) string {
	if impl == bench.GonumWeighted {
		return "gonum"
	}
	return impl
}

// drawColour is impl's colour in the figures of the draws: levels, which
// has none in colours, in black.
func drawColour(impl string) color.Color {
	if c, ok := colours[impl]; ok {
		return c
	}
	return color.Black
}

// figure1 builds the paper's Figure 1 from the data sets of r: a column per
// data set, the constant-step row (SGD, SRG, SVRG) over the decreasing-step
// row (SGD, SRG, Reshuffled), and a last column with the legends. With
// seconds, the x axis is the measured wall-clock time instead of epochs;
// the y axis is the measure ms (the paper's: measureDist).
func figure1(r *Report, seconds bool, ms accuracyMeasure) (grid [][]*plot.Plot, cols int) {
	var ds []Dataset
	for _, d := range r.Datasets {
		if d.Result != nil && len(d.Result.Constant) > 0 {
			if ys, _, _ := ms.curve(d.Result.Constant[0]); ys != nil {
				ds = append(ds, d)
			}
		}
	}
	if len(ds) == 0 {
		return nil, 0
	}
	rows := []struct {
		name, schedule string
		methods        []string
		get            func(*srg.DatasetResult) []srg.Curve
	}{
		{"constant step", "constant", []string{methodSGD, methodSRG, methodSVRG}, func(d *srg.DatasetResult) []srg.Curve { return d.Constant }},
		{"decreasing steps", "decreasing", []string{methodSGD, methodSRG, methodShuffled}, func(d *srg.DatasetResult) []srg.Curve { return d.Decreasing }},
	}
	xlabel := "epochs"
	if seconds {
		xlabel = "seconds"
	}
	for ri, row := range rows {
		var line []*plot.Plot
		legend := legendPlot(row.name)
		for di, d := range ds {
			title, ylabel := d.Name, "log10 relative "+measureWord(ms.name)
			if ri > 0 {
				title = ""
			}
			if di > 0 {
				ylabel = ""
			}
			p := newPlot(title, xlabel, ylabel, false, false)
			// The y range follows SGD and SRG (and Reshuffled): the figure is
			// about them, and SVRG's descent to 1e-15 would flatten them. SVRG
			// leaves the frame at the bottom; the table has its final value.
			lo, hi := math.Inf(1), math.Inf(-1)
			for _, c := range row.get(d.Result) {
				if !slices.Contains(row.methods, c.Method) {
					continue
				}
				xs := c.Evals
				ys, _, _ := ms.curve(c)
				if ys == nil {
					continue
				}
				if seconds {
					xs = secondsAxis(c.Evals, secondsPerEpoch(d, row.schedule, c.Method))
					if xs == nil {
						continue
					}
				}
				if c.Method == methodShuffled {
					// Only at epoch ends: within an epoch, reshuffled SGD's
					// error rises and falls with the pass (a sawtooth), and
					// the epoch end is where its analysis holds.
					xs, ys = epochEnds(c.Evals, xs, ys)
				}
				l, err := plotSeries{xs: xs, ys: ys, colour: colours[c.Method]}.line(false, false)
				if l == nil || err != nil {
					continue
				}
				if c.Method != methodSVRG {
					_, _, ylo, yhi := l.DataRange()
					lo, hi = math.Min(lo, ylo), math.Max(hi, yhi)
				}
				p.Add(l)
				if di == 0 {
					legend.Legend.Add(c.Method, l)
				}
			}
			if lo <= hi {
				pad := math.Max(0.1*(hi-lo), 0.1)
				p.Y.Min, p.Y.Max = lo-pad, hi+pad
			}
			p.X.Min = 0
			line = append(line, p)
		}
		grid = append(grid, append(line, legend))
	}
	return grid, len(ds) + 1
}

// secondsAxis is epochs times the cost of an epoch; nil if the cost was not
// measured.
func secondsAxis(epochs []float64, perEpoch float64) []float64 {
	if math.IsNaN(perEpoch) {
		return nil
	}
	xs := make([]float64, len(epochs))
	for k, e := range epochs {
		xs[k] = e * perEpoch
	}
	return xs
}

// epochEnds keeps the points of a curve whose epoch count is a whole number.
func epochEnds(epochs, xs, ys []float64) (ox, oy []float64) {
	for k, e := range epochs {
		if e == math.Trunc(e) {
			ox, oy = append(ox, xs[k]), append(oy, ys[k])
		}
	}
	return ox, oy
}

// newPlot is a plot with a grid and no padding, ticked at round numbers, or
// at the powers of ten of a log axis.
func newPlot(title, xlabel, ylabel string, logX, logY bool) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = xlabel
	p.Y.Label.Text = ylabel
	p.X.Tick.Marker, p.Y.Tick.Marker = niceTicks{}, niceTicks{}
	if logX {
		p.X.Scale, p.X.Tick.Marker = plot.LogScale{}, pow10Ticks{}
	}
	if logY {
		p.Y.Scale, p.Y.Tick.Marker = plot.LogScale{}, pow10Ticks{}
	}
	p.Add(plotter.NewGrid())
	p.X.Padding, p.Y.Padding = 0, 0
	return p
}

// line is a 1.5 pt line through the points of sr that are finite and, on a
// log axis, positive (a run whose error reached 0 has log10 = −∞); nil if no
// point is left.
func (sr plotSeries) line(logX, logY bool) (*plotter.Line, error) {
	var xys plotter.XYs
	for i := range min(len(sr.xs), len(sr.ys)) {
		x, y := sr.xs[i], sr.ys[i]
		if math.IsNaN(x) || math.IsInf(x, 0) || math.IsNaN(y) || math.IsInf(y, 0) ||
			(logX && x <= 0) || (logY && y <= 0) {
			continue
		}
		xys = append(xys, plotter.XY{X: x, Y: y})
	}
	if len(xys) == 0 {
		return nil, nil
	}
	l, err := plotter.NewLine(xys)
	if err != nil {
		return nil, err
	}
	l.Width = vg.Points(1.5)
	if sr.colour != nil {
		l.Color = sr.colour
	}
	if sr.dashed {
		l.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
	}
	return l, nil
}

// legendPlot is a tile with no axes that holds a row's legend, titled with
// the row's name, so that the legend never covers data.
func legendPlot(title string) *plot.Plot {
	p := plot.New()
	p.HideAxes()
	p.Title.Text = title
	p.Legend.Top, p.Legend.Left = true, true
	return p
}

// pow10Ticks labels the powers of ten of a log axis as 10ᵏ, with minor ticks
// at their multiples 2 to 9. An axis that holds fewer than two powers of
// ten (nanoseconds from 100 to 700, say) would show one label or none:
// there the multiples 1, 2 and 5 are labelled, as plain numbers.
type pow10Ticks struct{}

// Ticks implements plot.Ticker.
func (pow10Ticks) Ticks(lo, hi float64) []plot.Tick {
	powers := 0
	for k := math.Floor(math.Log10(lo)); k <= math.Ceil(math.Log10(hi)); k++ {
		if b := math.Pow(10, k); b >= lo && b <= hi {
			powers++
		}
	}
	var ticks []plot.Tick
	for k := math.Floor(math.Log10(lo)); k <= math.Ceil(math.Log10(hi)); k++ {
		base := math.Pow(10, k)
		for m := 1.0; m <= 9; m++ {
			v := m * base
			if v < lo || v > hi {
				continue
			}
			switch {
			case m == 1 && powers >= 2:
				ticks = append(ticks, plot.Tick{Value: v, Label: "10" + superscript(int(k))})
			case powers < 2 && (m == 1 || m == 2 || m == 5):
				ticks = append(ticks, plot.Tick{Value: v, Label: strconv.FormatFloat(v, 'g', 6, 64)})
			default:
				ticks = append(ticks, plot.Tick{Value: v})
			}
		}
	}
	return ticks
}

// superscript writes k with superscript digits.
func superscript(k int) string {
	return strings.Map(func(c rune) rune {
		if c == '-' {
			return '⁻'
		}
		return []rune("⁰¹²³⁴⁵⁶⁷⁸⁹")[c-'0']
	}, strconv.Itoa(k))
}

// niceTicks puts major ticks at round numbers: multiples of 1, 2 or 5 times
// a power of ten, at most seven of them, labelled without trailing digits.
type niceTicks struct{}

// Ticks implements plot.Ticker.
func (niceTicks) Ticks(lo, hi float64) []plot.Tick {
	if !(hi > lo) {
		return []plot.Tick{{Value: lo, Label: fmt.Sprintf("%g", lo)}}
	}
	raw := (hi - lo) / 6
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	step := mag
	for _, m := range []float64{1, 2, 5, 10} {
		if m*mag >= raw {
			step = m * mag
			break
		}
	}
	var ticks []plot.Tick
	for v := math.Ceil(lo/step) * step; v <= hi+step*1e-9; v += step {
		x := math.Round(v/step) * step
		if math.Abs(x) < step*1e-9 {
			x = 0
		}
		ticks = append(ticks, plot.Tick{Value: x, Label: strconv.FormatFloat(x, 'g', 6, 64)})
		// Minor ticks halfway.
		if m := x + step/2; m <= hi {
			ticks = append(ticks, plot.Tick{Value: m})
		}
	}
	return ticks
}

// safeName keeps letters, digits, '-' and '_' of s, so a data set's name
// makes a file name.
func safeName(s string) string {
	b := []byte(s)
	for i, c := range b {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_') {
			b[i] = '_'
		}
	}
	return string(b)
}

// drawFigures writes every figure of r as SVG into dir (and as PNG into
// pngDir, if set) and records them in r.Figures. A figure that cannot be
// drawn is recorded in r.FigureErrs.
func drawFigures(r *Report, dir, pngDir string) {
	if r.Figures == nil {
		r.Figures = map[string]Figure{}
	}
	type job struct {
		key, file, caption string
		grid               [][]*plot.Plot
		legend             *plot.Plot // a side tile, or nil
		w, h               vg.Length
	}
	var jobs []job
	for _, s := range figureSpecs(r) {
		p, legend, err := s.plot()
		if err != nil {
			r.FigureErrs = append(r.FigureErrs, fmt.Sprintf("figure %s: %v", s.file, err))
			continue
		}
		jobs = append(jobs, job{s.key, s.file, s.caption, [][]*plot.Plot{{p}}, legend, 20 * vg.Centimeter, 10 * vg.Centimeter})
	}
	for _, f := range []struct {
		key, file string
		seconds   bool
		ms        accuracyMeasure
	}{
		{figFig1, "figure1.svg", false, measureOf(measureDist)},
		{figFig1Time, "figure1-seconds.svg", true, measureOf(measureDist)},
		{figFig1Subopt, "figure1-suboptimality.svg", false, measureOf(measureSubopt)},
	} {
		grid, cols := figure1(r, f.seconds, f.ms)
		if grid == nil {
			continue
		}
		x := "epochs (gradient evaluations / n)"
		if f.seconds {
			x = "seconds (epochs × the median measured cost of an epoch)"
		}
		what := "relative error ‖x_k − x*‖²/‖x_0 − x*‖²"
		if f.ms.name == measureSubopt {
			what = "relative suboptimality (F(x_k) − F(x*))/(F(x_0) − F(x*))"
		}
		caption := fmt.Sprintf("The paper's Figure 1, measured: log10 %s against %s, "+
			"mean of the runs; top row constant step (SGD blue, SRG orange, SVRG green), bottom row decreasing steps "+
			"(SGD blue, SRG orange, reshuffled SGD purple), a column per data set. The y range follows SGD and SRG: "+
			"SVRG, where it falls faster, leaves the frame at the bottom (its final value is in the table). Reshuffled SGD is drawn at epoch ends only; "+
			"in between, it rises and falls with each pass over the data.", what, x)
		jobs = append(jobs, job{f.key, f.file, caption, grid, nil, vg.Length(cols) * 7 * vg.Centimeter, 13 * vg.Centimeter})
	}
	for _, j := range jobs {
		err := render(j.grid, j.legend, j.w, j.h, filepath.Join(dir, j.file), false)
		png := ""
		if err == nil && pngDir != "" {
			if err = os.MkdirAll(pngDir, 0o755); err == nil {
				png = filepath.Join(pngDir, j.file[:len(j.file)-len(filepath.Ext(j.file))]+".png")
				err = render(j.grid, j.legend, j.w, j.h, png, true)
			}
		}
		if err != nil {
			r.FigureErrs = append(r.FigureErrs, fmt.Sprintf("figure %s: %v", j.file, err))
			continue
		}
		r.Figures[j.key] = Figure{File: j.file, Caption: j.caption, PNG: png}
	}
}

// render draws a grid of plots, aligned, on a white w×h canvas, with legend
// (if not nil) on a 5 cm tile at the right, and writes it to path as SVG, or
// as PNG at 120 dpi.
func render(grid [][]*plot.Plot, legend *plot.Plot, w, h vg.Length, path string, png bool) error {
	var c vg.CanvasWriterTo
	if png {
		c = vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(120))}
	} else {
		c = vgsvg.New(w, h)
	}
	dc := draw.New(c)
	dc.SetColor(color.White)
	dc.Fill(dc.Rectangle.Path())
	tiles := draw.Tiles{Rows: len(grid), Cols: len(grid[0]), PadX: vg.Millimeter * 5, PadY: vg.Millimeter * 3,
		PadTop: vg.Millimeter * 2, PadBottom: vg.Millimeter * 2, PadLeft: vg.Millimeter * 2, PadRight: vg.Millimeter * 4}
	area := dc
	if legend != nil {
		lw := 5 * vg.Centimeter
		area = draw.Crop(dc, 0, -lw, 0, 0)
		legend.Draw(draw.Crop(dc, w-lw, -2*vg.Millimeter, 0, -2*vg.Millimeter))
	}
	canvases := plot.Align(grid, tiles, area)
	for i, row := range grid {
		for j, p := range row {
			p.Draw(canvases[i][j])
		}
	}
	var b bytes.Buffer
	if _, err := c.WriteTo(&b); err != nil {
		return err
	}
	return os.WriteFile(path, b.Bytes(), 0o644)
}

// plot builds the figure and, on a separate tile, its legend, so that the
// legend never covers a line.
func (s figureSpec) plot() (*plot.Plot, *plot.Plot, error) {
	p := newPlot(s.title, s.xlabel, s.ylabel, s.logX, s.logY)
	legend := legendPlot("")
	drawn := 0
	for _, sr := range s.series {
		l, err := sr.line(s.logX, s.logY)
		if err != nil {
			return nil, nil, err
		}
		if l == nil {
			continue
		}
		if sr.marks != nil {
			sc, err := plotter.NewScatter(l.XYs)
			if err != nil {
				return nil, nil, err
			}
			sc.GlyphStyle = draw.GlyphStyle{Color: l.Color, Radius: vg.Points(3.5), Shape: sr.marks}
			p.Add(sc)
			legend.Legend.Add(sr.label, sc)
			drawn++
			continue
		}
		p.Add(l)
		if s.logX {
			// Mark the measured sizes: the line alone hides how few there are.
			sc, err := plotter.NewScatter(l.XYs)
			if err != nil {
				return nil, nil, err
			}
			sc.GlyphStyle = draw.GlyphStyle{Color: l.Color, Radius: vg.Points(1.8), Shape: draw.CircleGlyph{}}
			p.Add(sc)
		}
		legend.Legend.Add(sr.label, l)
		drawn++
	}
	if drawn == 0 {
		return nil, nil, fmt.Errorf("no finite points to draw")
	}
	// A margin, so that no line runs along the frame.
	if s.logY {
		k := math.Pow(p.Y.Max/p.Y.Min, 0.04)
		p.Y.Min, p.Y.Max = p.Y.Min/k, p.Y.Max*k
	} else {
		d := 0.04 * (p.Y.Max - p.Y.Min)
		p.Y.Min, p.Y.Max = p.Y.Min-d, p.Y.Max+d
	}
	return p, legend, nil
}
