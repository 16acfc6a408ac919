package main

import (
	"encoding/json"
	"math"
	"strconv"
	"time"

	"github.com/reweighted/reweighted/proofs"
)

// Report is everything index.md and summary.json show. The stages fill it
// from measurement; the writers only format it, so they can be tested on
// small fixed values.
type Report struct {
	Seed                 uint64
	Quick                bool
	Sampler              string // the backend the experiments use
	Go, OS, Arch         string
	CPUs                 int
	Started              time.Time
	Elapsed              time.Duration
	Claims               []Claim
	Conformance          []Conformance
	ConfMaxN, ConfBigN   int // the largest states checked
	Differential         Differential
	Scaling              Scaling
	Synthetic            *Synthetic // nil if the stage did not run
	Datasets             []Dataset
	Errata               []Erratum
	errataCounts         []proofs.ErratumCount // from the claims, for Errata
	Figures              map[string]Figure     // by figure key (see figure names)
	FigureErrs           []string
	ExperimentsSkipped   bool
	ExperimentsSkipNotes string
}

// Claim is one row of the verification table.
type Claim struct {
	Claim, Test, Statement string
	Instances              int
	// WorstRatio is the largest left side / right side observed: at most 1
	// when the claim held.
	WorstRatio float64
	Pass       bool
	Notes      string
}

// Erratum is one correction to the paper. For a step of a proof that the
// claims evaluate, Tried counts the instances, PrintedFails those where the
// step as printed fails and CorrectedFails those where the correction does
// (Tried is 0 for errata checked otherwise).
type Erratum struct {
	Where, Text, Correction, Check      string
	Tried, PrintedFails, CorrectedFails int
}

// Conformance is what the accuracy checks of the contract found for one
// backend.
type Conformance struct {
	Backend string
	// States is the number of random states, Checks the number of (state, ε)
	// pairs verified, Failures how many of them failed.
	States, Checks, Failures int
	FirstFailure             string
}

// Differential is what the comparison of the backends with each other
// found: the same ρ, λ within DiffRel, and the same item for every u that is
// not within samplertest.UDist of an interval edge.
type Differential struct {
	States, Solves, Samples int
	// AtEdge counts draws where the backends disagreed on a u within
	// samplertest.UDist of an exact interval edge, which the contract allows.
	AtEdge       int
	Failures     int
	FirstFailure string
}

// Point is one benchmark measurement.
type Point struct {
	Impl         string
	Op           string
	N            int
	NsPerOp      float64
	BytesPerItem float64
	AllocsPerOp  int64
}

// Fit is a least-squares line through one impl's points for one op.
type Fit struct {
	Impl, Op string
	// Model is "log2" (ns against log2 n: Slope is ns per doubling of n) or
	// "loglog" (log ns against log n: Slope 1 means linear in n).
	Model            string
	Slope, Intercept float64
	R2               float64
	From, To         int // the range of n fitted
}

// Ratio is a backend's time per step divided by gonum's Weighted at the
// same n: Eps0 compares the ε = 0 steps, which do the same work; Step
// compares the backend's ε = 1/(2n) step.
type Ratio struct {
	Impl       string
	N          int
	Eps0, Step float64
}

// Scaling is the cost-per-step stage.
type Scaling struct {
	Benchtime time.Duration // per measurement
	Reps      int           // measurements per point; the fastest is kept
	Points    []Point
	Fits      []Fit
	Ratios    []Ratio
	Err       string
}

// Curve is one method's averaged trajectory.
type Curve struct {
	Method   string
	Evals    []float64 // gradient evaluations / n
	Log10Err []float64
	Log10Var []float64 // nil when not measured
}

// Synthetic is the experiment of the paper's supplement.
type Synthetic struct {
	N, D, Runs, Epochs       int
	RatioR                   float64
	Log10ErrSGD, Log10ErrSRG float64
	Curves                   []Curve
	// SeedRatios holds r for the sets of other seeds, to show its spread.
	SeedRatios []float64
	Elapsed    time.Duration
	Err        string
}

// Dataset is the experiment of Section 5 on one data set.
type Dataset struct {
	Name, Path string
	// Embedded marks a set generated from the seed rather than read from a
	// file; it is not one of the paper's data sets.
	Embedded             bool
	N, D                 int
	Runs, Epochs, Batch  int
	RatioR               float64
	Constant, Decreasing []Curve
	FinalLog10           map[string]float64
	Elapsed              time.Duration
	Err                  string
}

// Figure is one SVG written beside index.md.
type Figure struct {
	File, Caption string
}

// Reference numbers quoted from the paper, shown next to the measured ones.
const (
	paperSyntheticR     = 50  // supplement: "r ≈ 50"
	paperSyntheticGain  = 2.0 // "approximately two orders of magnitude"
	paperDatasetRLo     = 5.0 // Section 5: "r is in the range [5, 10]"
	paperDatasetRHi     = 10.0
	paperDatasetGain    = 1.0 // "about an order of magnitude more accurate" (constant step)
	paperDatasetNote    = "SRG slightly faster than SGD; shuffled SGD best"
	paperSyntheticNRuns = 100
)

// num is a float64 that encodes NaN and ±Inf as JSON null, which
// encoding/json would otherwise refuse.
type num float64

// MarshalJSON implements json.Marshaler.
func (x num) MarshalJSON() ([]byte, error) {
	f := float64(x)
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return []byte("null"), nil
	}
	return strconv.AppendFloat(nil, f, 'g', -1, 64), nil
}

// Summary is the machine-readable digest of a Report (summary.json).
type Summary struct {
	Seed        uint64                    `json:"seed"`
	Quick       bool                      `json:"quick"`
	Sampler     string                    `json:"sampler"`
	Synthetic   *SyntheticSummary         `json:"synthetic"`
	Datasets    map[string]DatasetSummary `json:"datasets"`
	Claims      []ClaimSummary            `json:"claims"`
	Conformance ConformanceSummary        `json:"conformance"`
	Scaling     []PointSummary            `json:"scaling"`
	Fits        []FitSummary              `json:"fits"`
	Ratios      []RatioSummary            `json:"gonum_ratios"`
	Errata      []ErratumSummary          `json:"errata"`
	Errors      []string                  `json:"errors"`
}

// SyntheticSummary digests Synthetic.
type SyntheticSummary struct {
	N           int    `json:"n"`
	D           int    `json:"d"`
	Runs        int    `json:"runs"`
	Epochs      int    `json:"epochs"`
	RatioR      num    `json:"ratio_r"`
	Log10ErrSGD num    `json:"log10_err_sgd"`
	Log10ErrSRG num    `json:"log10_err_srg"`
	SeedRatios  []num  `json:"ratio_r_other_seeds"`
	Error       string `json:"error,omitempty"`
}

// DatasetSummary digests Dataset.
type DatasetSummary struct {
	Path       string         `json:"path,omitempty"`
	Embedded   bool           `json:"embedded"`
	N          int            `json:"n"`
	D          int            `json:"d"`
	Runs       int            `json:"runs"`
	Epochs     int            `json:"epochs"`
	RatioR     num            `json:"ratio_r"`
	FinalLog10 map[string]num `json:"final_log10"`
	Error      string         `json:"error,omitempty"`
}

// ClaimSummary digests Claim.
type ClaimSummary struct {
	Claim      string `json:"claim"`
	Test       string `json:"test"`
	Statement  string `json:"statement"`
	Instances  int    `json:"instances"`
	WorstRatio num    `json:"worst_ratio"`
	Pass       bool   `json:"pass"`
	Notes      string `json:"notes,omitempty"`
}

// ConformanceSummary digests the conformance stage.
type ConformanceSummary struct {
	Backends     []BackendSummary `json:"backends"`
	Differential DiffSummary      `json:"differential"`
}

// BackendSummary digests Conformance.
type BackendSummary struct {
	Backend  string `json:"backend"`
	States   int    `json:"states"`
	Checks   int    `json:"checks"`
	Failures int    `json:"failures"`
}

// DiffSummary digests Differential.
type DiffSummary struct {
	States   int `json:"states"`
	Solves   int `json:"solves"`
	Samples  int `json:"samples"`
	AtEdge   int `json:"at_edge"`
	Failures int `json:"failures"`
}

// PointSummary digests Point.
type PointSummary struct {
	Impl         string `json:"impl"`
	Op           string `json:"op"`
	N            int    `json:"n"`
	NsPerOp      num    `json:"ns_per_op"`
	BytesPerItem num    `json:"bytes_per_item"`
}

// FitSummary digests Fit.
type FitSummary struct {
	Impl  string `json:"impl"`
	Op    string `json:"op"`
	Model string `json:"model"`
	Slope num    `json:"slope"`
	R2    num    `json:"r2"`
	From  int    `json:"from_n"`
	To    int    `json:"to_n"`
}

// RatioSummary digests Ratio.
type RatioSummary struct {
	Impl string `json:"impl"`
	N    int    `json:"n"`
	Eps0 num    `json:"eps0_over_gonum"`
	Step num    `json:"step_over_gonum"`
}

// ErratumSummary digests Erratum.
type ErratumSummary struct {
	Where      string `json:"where"`
	Text       string `json:"text"`
	Correction string `json:"correction"`
	Check      string `json:"check"`
	// Tried is 0 for errata that no check counts.
	Tried          int `json:"tried"`
	PrintedFails   int `json:"printed_fails"`
	CorrectedFails int `json:"corrected_fails"`
}

// Summary digests the report.
func (r *Report) Summary() Summary {
	s := Summary{
		Seed: r.Seed, Quick: r.Quick, Sampler: r.Sampler,
		Datasets: map[string]DatasetSummary{},
		Claims:   []ClaimSummary{}, Scaling: []PointSummary{}, Fits: []FitSummary{},
		Ratios: []RatioSummary{}, Errata: []ErratumSummary{}, Errors: r.Errors(),
	}
	s.Conformance.Backends = []BackendSummary{}
	if y := r.Synthetic; y != nil {
		s.Synthetic = &SyntheticSummary{
			N: y.N, D: y.D, Runs: y.Runs, Epochs: y.Epochs,
			RatioR: num(y.RatioR), Log10ErrSGD: num(y.Log10ErrSGD), Log10ErrSRG: num(y.Log10ErrSRG), Error: y.Err,
			SeedRatios: []num{},
		}
		for _, v := range y.SeedRatios {
			s.Synthetic.SeedRatios = append(s.Synthetic.SeedRatios, num(v))
		}
	}
	for _, d := range r.Datasets {
		f := map[string]num{}
		for k, v := range d.FinalLog10 {
			f[k] = num(v)
		}
		s.Datasets[d.Name] = DatasetSummary{
			Path: d.Path, Embedded: d.Embedded, N: d.N, D: d.D, Runs: d.Runs, Epochs: d.Epochs,
			RatioR: num(d.RatioR), FinalLog10: f, Error: d.Err,
		}
	}
	for _, c := range r.Claims {
		s.Claims = append(s.Claims, ClaimSummary{c.Claim, c.Test, c.Statement, c.Instances, num(c.WorstRatio), c.Pass, c.Notes})
	}
	for _, c := range r.Conformance {
		s.Conformance.Backends = append(s.Conformance.Backends, BackendSummary{c.Backend, c.States, c.Checks, c.Failures})
	}
	d := r.Differential
	s.Conformance.Differential = DiffSummary{d.States, d.Solves, d.Samples, d.AtEdge, d.Failures}
	for _, p := range r.Scaling.Points {
		s.Scaling = append(s.Scaling, PointSummary{p.Impl, p.Op, p.N, num(p.NsPerOp), num(p.BytesPerItem)})
	}
	for _, f := range r.Scaling.Fits {
		s.Fits = append(s.Fits, FitSummary{f.Impl, f.Op, f.Model, num(f.Slope), num(f.R2), f.From, f.To})
	}
	for _, q := range r.Scaling.Ratios {
		s.Ratios = append(s.Ratios, RatioSummary{q.Impl, q.N, num(q.Eps0), num(q.Step)})
	}
	for _, e := range r.Errata {
		s.Errata = append(s.Errata, ErratumSummary(e))
	}
	return s
}

// Errors lists what went wrong in any stage: unreadable data sets, failed
// experiments, conformance failures. A report with errors exits non-zero.
func (r *Report) Errors() []string {
	errs := []string{}
	for _, c := range r.Claims {
		if !c.Pass {
			errs = append(errs, "claim failed: "+c.Claim)
		}
	}
	for _, c := range r.Conformance {
		if c.Failures > 0 {
			errs = append(errs, "conformance: "+c.Backend+": "+c.FirstFailure)
		}
	}
	if r.Differential.Failures > 0 {
		errs = append(errs, "differential: "+r.Differential.FirstFailure)
	}
	if r.Scaling.Err != "" {
		errs = append(errs, "scaling: "+r.Scaling.Err)
	}
	if r.Synthetic != nil && r.Synthetic.Err != "" {
		errs = append(errs, "synthetic: "+r.Synthetic.Err)
	}
	for _, d := range r.Datasets {
		if d.Err != "" {
			errs = append(errs, "data set "+d.Name+": "+d.Err)
		}
	}
	errs = append(errs, r.FigureErrs...)
	return errs
}

// writeJSON encodes the summary, indented.
func (r *Report) summaryJSON() ([]byte, error) {
	b, err := json.MarshalIndent(r.Summary(), "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}
