package main

import (
	"bytes"
	"encoding"
	"encoding/json"
	"math"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/reweighted/reweighted/libsvm"
	"github.com/reweighted/reweighted/proofs"
	"github.com/reweighted/reweighted/srg"
)

// Report is everything index.md and summary.json show. The stages fill it
// from measurement; the writers only format it, so they can be tested on
// small fixed values. summary.json is the Report itself, encoded by its
// struct tags (see encodeJSON), so every number in index.md is also there.
type Report struct {
	Seed    uint64 `json:"seed"`
	Quick   bool   `json:"quick"`
	Sampler string `json:"sampler"` // the backend the experiments use
	// Guarantee is what the sampler promises of its draws (backends.Backend).
	Guarantee string `json:"sampler_guarantee"`
	Go        string `json:"go"`
	OS        string `json:"os"`
	Arch      string `json:"arch"`
	CPUs      int    `json:"cpus"`
	// Machine is what the run measured on, load averages included.
	Machine Machine       `json:"machine"`
	Started time.Time     `json:"started"`
	Elapsed time.Duration `json:"elapsed_seconds"`
	// Claims are package proofs' results as they come.
	Claims       []proofs.Result `json:"claims"`
	Conformance  []Conformance   `json:"conformance"`
	ConfMaxN     int             `json:"conformance_max_n"` // the largest states checked
	ConfBigN     int             `json:"conformance_big_n"`
	Differential Differential    `json:"differential"`
	Scaling      Scaling         `json:"scaling"`
	Synthetic    *Synthetic      `json:"synthetic"` // nil if the stage did not run
	Datasets     []Dataset       `json:"datasets"`
	Errata       []Erratum       `json:"errata"`
	// Figures maps a figure key (see figure names) to its file.
	Figures              map[string]Figure `json:"figures"`
	FigureErrs           []string          `json:"-"`
	ExperimentsSkipped   bool              `json:"-"`
	ExperimentsSkipNotes string            `json:"-"`
	// Problems repeats Errors() for summary.json.
	Problems []string `json:"errors"`
}

// Erratum is one correction to the paper. For a step of a proof that the
// claims evaluate, Tried counts the instances, PrintedFails those where the
// step as printed fails and CorrectedFails those where the correction does
// (Tried is 0 for errata checked otherwise).
type Erratum struct {
	Where          string `json:"where"`
	Text           string `json:"text"`
	Correction     string `json:"correction"`
	Check          string `json:"check"`
	Tried          int    `json:"tried"`
	PrintedFails   int    `json:"printed_fails"`
	CorrectedFails int    `json:"corrected_fails"`
}

// Conformance is what the checks of the contract found for one backend.
type Conformance struct {
	Backend string `json:"backend"`
	// Guarantee is the backend's kind and what it promises of its draws.
	Guarantee string `json:"guarantee"`
	// Kit is "pass" when the conformance kit's map mode (samplertest.Check)
	// passed, "law-exact: no map" for a backend without Sample, else the
	// checks that failed.
	Kit string `json:"kit"`
	// LawKit is "pass" when the kit's law mode (samplertest.CheckLaw)
	// passed, "by the map mode" for a map-exact backend (whose map implies
	// the law; the law mode is not run on it here), else the checks that
	// failed.
	LawKit string `json:"law_kit"`
	// States is the number of states, NearCutoff how many of them have keys
	// on the cutoff of Lemma 1, Checks the number of (state, ε) pairs
	// verified against the exact oracle, Failures how many of them failed.
	States       int    `json:"states"`
	NearCutoff   int    `json:"near_cutoff"`
	Checks       int    `json:"checks"`
	Failures     int    `json:"failures"`
	FirstFailure string `json:"first_failure,omitempty"`
}

// Differential is what the comparison of the backends with each other and
// with the exact map of Algorithm 4 found: the same ρ, and the same item for
// every u that is not within samplertest.UDist of an interval edge.
type Differential struct {
	States     int `json:"states"`
	NearCutoff int `json:"near_cutoff"`
	Solves     int `json:"solves"`
	Samples    int `json:"samples"`
	// ExactItems counts the draws whose item is the one whose exact interval
	// (exact ρ, λ and partial sums) holds u.
	ExactItems int `json:"exact_items"`
	// AtEdge counts draws where the backends disagreed on a u within
	// samplertest.UDist of an exact interval edge, which the contract allows.
	AtEdge       int    `json:"at_edge"`
	Failures     int    `json:"failures"`
	FirstFailure string `json:"first_failure,omitempty"`
}

// Point is one benchmark measurement. NsPerOp is the time of one call of
// the workload, except for the batch step ("batch-step"), where it is the
// time per item (the batch's divided by its size); AllocsPerOp counts per
// call, a whole batch for the batch step. BytesPerItem is 0 for the batch
// step, which does not measure it.
type Point struct {
	Impl    string  `json:"impl"`
	Op      string  `json:"op"`
	N       int     `json:"n"`
	NsPerOp float64 `json:"ns_per_op"`
	// NsMedian and NsMax are the median and the slowest of the
	// measurements, NsPerOp the fastest, which the tables show.
	NsMedian     float64 `json:"ns_per_op_median"`
	NsMax        float64 `json:"ns_per_op_max"`
	BytesPerItem float64 `json:"bytes_per_item"`
	AllocsPerOp  int64   `json:"allocs_per_op"`
}

// Fit is a least-squares line through one impl's points for one op.
type Fit struct {
	Impl string `json:"impl"`
	Op   string `json:"op"`
	// Model is "log2" (ns against log2 n: Slope is ns per doubling of n) or
	// "loglog" (log ns against log n: Slope 1 means linear in n).
	Model     string  `json:"model"`
	Slope     float64 `json:"slope"`
	Intercept float64 `json:"intercept"`
	R2        float64 `json:"r2"`
	From      int     `json:"from_n"` // the range of n fitted
	To        int     `json:"to_n"`
}

// Ratio is a backend's time per step divided by gonum's Weighted at the
// same n: Eps0 compares the ε = 0 steps, which do the same work; Step
// compares the backend's ε = 1/(2n) step; Batch compares the batch steps
// per item (NaN where either was not measured).
type Ratio struct {
	Impl  string  `json:"impl"`
	N     int     `json:"n"`
	Eps0  float64 `json:"eps0_over_gonum"`
	Step  float64 `json:"step_over_gonum"`
	Batch float64 `json:"batch_over_gonum"`
}

// Scaling is the cost-per-step stage.
type Scaling struct {
	Benchtime time.Duration `json:"benchtime_seconds"` // per measurement
	Reps      int           `json:"reps"`              // measurements per point; the fastest is kept
	Points    []Point       `json:"points"`
	Fits      []Fit         `json:"fits"`
	Ratios    []Ratio       `json:"gonum_ratios"`
	Err       string        `json:"error,omitempty"`
}

// Synthetic is the experiment of the paper's supplement: srg.Synthetic's
// result as it comes, with what the report adds.
type Synthetic struct {
	Runs   int `json:"runs"`
	Epochs int `json:"epochs"`
	// Result is nil if the experiment failed.
	Result *srg.SyntheticResult `json:"result"`
	// SeedRatios holds r for the sets of other seeds, to show its spread.
	SeedRatios []float64 `json:"ratio_r_other_seeds"`
	// Floor is SGD's noise floor, the level its relative error settles at
	// (see sgdFloor).
	Floor NoiseFloor `json:"sgd_noise_floor"`
	// Timing is the separate measurement of an SGD and an SRG epoch
	// (timing.go), nil if not run; TimeTo the epochs and seconds their mean
	// curves take to each of syntheticLevels, as Dataset.TimeTo.
	Timing  *Timing       `json:"timing"`
	TimeTo  []TimeTo      `json:"time_to_accuracy"`
	Elapsed time.Duration `json:"elapsed_seconds"`
	Err     string        `json:"error,omitempty"`
}

// NoiseFloor is the level at which SGD with a constant step α stalls on
// least squares (Gower et al. 2019, Theorem 3.1): E‖x_k − x*‖² ≤ (1 −
// αμ)^k‖x_0 − x*‖² + 2ασ²/μ, where μ is the strong convexity of F and σ²
// the gradient variance at x*. Relative to ‖x_0 − x*‖² = ‖x*‖² (x_0 = 0).
type NoiseFloor struct {
	Alpha    float64 `json:"alpha"`
	Sigma2   float64 `json:"sigma2"`
	Mu       float64 `json:"mu"`
	XStarSq  float64 `json:"xstar_sqnorm"`
	Log10Rel float64 `json:"log10_relative"` // log10(2ασ²/μ / ‖x*‖²)
}

// Dataset is the experiment of Section 5 on one data set.
type Dataset struct {
	Name string `json:"name"`
	// Source is "embedded" (package paperdata), "generated" (from the
	// seed) or the path of a -libsvm file.
	Source string `json:"source"`
	// Paper marks one of the paper's four sets, recognised by name and
	// number of examples; only those get the paper's numbers beside them.
	Paper  bool `json:"paper"`
	Runs   int  `json:"runs"`
	Epochs int  `json:"epochs"`
	Batch  int  `json:"batch"`
	// Result is srg.Dataset's result as it comes; nil if it failed.
	Result *srg.DatasetResult `json:"result"`
	// TimeTo holds, per schedule and method, the epochs and seconds the
	// mean curve takes to reach each accuracy of accuracyLevels.
	TimeTo []TimeTo `json:"time_to_accuracy"`
	// EpochCost compares an SRG epoch with an SGD epoch; nil if either was
	// not measured.
	EpochCost *EpochCost `json:"epoch_cost"`
	// Timing is the separate measurement every wall-clock figure of the
	// set comes from (see timing.go); nil if not run.
	Timing *Timing `json:"timing"`
	// Gaps are the outlier gaps of the seconds the accuracy runs recorded,
	// which the report does not use.
	Gaps    Gaps          `json:"accuracy_run_gaps"`
	Elapsed time.Duration `json:"elapsed_seconds"`
	Err     string        `json:"error,omitempty"`

	data *libsvm.Dataset // read before the long stages
	// levels are the accuracies of the verdict and TimeTo, as log10;
	// nil means accuracyLevels.
	levels []float64
}

// accuracies returns the accuracies, as log10, that d is read at.
func (d Dataset) accuracies() []float64 {
	if d.levels != nil {
		return d.levels
	}
	return accuracyLevels
}

// EpochCost is the wall-clock time per example of SGD and of SRG under the
// constant step, in µs: the median cost of an epoch (Timing) over n; Ratio
// is the median over the timing's repetitions of SRG's cost over SGD's in
// the same repetition, RatioMin and RatioMax their range.
type EpochCost struct {
	SGD      float64 `json:"sgd_us_per_example"`
	SRG      float64 `json:"srg_us_per_example"`
	Ratio    float64 `json:"srg_over_sgd"`
	RatioMin float64 `json:"srg_over_sgd_min"`
	RatioMax float64 `json:"srg_over_sgd_max"`
}

// epochCost returns the EpochCost of d, or nil if its timing lacks SGD or
// SRG under the constant step.
func epochCost(d Dataset) *EpochCost {
	q := pairedRatios(d, "constant", methodSRG, methodSGD)
	if len(q) == 0 || d.Result == nil {
		return nil
	}
	n := float64(d.Result.N)
	return &EpochCost{
		SGD: 1e6 * secondsPerEpoch(d, "constant", methodSGD) / n, SRG: 1e6 * secondsPerEpoch(d, "constant", methodSRG) / n,
		Ratio: median(q), RatioMin: q[0], RatioMax: q[len(q)-1],
	}
}

// TimeTo is how long one method's mean curve takes to reach 10^Log10 in a
// measure of accuracy (NaN: not reached in the run).
//
// Epochs is read from the mean curve; EpochsLo and EpochsHi from the best
// and the worst run at each checkpoint (the curve's Log10ErrMin and
// Log10ErrMax, or Log10SuboptMin and Log10SuboptMax): when the first run
// got there, and from when every run was there. Seconds is Epochs times
// the median cost of an epoch (Timing), SecondsLo and SecondsHi Epochs
// times the cheapest and dearest repetition.
type TimeTo struct {
	// Measure is measureDist (the paper's ‖x − x*‖²/‖x₀ − x*‖²) or
	// measureSubopt ((F(x) − F(x*))/(F(x₀) − F(x*))).
	Measure   string  `json:"measure"`
	Schedule  string  `json:"schedule"`
	Method    string  `json:"method"`
	Log10     float64 `json:"log10_relative_error"`
	Epochs    float64 `json:"epochs"`
	EpochsLo  float64 `json:"epochs_best_run"`
	EpochsHi  float64 `json:"epochs_worst_run"`
	Seconds   float64 `json:"seconds"`
	SecondsLo float64 `json:"seconds_min"`
	SecondsHi float64 `json:"seconds_max"`
}

// Figure is one SVG written beside index.md.
type Figure struct {
	File    string `json:"file"`
	Caption string `json:"caption"`
	// PNG is the path of its PNG copy (-png), empty if none.
	PNG string `json:"png,omitempty"`
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

// paperSets are the data sets of the paper's Figure 1 and their sizes
// (LIBSVM binary data sets page); a set given by -libsvm counts as the
// paper's only if both name and size match.
var paperSets = map[string]int{"ijcnn1": 49990, "w8a": 49749, "mushrooms": 8124, "phishing": 11055}

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
		if c.Kit != "pass" && c.Kit != "law-exact: no map" {
			errs = append(errs, "conformance kit: "+c.Backend+": "+c.Kit)
		}
		if c.LawKit != "pass" && c.LawKit != "by the map mode" {
			errs = append(errs, "conformance kit, law mode: "+c.Backend+": "+c.LawKit)
		}
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
		if d.Timing != nil && d.Timing.Err != "" {
			errs = append(errs, "timing of "+d.Name+": "+d.Timing.Err)
		}
	}
	errs = append(errs, r.FigureErrs...)
	return errs
}

// summaryJSON encodes the report, indented.
func (r *Report) summaryJSON() ([]byte, error) {
	r.Problems = r.Errors()
	var b bytes.Buffer
	if err := encodeJSON(&b, reflect.ValueOf(r)); err != nil {
		return nil, err
	}
	var out bytes.Buffer
	if err := json.Indent(&out, b.Bytes(), "", "  "); err != nil {
		return nil, err
	}
	out.WriteByte('\n')
	return out.Bytes(), nil
}

var (
	durationType  = reflect.TypeFor[time.Duration]()
	marshalerType = reflect.TypeFor[json.Marshaler]()
	textType      = reflect.TypeFor[encoding.TextMarshaler]()
)

// encodeJSON writes v as encoding/json would, following the json tags
// (names, omitempty, "-") and flattening embedded structs, with three
// differences: a NaN or infinite float is null (nothing measured, or a
// log10 of 0) instead of an error, a time.Duration is in seconds, and a nil
// slice is [] like an empty one.
func encodeJSON(b *bytes.Buffer, v reflect.Value) error {
	if v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface {
		if v.IsNil() {
			b.WriteString("null")
			return nil
		}
		if v.Kind() == reflect.Pointer && v.Type().Implements(marshalerType) {
			return leaf(b, v)
		}
		return encodeJSON(b, v.Elem())
	}
	t := v.Type()
	switch {
	case t == durationType:
		return encodeFloat(b, time.Duration(v.Int()).Seconds())
	case t.Implements(marshalerType), t.Implements(textType):
		return leaf(b, v)
	}
	switch v.Kind() {
	case reflect.Float32, reflect.Float64:
		return encodeFloat(b, v.Float())
	case reflect.Slice, reflect.Array:
		b.WriteByte('[')
		for i := range v.Len() {
			if i > 0 {
				b.WriteByte(',')
			}
			if err := encodeJSON(b, v.Index(i)); err != nil {
				return err
			}
		}
		b.WriteByte(']')
		return nil
	case reflect.Map:
		keys := v.MapKeys()
		sort.Slice(keys, func(i, j int) bool { return keys[i].String() < keys[j].String() })
		b.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				b.WriteByte(',')
			}
			if err := leaf(b, reflect.ValueOf(k.String())); err != nil {
				return err
			}
			b.WriteByte(':')
			if err := encodeJSON(b, v.MapIndex(k)); err != nil {
				return err
			}
		}
		b.WriteByte('}')
		return nil
	case reflect.Struct:
		b.WriteByte('{')
		first := true
		if err := encodeFields(b, v, &first); err != nil {
			return err
		}
		b.WriteByte('}')
		return nil
	}
	return leaf(b, v)
}

// encodeFields writes the exported fields of the struct v, flattening
// untagged embedded structs.
func encodeFields(b *bytes.Buffer, v reflect.Value, first *bool) error {
	t := v.Type()
	for i := range t.NumField() {
		sf := t.Field(i)
		if !sf.IsExported() {
			continue
		}
		tag := sf.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		fv := v.Field(i)
		if sf.Anonymous && name == "" && fv.Kind() == reflect.Struct {
			if err := encodeFields(b, fv, first); err != nil {
				return err
			}
			continue
		}
		if opts == "omitempty" && fv.IsZero() {
			continue
		}
		if name == "" {
			name = sf.Name
		}
		if !*first {
			b.WriteByte(',')
		}
		*first = false
		if err := leaf(b, reflect.ValueOf(name)); err != nil {
			return err
		}
		b.WriteByte(':')
		if err := encodeJSON(b, fv); err != nil {
			return err
		}
	}
	return nil
}

func encodeFloat(b *bytes.Buffer, x float64) error {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		b.WriteString("null")
		return nil
	}
	b.Write(strconv.AppendFloat(nil, x, 'g', -1, 64))
	return nil
}

// leaf writes v with encoding/json, leaving <, > and & as they are.
func leaf(b *bytes.Buffer, v reflect.Value) error {
	var j bytes.Buffer
	enc := json.NewEncoder(&j)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v.Interface()); err != nil {
		return err
	}
	b.Write(bytes.TrimSuffix(j.Bytes(), []byte("\n")))
	return nil
}
