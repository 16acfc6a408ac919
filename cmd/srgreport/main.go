// Command srgreport measures everything the project claims and writes the
// report people read: a folder with index.md (tables and figures),
// summary.json (every number and curve of the report, for machines),
// curves.csv (the curves alone) and the figures as SVG. It lists the files
// it wrote on stdout, one a line, and shows its progress on stderr.
//
//	go run ./cmd/srgreport                 # full run, into reports/
//	go run ./cmd/srgreport -quick -out /tmp/r
//	go run ./cmd/srgreport -libsvm w8a=data/w8a.gz -libsvm ijcnn1=data/ijcnn1.gz
//
// The report has five parts: the paper's claims checked numerically
// (package proofs), the backends checked against the exact oracle and
// against each other (package samplertest), the cost of an SRG step against
// n for every backend and gonum's Weighted (package bench), the experiments
// of Section 5 and the supplement next to the paper's numbers (package srg),
// and the errata to the paper. Every table is filled by measurement at run
// time; only the paper's reference numbers are written into the code, and
// the report labels them.
//
// Without -libsvm, the logistic-regression experiments run on the paper's
// mushrooms and phishing sets, which the command embeds (package
// paperdata), so it needs nothing but Go. Every data set is read and checked
// before anything is measured: a path that does not exist, a file that
// cannot be parsed, an empty set, a single label or a NaN or infinite value
// stops the command with status 2 and no report. A stage that fails later is
// named in the report, the rest is still written, and the command exits
// with status 1.
package main

import (
	"bytes"
	"encoding/csv"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/reweighted/reweighted/internal/backends"
	"github.com/reweighted/reweighted/srg"
)

// dataFile is one -libsvm flag: a data set's name and file.
type dataFile struct {
	Name, Path string
}

// dataFlags collects repeated -libsvm name=path flags.
type dataFlags []dataFile

// String implements flag.Value.
func (d *dataFlags) String() string {
	var parts []string
	for _, f := range *d {
		parts = append(parts, f.Name+"="+f.Path)
	}
	return strings.Join(parts, ",")
}

// Set implements flag.Value: it parses name=path.
func (d *dataFlags) Set(s string) error {
	name, path, ok := strings.Cut(s, "=")
	name, path = strings.TrimSpace(name), strings.TrimSpace(path)
	switch {
	case !ok:
		return fmt.Errorf("want name=path, got %q", s)
	case name == "":
		return fmt.Errorf("empty data set name in %q", s)
	case path == "":
		return fmt.Errorf("empty path for data set %q", name)
	case safeName(name) != name:
		return fmt.Errorf("data set name %q: use letters, digits, '-' and '_'", name)
	case slices.ContainsFunc(*d, func(f dataFile) bool { return f.Name == name }):
		return fmt.Errorf("data set %q given twice", name)
	}
	*d = append(*d, dataFile{name, path})
	return nil
}

// config is what the flags select.
type config struct {
	out     string
	pngDir  string
	quick   bool
	seed    uint64
	sampler string
	data    dataFlags
	epochs  int  // epochs of the data-set experiments; 0: the mode's default
	replace bool // draw mini-batches with replacement instead of the paper's protocol
	like    likeFlags
	// memLimit is the memory a data set's experiments may need: 0 means
	// what the machine has (availableMemory), negative no limit.
	memLimit int64

	// Stages to run; all by default. Tests turn off the slow ones.
	claims, conformance, scaling, experiments bool
	// override, if set, replaces the sizes that -quick selects (tests).
	override *sizes
}

// parseFlags parses the command line into a config.
func parseFlags(args []string, stderr io.Writer) (config, error) {
	cfg := config{claims: true, conformance: true, scaling: true, experiments: true}
	fs := flag.NewFlagSet("srgreport", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&cfg.out, "out", "reports", "report folder")
	fs.BoolVar(&cfg.quick, "quick", false, "a quick run: fewer runs, epochs, sizes and states (docs/report.md gives its time)")
	fs.Uint64Var(&cfg.seed, "seed", 1, "seed of every random choice")
	fs.StringVar(&cfg.sampler, "sampler", "levels", "backend SRG uses in the experiments: "+strings.Join(backends.Names(), ", "))
	fs.Var(&cfg.data, "libsvm", "a LIBSVM data set as name=path (repeatable), e.g. mushrooms=data/mushrooms.gz")
	fs.StringVar(&cfg.pngDir, "png", "", "also write PNG copies of the figures into this folder, for viewing")
	fs.BoolVar(&cfg.replace, "replace", false, "draw the data-set mini-batches with replacement (default: without, as the paper does)")
	fs.Var(&cfg.like, "like", "also run a set generated in the shape of a LIBSVM text set, "+likeNames()+" (repeatable), e.g. -like rcv1")
	fs.IntVar(&cfg.epochs, "epochs", 0, "epochs of the data-set experiments (default 60 with -quick, 200 without; half of that on a wide set of at most 2000000 non-zeros, more features than examples, a quarter on other sets of more than 20000 examples or 2000000 non-zeros; SGD and SRG reach their noise floors on mushrooms after about 100)")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: srgreport [flags]\n\nMeasures the SRG project and writes index.md, summary.json and SVG figures.\n\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return cfg, err
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if set["epochs"] && cfg.epochs <= 0 {
		return cfg, fmt.Errorf("-epochs %d: want a positive number of epochs (leave the flag out for the mode's default)", cfg.epochs)
	}
	if strings.TrimSpace(cfg.out) == "" {
		return cfg, errors.New("-out is empty: want the folder to write the report into")
	}
	if set["png"] && strings.TrimSpace(cfg.pngDir) == "" {
		return cfg, errors.New("-png is empty: want a folder for the PNG copies (leave the flag out for none)")
	}
	if fs.NArg() > 0 {
		return cfg, fmt.Errorf("unexpected arguments: %q", fs.Args())
	}
	// Fail on a mistyped data path now, not after minutes of measuring.
	for _, f := range cfg.data {
		st, err := os.Stat(f.Path)
		if err == nil && st.IsDir() {
			err = errors.New("is a directory")
		}
		if err != nil {
			return cfg, fmt.Errorf("-libsvm %s=%s: %w", f.Name, f.Path, err)
		}
	}
	if newSampler(cfg.sampler) == nil {
		return cfg, fmt.Errorf("-sampler %q: want one of %s", cfg.sampler, strings.Join(backends.Names(), ", "))
	}
	return cfg, nil
}

// sizes are the knobs that -quick turns down.
type sizes struct {
	scaleLo, scaleHi int           // scaling over n = 2^lo … 2^hi
	naiveMax         int           // naive's largest n (its fill costs O(n²))
	benchtime        time.Duration // per measurement
	reps             int           // measurements per point
	states, maxN     int           // conformance states, of up to maxN items
	bigN             int           // every tenth state has up to bigN items
	synthRuns        int           // synthetic experiment
	synthEpochs      int
	ratioSeeds       int // other seeds whose synthetic r is shown
	dataRuns         int // data-set experiments
	dataEpochs       int
	timingReps       int // repetitions of the epoch timing (timing.go)
	generatedN       int // tests: a generated logistic set of this size instead of the embedded sets
}

func (c config) sizes() sizes {
	var sz sizes
	switch {
	case c.override != nil:
		sz = *c.override
	case c.quick:
		sz = sizes{
			scaleLo: 8, scaleHi: 17, naiveMax: 1 << 16, benchtime: 10 * time.Millisecond, reps: 3,
			states: 60, maxN: 80, bigN: 300,
			synthRuns: 20, synthEpochs: 30, ratioSeeds: 10,
			dataRuns: 3, dataEpochs: 60, timingReps: 9,
		}
	default:
		sz = sizes{
			scaleLo: 8, scaleHi: 20, naiveMax: 1 << 16, benchtime: 100 * time.Millisecond, reps: 5,
			states: 400, maxN: 80, bigN: 2000,
			synthRuns: 100, synthEpochs: 30, ratioSeeds: 50,
			dataRuns: 10, dataEpochs: 200, timingReps: 21,
		}
	}
	if c.epochs > 0 {
		sz.dataEpochs = c.epochs
	}
	return sz
}

func main() {
	cfg, err := parseFlags(os.Args[1:], os.Stderr)
	if errors.Is(err, flag.ErrHelp) {
		return
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "srgreport:", err)
		os.Exit(2)
	}
	pr := newProgress(os.Stderr, isTerminal(os.Stderr))
	pr.results = os.Stdout
	if err := runStages(cfg, pr); err != nil {
		fmt.Fprintln(os.Stderr, "srgreport:", err)
		if errors.As(err, new(inputError)) {
			os.Exit(2)
		}
		os.Exit(1)
	}
}

// runStages is run; a variable so that the tests of main's exit status
// can stop short of measuring.
var runStages = run

// inputError is a bad input found before measuring: the command exits with
// status 2 and writes no report.
type inputError struct{ err error }

func (e inputError) Error() string { return e.err.Error() }
func (e inputError) Unwrap() error { return e.err }

// run measures everything cfg selects, reports progress on pr and writes
// the report, listing the files it wrote on pr.results. The report is written even when a stage fails; the error then
// lists what failed. The run's start and length are read from pr's clock.
func run(cfg config, pr *progress) error {
	start := pr.now()
	sz := cfg.sizes()
	// Read and check every data set now, not after minutes of measuring,
	// and before creating anything: refused data changes nothing.
	var datasets []Dataset
	if cfg.experiments {
		var err error
		if datasets, err = loadDatasets(cfg, sz); err != nil {
			return inputError{err}
		}
	}
	// Fail on an unwritable folder before spending minutes measuring.
	if err := os.MkdirAll(cfg.out, 0o755); err != nil {
		return err
	}
	announce(pr, cfg, plan(cfg, sz, datasets))
	b, _ := backends.ByName(cfg.sampler)
	r := &Report{
		Seed: cfg.seed, Quick: cfg.quick, Sampler: cfg.sampler, Guarantee: b.Guarantee(),
		Go: runtime.Version(), OS: runtime.GOOS, Arch: runtime.GOARCH, CPUs: runtime.NumCPU(),
		Machine: readMachine(), Started: start, Datasets: datasets,
	}
	if cfg.claims {
		runClaims(r, cfg, pr)
	}
	if cfg.conformance {
		r.ConfMaxN, r.ConfBigN = sz.maxN, sz.bigN
		r.Conformance, r.Differential = checkConformance(cfg.seed, sz.states, sz.maxN, sz.bigN, pr)
	}
	if cfg.scaling {
		r.Scaling = measureScaling(sz.scaleLo, sz.scaleHi, sz.naiveMax, sz.benchtime, sz.reps, cfg.seed, pr)
	}
	if cfg.experiments {
		runExperiments(r, cfg, sz, pr)
	} else {
		r.ExperimentsSkipped, r.ExperimentsSkipNotes = true, "turned off"
	}
	r.Errata = errata(errataCounts(r.Claims))
	r.Machine.LoadEnd = loadAverage()
	drawFigures(r, cfg.out, cfg.pngDir)
	r.Elapsed = pr.now().Sub(start)
	if err := writeReport(r, cfg.out); err != nil {
		return err
	}
	files := writtenFiles(r, cfg.out)
	pr.Printf("wrote %d files in %s (listed on stdout)", len(files), fmtDuration(r.Elapsed))
	for _, f := range files {
		fmt.Fprintln(pr.results, f)
	}
	if errs := r.Errors(); len(errs) > 0 {
		return fmt.Errorf("%d problem(s), listed in the report:\n  %s", len(errs), strings.Join(errs, "\n  "))
	}
	return nil
}

// writeReport writes index.md, summary.json and curves.csv into dir.
func writeReport(r *Report, dir string) error {
	var md, curves bytes.Buffer
	if err := writeMarkdown(&md, r); err != nil {
		return err
	}
	summary, err := r.summaryJSON()
	if err != nil {
		return err
	}
	if err := writeCurvesCSV(&curves, r); err != nil {
		return err
	}
	// A fixed order, so that a failed write leaves the same files behind.
	names, files := []string{"index.md", "summary.json", "curves.csv"}, [][]byte{md.Bytes(), summary, curves.Bytes()}
	for k, name := range names {
		if err := os.WriteFile(filepath.Join(dir, name), files[k], 0o644); err != nil {
			return err
		}
	}
	return nil
}

// writeCurvesCSV writes every curve of the experiments, one row per
// checkpoint: experiment (a data set or "synthetic"), schedule, method,
// epochs, seconds (the epochs times the median cost of an epoch from the
// separate timing), the mean log10 relative error and its smallest and
// largest value over the runs, the step α_k, the seconds recorded inside
// the accuracy runs (concurrent runs on a shared machine; not used by the
// report), and the mean log10 relative suboptimality with its smallest and
// largest value. A value not measured (or −∞: zero within rounding) is
// empty.
func writeCurvesCSV(w io.Writer, r *Report) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"experiment", "schedule", "method", "epochs", "seconds", "log10_err", "log10_err_min", "log10_err_max", "alpha", "seconds_in_run",
		"log10_subopt", "log10_subopt_min", "log10_subopt_max"})
	at := func(xs []float64, k int) string {
		if k >= len(xs) || math.IsNaN(xs[k]) || math.IsInf(xs[k], 0) {
			return ""
		}
		return strconv.FormatFloat(xs[k], 'g', -1, 64)
	}
	put := func(exp, sched string, cs []srg.Curve, d *Dataset) {
		for _, c := range cs {
			var secs []float64
			if d != nil {
				secs = secondsAxis(c.Evals, secondsPerEpoch(*d, sched, c.Method))
			}
			for k := range c.Evals {
				cw.Write([]string{exp, sched, c.Method, at(c.Evals, k), at(secs, k), at(c.Log10Err, k),
					at(c.Log10ErrMin, k), at(c.Log10ErrMax, k), at(c.Alpha, k), at(c.Seconds, k),
					at(c.Log10Subopt, k), at(c.Log10SuboptMin, k), at(c.Log10SuboptMax, k)})
			}
		}
	}
	if y := r.Synthetic; y != nil && y.Result != nil {
		put("synthetic", "constant", y.Result.Curves, nil)
	}
	for i := range r.Datasets {
		if d := &r.Datasets[i]; d.Result != nil {
			put(d.Name, "constant", d.Result.Constant, d)
			put(d.Name, "decreasing", d.Result.Decreasing, d)
		}
	}
	cw.Flush()
	return cw.Error()
}
