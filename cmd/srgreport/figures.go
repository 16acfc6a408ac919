package main

import (
	"fmt"
	"image/color"
	"math"
	"os"
	"path/filepath"

	"github.com/reweighted/reweighted/bench"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
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
	bench.GonumWeighted: color.RGBA{44, 160, 44, 255},
	bench.FloorImpl:     color.Gray{Y: 128},
}

// plotSeries is one line of a figure.
type plotSeries struct {
	label  string
	xs, ys []float64
	colour color.Color
	dashed bool
}

// figureSpec is one figure: axes, series, and where it goes.
type figureSpec struct {
	key, file, caption    string
	title, xlabel, ylabel string
	logX, logY            bool
	legendLeft            bool // the lines rise to the right: keep the legend off them
	series                []plotSeries
}

// figureSpecs lists the figures a report has data for.
func figureSpecs(r *Report) []figureSpec {
	var specs []figureSpec
	if len(r.Scaling.Points) > 0 {
		s := figureSpec{
			key: figScaling, file: "scaling.svg",
			caption: "Cost of one SRG step (Sample then Set) against n, log-log; solid: ε = 1/(2n), dashed: ε = 0 " +
				"(gonum's Weighted: Take then Reweight); grey: two descents of a bare tree (bench.Floor; a reference, not a sampler).",
			title: "Cost per SRG step", xlabel: "n", ylabel: "ns per step", logX: true, logY: true, legendLeft: true,
		}
		for _, c := range scalingColumns(r.Scaling.Points) {
			pts := series(r.Scaling.Points, c[0], c[1])
			var xs, ys []float64
			for _, n := range bench.Sizes(0, 30) {
				if p, ok := pts[n]; ok {
					xs, ys = append(xs, float64(n)), append(ys, p.NsPerOp)
				}
			}
			s.series = append(s.series, plotSeries{
				label: c[0] + " " + opLabel(c[1]), xs: xs, ys: ys, colour: colours[c[0]],
				dashed: c[1] == string(bench.StepEps0) && c[0] != bench.GonumWeighted,
			})
		}
		specs = append(specs, s)
	}
	if y := r.Synthetic; y != nil && y.Err == "" && len(y.Curves) > 0 {
		e := figureSpec{
			key: figSynthErr, file: "synthetic-error.svg",
			caption: fmt.Sprintf("Synthetic least squares (n = %d, d = %d): log10 relative error ‖x_k − x*‖²/‖x_0 − x*‖² "+
				"against epochs, mean of %d runs.", y.N, y.D, y.Runs),
			title: "Synthetic: relative error", xlabel: "epochs (gradient evaluations / n)", ylabel: "log10 relative error",
		}
		v := figureSpec{
			key: figSynthVar, file: "synthetic-variance.svg",
			caption: "Synthetic least squares: log10 variance of the gradient estimator, σ²(x_k, 1/n) for SGD and " +
				"σ²(x_k, p_k) for SRG, against epochs.",
			title: "Synthetic: estimator variance", xlabel: "epochs (gradient evaluations / n)", ylabel: "log10 variance",
		}
		for _, c := range y.Curves {
			e.series = append(e.series, plotSeries{label: c.Method, xs: c.Evals, ys: c.Log10Err, colour: colours[c.Method]})
			if c.Log10Var != nil {
				v.series = append(v.series, plotSeries{label: c.Method, xs: c.Evals, ys: c.Log10Var, colour: colours[c.Method]})
			}
		}
		specs = append(specs, e)
		if len(v.series) > 0 {
			specs = append(specs, v)
		}
	}
	for _, d := range r.Datasets {
		if d.Err != "" {
			continue
		}
		// The rows of Figure 1 compare SGD and SRG with SVRG (constant step)
		// and with shuffled SGD (decreasing steps); the tables list all four.
		for _, row := range []struct {
			key, name string
			curves    []Curve
			methods   []string
		}{
			{figDataConst, "constant", d.Constant, []string{methodSGD, methodSRG, methodSVRG}},
			{figDataDecr, "decreasing", d.Decreasing, []string{methodSGD, methodSRG, methodShuffled}},
		} {
			if len(row.curves) == 0 {
				continue
			}
			key := fmt.Sprintf(row.key, d.Name)
			s := figureSpec{
				key: key, file: safeName(key) + ".svg",
				caption: fmt.Sprintf("%s, %s step size (the paper's Figure 1, %s row): log10 relative error against epochs, mean of %d runs.",
					d.Name, row.name, map[string]string{"constant": "top", "decreasing": "bottom"}[row.name], d.Runs),
				title: fmt.Sprintf("%s: %s step", d.Name, row.name), xlabel: "epochs (gradient evaluations / n)",
				ylabel: "log10 relative error",
			}
			for _, c := range row.curves {
				if !contains(row.methods, c.Method) {
					continue
				}
				s.series = append(s.series, plotSeries{label: c.Method, xs: c.Evals, ys: c.Log10Err, colour: colours[c.Method]})
			}
			specs = append(specs, s)
		}
	}
	return specs
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
	for _, s := range figureSpecs(r) {
		p, err := s.plot()
		if err == nil {
			err = p.Save(16*vg.Centimeter, 10*vg.Centimeter, filepath.Join(dir, s.file))
		}
		if err == nil && pngDir != "" {
			if err = os.MkdirAll(pngDir, 0o755); err == nil {
				png := s.file[:len(s.file)-len(filepath.Ext(s.file))] + ".png"
				err = p.Save(16*vg.Centimeter, 10*vg.Centimeter, filepath.Join(pngDir, png))
			}
		}
		if err != nil {
			r.FigureErrs = append(r.FigureErrs, fmt.Sprintf("figure %s: %v", s.file, err))
			continue
		}
		r.Figures[s.key] = Figure{File: s.file, Caption: s.caption}
	}
}

// plot builds the figure. Points that are not finite, or not positive on a
// log axis, are left out: a run whose error reached 0 has log10 = −∞.
func (s figureSpec) plot() (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = s.title
	p.X.Label.Text = s.xlabel
	p.Y.Label.Text = s.ylabel
	if s.logX {
		p.X.Scale, p.X.Tick.Marker = plot.LogScale{}, plot.LogTicks{Prec: -1}
	}
	if s.logY {
		p.Y.Scale, p.Y.Tick.Marker = plot.LogScale{}, plot.LogTicks{Prec: -1}
	}
	p.Add(plotter.NewGrid())
	p.Legend.Top, p.Legend.Left = true, s.legendLeft
	drawn := 0
	for _, sr := range s.series {
		var xys plotter.XYs
		for i := range min(len(sr.xs), len(sr.ys)) {
			x, y := sr.xs[i], sr.ys[i]
			if math.IsNaN(x) || math.IsInf(x, 0) || math.IsNaN(y) || math.IsInf(y, 0) ||
				(s.logX && x <= 0) || (s.logY && y <= 0) {
				continue
			}
			xys = append(xys, plotter.XY{X: x, Y: y})
		}
		if len(xys) == 0 {
			continue
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
		p.Add(l)
		if s.logX {
			// Mark the measured sizes: the line alone hides how few there are.
			sc, err := plotter.NewScatter(xys)
			if err != nil {
				return nil, err
			}
			sc.GlyphStyle = draw.GlyphStyle{Color: l.Color, Radius: vg.Points(1.8), Shape: draw.CircleGlyph{}}
			p.Add(sc)
		}
		p.Legend.Add(sr.label, l)
		drawn++
	}
	if drawn == 0 {
		return nil, fmt.Errorf("no finite points to draw")
	}
	return p, nil
}
