package main

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/reweighted/reweighted/internal/backends"
	"github.com/reweighted/reweighted/libsvm"
	"github.com/reweighted/reweighted/samplertest"
	"github.com/reweighted/reweighted/srg"
	"github.com/stretchr/testify/require"
)

// dataFiles creates empty files of the given names in a new folder and
// returns their paths, so that -libsvm flags name files that exist.
func dataFiles(t *testing.T, names ...string) []string {
	dir := t.TempDir()
	var paths []string
	for _, n := range names {
		p := filepath.Join(dir, n)
		require.NoError(t, os.WriteFile(p, nil, 0o644))
		paths = append(paths, p)
	}
	return paths
}

func TestParseFlagsLibsvm(t *testing.T) {
	p := dataFiles(t, "mushrooms.gz", "w8a.bz2", "a=b")
	cfg, err := parseFlags([]string{
		"-quick", "-seed", "9", "-out", "r",
		"-libsvm", "mushrooms=" + p[0], "-libsvm", "w8a = " + p[1], "-libsvm", "eq=" + p[2],
	}, io.Discard)
	require.NoError(t, err)
	require.True(t, cfg.quick)
	require.Equal(t, uint64(9), cfg.seed)
	require.Equal(t, "r", cfg.out)
	require.Equal(t, dataFlags{{"mushrooms", p[0]}, {"w8a", p[1]}, {"eq", p[2]}}, cfg.data)
	require.Equal(t, "mushrooms="+p[0]+",w8a="+p[1]+",eq="+p[2], cfg.data.String())
	require.True(t, cfg.claims && cfg.conformance && cfg.scaling && cfg.experiments)

	cfg, err = parseFlags(nil, io.Discard)
	require.NoError(t, err)
	require.Equal(t, "reports", cfg.out)
	require.Equal(t, "levels", cfg.sampler)
	require.Empty(t, cfg.data)
	require.False(t, cfg.quick)
}

func TestParseFlagsErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-libsvm", "mushrooms"}, "want name=path"},
		{[]string{"-libsvm", "=x.gz"}, "empty data set name"},
		{[]string{"-libsvm", "m="}, "empty path"},
		{[]string{"-libsvm", "a b=x"}, "use letters"},
		{[]string{"-libsvm", "m=x", "-libsvm", "m=y"}, "given twice"},
		{[]string{"-sampler", "heap"}, "want one of naive, ost, segtree, btree"},
		{[]string{"extra"}, "unexpected arguments"},
		{[]string{"-epochs", "-3"}, "want a positive number"},
		{[]string{"-epochs", "0"}, "-epochs 0: want a positive number of epochs"},
		{[]string{"-out", ""}, "-out is empty"},
		{[]string{"-out", " "}, "-out is empty"},
		{[]string{"-png", ""}, "-png is empty"},
		{[]string{"-seed", "x"}, "invalid value"},
		{[]string{"-epochs", "1.5"}, "invalid value"},
		{[]string{"-like", "url"}, "unknown shape"},
	} {
		var stderr bytes.Buffer
		_, err := parseFlags(c.args, &stderr)
		require.Error(t, err, "%q", c.args)
		require.Contains(t, err.Error()+stderr.String(), c.want, "%q", c.args)
	}
}

// A flag value that means nothing stops the command with status 2, a
// message naming the flag, and no report: the test binary runs main in a
// child process.
func TestMainRefusesBadFlags(t *testing.T) {
	if args := os.Getenv("SRGREPORT_MAIN_ARGS"); args != "" {
		os.Args = append([]string{"srgreport"}, strings.Split(args, "\x1f")...)
		runStages = func(config, *progress) error {
			fmt.Println("accepted")
			return nil
		}
		main()
		os.Exit(0)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-epochs", "0"}, "srgreport: -epochs 0: want a positive number of epochs"},
		{[]string{"-out", ""}, "srgreport: -out is empty"},
		{[]string{"-sampler", "heap"}, `srgreport: -sampler "heap"`},
		{[]string{"-quick", "x"}, "srgreport: unexpected arguments"},
	} {
		out := t.TempDir()
		args := append([]string{"-out", filepath.Join(out, "r")}, c.args...)
		cmd := exec.Command(os.Args[0], "-test.run=^TestMainRefusesBadFlags$")
		cmd.Env = append(os.Environ(), "SRGREPORT_MAIN_ARGS="+strings.Join(args, "\x1f"))
		var stderr, stdout bytes.Buffer
		cmd.Stderr, cmd.Stdout = &stderr, &stdout
		err := cmd.Run()
		var ee *exec.ExitError
		require.ErrorAs(t, err, &ee, "%q", c.args)
		require.Equal(t, 2, ee.ExitCode(), "%q: %s", c.args, stderr.String())
		require.Contains(t, stderr.String(), c.want, "%q", c.args)
		require.Empty(t, stdout.String(), "%q: nothing written", c.args)
		_, err = os.Stat(filepath.Join(out, "r"))
		require.True(t, os.IsNotExist(err), "%q: no report folder", c.args)
	}
}

// A -libsvm path that does not exist, or is a folder, fails at flag parsing,
// before any measuring, with an error naming the flag and the path.
func TestParseFlagsMissingDataFile(t *testing.T) {
	ok := dataFiles(t, "w8a.gz")[0]
	missing := filepath.Join(t.TempDir(), "mushrooms.gz")
	_, err := parseFlags([]string{"-libsvm", "w8a=" + ok, "-libsvm", "mushrooms=" + missing}, io.Discard)
	require.ErrorContains(t, err, "-libsvm mushrooms="+missing+": ")
	require.ErrorIs(t, err, os.ErrNotExist)

	dir := t.TempDir()
	_, err = parseFlags([]string{"-libsvm", "d=" + dir}, io.Discard)
	require.ErrorContains(t, err, "-libsvm d="+dir+": is a directory")
}

func TestSizesQuickIsSmaller(t *testing.T) {
	q, f := config{quick: true}.sizes(), config{}.sizes()
	require.Equal(t, 17, q.scaleHi, "-quick scales n up to 2^17")
	require.Equal(t, 20, f.scaleHi, "the full run scales n up to 2^20")
	require.Equal(t, 1<<16, f.naiveMax)
	require.Less(t, q.states, f.states)
	require.Less(t, q.synthRuns, f.synthRuns)
	require.Less(t, q.dataEpochs, f.dataEpochs)
	require.Less(t, q.benchtime, f.benchtime)
}

// -epochs overrides the data-set epochs of either mode and nothing else.
func TestEpochsFlag(t *testing.T) {
	for _, args := range [][]string{{"-epochs", "300"}, {"-quick", "-epochs", "300"}} {
		cfg, err := parseFlags(args, io.Discard)
		require.NoError(t, err)
		sz := cfg.sizes()
		require.Equal(t, 300, sz.dataEpochs, "%q", args)
		cfg.epochs = 0
		want := cfg.sizes()
		want.dataEpochs = 300
		require.Equal(t, want, sz, "%q changes only the epochs", args)
	}
}

// tiny are sizes that make a run take a few seconds.
var tiny = sizes{
	scaleLo: 4, scaleHi: 4, naiveMax: 16, benchtime: time.Millisecond, reps: 1,
	states: 2, maxN: 8, bigN: 8, synthRuns: 1, synthEpochs: 1, ratioSeeds: 2, dataRuns: 1, dataEpochs: 2, generatedN: 300, timingReps: 2,
}

// frozen returns a progress on w whose clock stands still, so that every
// stage takes 0 s whatever the machine's load.
func frozen(w io.Writer, tty bool) *progress {
	p := newProgress(w, tty)
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	p.now = func() time.Time { return t0 }
	return p
}

// writeLibsvm writes a LIBSVM file with the given lines and returns its path.
func writeLibsvm(t *testing.T, lines string) string {
	p := filepath.Join(t.TempDir(), "set.txt")
	require.NoError(t, os.WriteFile(p, []byte(lines), 0o644))
	return p
}

// parseFlags rejects a missing path; run reads and checks every data set
// before measuring anything, and refuses a bad one with an input error (exit
// status 2) that names it, writing no report.
func TestBadDataFileStopsBeforeMeasuring(t *testing.T) {
	for _, c := range []struct {
		name, lines, want string
	}{
		{"gone", "", "no such file"},
		{"empty", "\n# nothing\n", "no examples"},
		{"onelabel", "+1 1:1\n+1 2:1\n", "a single label"},
		{"nanfeature", "+1 1:nan\n-1 2:1\n", "nan"},
		{"nanlabel", "nan 1:1\n-1 2:1\n", "nan"},
		{"garbage", "+1 1:x\n", "line 1"},
		{"twoexamples", "+1 1:1\n-1 2:1\n", "2 examples, fewer than a mini-batch of 128"},
		{"bigindex", "+1 1:1\n-1 99999999999:1\n", `line 2: libsvm: bad format: index "99999999999" is too large`},
		{"binary", "\x7fELF\x02\x01\x01\x00" + strings.Repeat("\x00\x9c\xff", 100), `line 1: libsvm: bad format: not text (a binary file?): starts "\x7fELF`},
		{"truncatedgz", "", "the gzip data ends early, at byte"},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := writeLibsvm(t, c.lines)
			if c.name == "truncatedgz" {
				var b bytes.Buffer
				zw := gzip.NewWriter(&b)
				for i := range 3000 {
					fmt.Fprintf(zw, "%d 1:%d 2:0.5\n", 2*(i%2)-1, i)
				}
				require.NoError(t, zw.Close())
				require.NoError(t, os.WriteFile(path, b.Bytes()[:b.Len()/2], 0o644))
			}
			if c.name == "gone" {
				require.NoError(t, os.Remove(path))
			}
			out := filepath.Join(t.TempDir(), "report")
			// claims, conformance and scaling on: they must not run.
			cfg := config{out: out, seed: 3, sampler: "ost", claims: true, conformance: true, scaling: true,
				experiments: true, override: &tiny, data: dataFlags{{"bad", path}}}
			var stderr bytes.Buffer
			err := run(cfg, frozen(&stderr, false))
			require.ErrorAs(t, err, new(inputError))
			require.ErrorContains(t, err, `"bad"`)
			require.ErrorContains(t, err, c.want)
			require.ErrorContains(t, err, path, "names the file")
			require.NotContains(t, err.Error(), "\n", "one line")
			require.Less(t, len(err.Error()), 300, "short: %s", err)
			require.Empty(t, stderr.String(), "no stage started")
			_, serr := os.Stat(out)
			require.ErrorIs(t, serr, os.ErrNotExist, "not even the report folder is created")
		})
	}
}

// A run on a generated set writes the report, summary.json with every
// curve, curves.csv and both Figure 1s.
func TestGeneratedDataset(t *testing.T) {
	out := t.TempDir()
	cfg := config{out: out, seed: 3, sampler: "segtree", experiments: true, override: &tiny}
	require.NoError(t, run(cfg, frozen(io.Discard, false)))
	md, err := os.ReadFile(filepath.Join(out, "index.md"))
	require.NoError(t, err)
	require.Contains(t, string(md), generatedName+" (not in the paper)")
	require.Contains(t, string(md), "without replacement, as the paper does")
	require.Contains(t, string(md), "![", "figures are embedded")
	for _, f := range []string{"figure1.svg", "figure1-seconds.svg", "figure1-suboptimality.svg", "synthetic-error.svg", "synthetic-variance.svg"} {
		st, err := os.Stat(filepath.Join(out, f))
		require.NoError(t, err, f)
		require.Greater(t, st.Size(), int64(1000), f)
	}

	b, err := os.ReadFile(filepath.Join(out, "summary.json"))
	require.NoError(t, err)
	type curve struct {
		Method   string    `json:"method"`
		Epochs   []float64 `json:"epochs"`
		Seconds  []float64 `json:"seconds"`
		Alpha    []float64 `json:"alpha"`
		Log10Err []float64 `json:"log10_err"`
		Min      []float64 `json:"log10_err_min"`
		Max      []float64 `json:"log10_err_max"`
		Subopt   []float64 `json:"log10_subopt"`
	}
	var s struct {
		Datasets []struct {
			Name   string `json:"name"`
			Paper  bool   `json:"paper"`
			Result struct {
				N          int     `json:"n"`
				Protocol   string  `json:"protocol"`
				Alpha      float64 `json:"alpha"`
				Constant   []curve `json:"constant"`
				Decreasing []curve `json:"decreasing"`
			} `json:"result"`
			TimeTo    []map[string]any `json:"time_to_accuracy"`
			EpochCost *struct {
				SGD   float64 `json:"sgd_us_per_example"`
				SRG   float64 `json:"srg_us_per_example"`
				Ratio float64 `json:"srg_over_sgd"`
			} `json:"epoch_cost"`
			Timing struct {
				Reps    int `json:"repetitions"`
				Methods []struct {
					Schedule string    `json:"schedule"`
					Method   string    `json:"method"`
					Seconds  []float64 `json:"seconds_per_epoch"`
					Median   float64   `json:"median"`
				} `json:"methods"`
			} `json:"timing"`
		} `json:"datasets"`
	}
	require.NoError(t, json.Unmarshal(b, &s))
	require.Len(t, s.Datasets, 1)
	d := s.Datasets[0]
	require.False(t, d.Paper)
	require.Equal(t, "without replacement", d.Result.Protocol)
	require.Len(t, d.Result.Constant, 4)
	rows := 0
	for _, c := range d.Result.Constant {
		require.Len(t, c.Epochs, 2*2+1, "two epochs, two checkpoints each")
		require.Len(t, c.Seconds, len(c.Epochs))
		require.Len(t, c.Log10Err, len(c.Epochs))
		require.Len(t, c.Min, len(c.Epochs))
		require.Len(t, c.Max, len(c.Epochs))
		require.Len(t, c.Subopt, len(c.Epochs), "the relative suboptimality beside the distance")
		require.Zero(t, c.Subopt[0], "%s: the relative suboptimality starts at 1", c.Method)
		rows += len(c.Epochs)
	}
	require.Len(t, d.TimeTo, 8*len(measures)*len(accuracyLevels))

	// The step the report states is 1/(2𝓛) of the generated set, computed
	// here from the data and the paper's formulas (Appendix C); the curves
	// filed under each schedule ran with that schedule's steps.
	ds := generatedSet(3, tiny.generatedN)
	ds.NormalizeRows()
	alpha := independentStep(ds, batchSize)
	require.InEpsilon(t, alpha, d.Result.Alpha, 1e-6, "summary.json's α")
	require.Contains(t, string(md), fmt.Sprintf("constant step α = 1/(2𝓛) = %.3g", alpha), "index.md's α")
	for _, c := range d.Result.Constant {
		for _, a := range c.Alpha {
			require.InEpsilon(t, alpha, a, 1e-6, "constant-step %s runs at 1/(2𝓛)", c.Method)
		}
	}
	require.Len(t, d.Result.Decreasing, 4)
	for _, c := range d.Result.Decreasing {
		require.InEpsilon(t, alpha, c.Alpha[0], 1e-6, "decreasing-step %s starts at 1/(2𝓛)", c.Method)
		require.Less(t, c.Alpha[len(c.Alpha)-1], c.Alpha[0], "decreasing-step %s decreases", c.Method)
	}

	// Every (schedule, method) was timed, once a repetition; the epoch cost
	// is the median of SRG's over SGD's in the same repetition.
	require.Len(t, d.Timing.Methods, 8)
	require.Equal(t, tiny.timingReps, d.Timing.Reps)
	var sgdT, srgT []float64
	for _, m := range d.Timing.Methods {
		require.Len(t, m.Seconds, tiny.timingReps, "%s/%s", m.Schedule, m.Method)
		if m.Schedule == "constant" && m.Method == "SGD" {
			sgdT = m.Seconds
		}
		if m.Schedule == "constant" && m.Method == "SRG" {
			srgT = m.Seconds
		}
	}
	require.NotNil(t, d.EpochCost)
	q := []float64{srgT[0] / sgdT[0], srgT[1] / sgdT[1]}
	require.InEpsilon(t, (q[0]+q[1])/2, d.EpochCost.Ratio, 1e-9)
	require.InEpsilon(t, 1e6*(sgdT[0]+sgdT[1])/2/float64(d.Result.N), d.EpochCost.SGD, 1e-9)
	require.Contains(t, string(md), "| Data set | n | SGD µs per example | SRG µs per example | SRG / SGD (range) |")
	require.Contains(t, string(md), "## SRG against SGD: time to accuracy")

	csvb, err := os.ReadFile(filepath.Join(out, "curves.csv"))
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSpace(string(csvb)), "\n")
	require.Equal(t, "experiment,schedule,method,epochs,seconds,log10_err,log10_err_min,log10_err_max,alpha,seconds_in_run,"+
		"log10_subopt,log10_subopt_min,log10_subopt_max", lines[0])
	var gen int
	for _, l := range lines[1:] {
		if strings.HasPrefix(l, generatedName+",constant,") {
			gen++
		}
	}
	require.Equal(t, rows, gen, "the CSV holds every checkpoint of the constant-step curves")
}

// The embedded sets parse and are the paper's: by name and size.
func TestLoadEmbeddedDatasets(t *testing.T) {
	ds, err := loadDatasets(config{}, sizes{dataRuns: 1, dataEpochs: 1})
	require.NoError(t, err)
	require.Len(t, ds, 2)
	for _, d := range ds {
		require.True(t, d.Paper, d.Name)
		require.Equal(t, "embedded", d.Source)
		require.Equal(t, paperSets[d.Name], d.data.Len())
	}
	// A -libsvm set named like a paper's set but of another size is not the paper's.
	path := writeLibsvm(t, strings.Repeat("+1 1:1\n-1 2:1\n", 100))
	ds, err = loadDatasets(config{data: dataFlags{{"mushrooms", path}}}, sizes{})
	require.NoError(t, err)
	require.False(t, ds[0].Paper)
}

// reach interpolates between the checkpoints around a level and is NaN
// when the level is never reached.
func TestReach(t *testing.T) {
	c := srg.Curve{Evals: []float64{0, 1, 2}, Seconds: []float64{0, 10, 30}, Log10Err: []float64{0, -1, -3}}
	e, s := reach(c, -2)
	require.InDelta(t, 1.5, e, 1e-12)
	require.InDelta(t, 20, s, 1e-12)
	e, s = reach(c, 0)
	require.Zero(t, e)
	require.Zero(t, s)
	e, s = reach(c, -4)
	require.True(t, math.IsNaN(e) && math.IsNaN(s))
}

// long runs the heavier checks: the whole conformance kit on every backend
// (CI runs it: go test ./cmd/srgreport -long).
var long = flag.Bool("long", false, "run the conformance kit itself on every backend (about 40 s of CPU)")

// checkSmallConformance runs the conformance stage on 10 small states and
// checks what it found on each backend; kit is what the kit's verdict on
// each backend should read.
func checkSmallConformance(t *testing.T, kit func(b backends.Backend) (mapMode, lawMode string)) {
	t.Helper()
	pr := newProgress(io.Discard, false)
	conf, diff := checkConformance(5, 10, 12, 150, pr)
	require.Len(t, conf, len(backends.Every()))
	require.Equal(t, conformanceUnits(len(backends.Every()), 10), pr.total, "the stage counts what the plan announces")
	for k, c := range conf {
		b := backends.Every()[k]
		require.Equal(t, b.Name, c.Backend)
		require.Equal(t, b.Guarantee(), c.Guarantee)
		mapMode, lawMode := kit(b)
		require.Equal(t, mapMode, c.Kit, c.Backend)
		require.Equal(t, lawMode, c.LawKit, c.Backend)
		require.Equal(t, 10, c.States)
		require.Equal(t, 5, c.NearCutoff, "every other state is near the cutoff")
		require.Greater(t, c.Checks, 10*7, "edge bounds plus random ones per state")
		require.Zero(t, c.Failures, c.FirstFailure)
	}
	require.Equal(t, 10, diff.States)
	require.Equal(t, 5, diff.NearCutoff)
	require.Positive(t, diff.Samples)
	// The probes sit at interval edges on purpose, where the exact map's
	// item and a backend's may differ within the contract's tolerance; most
	// draws are not there.
	require.Greater(t, diff.ExactItems, diff.Samples*9/10)
	require.Zero(t, diff.Failures, diff.FirstFailure)
}

// The whole kit passes on every backend: the map mode on the map-exact
// ones, the law mode on the law-exact ones. Heavy: -long.
func TestConformanceKit(t *testing.T) {
	if !*long {
		t.Skip("the whole conformance kit on every backend: -long (internal/backends runs it too)")
	}
	checkSmallConformance(t, func(b backends.Backend) (string, string) {
		if b.MapExact() {
			return "pass", "by the map mode"
		}
		return "law-exact: no map", "pass"
	})
}

// The stage runs the kit's map mode on each map-exact backend and its law
// mode on each law-exact one, once each, and reports a failing kit's
// message as that backend's verdict (here: kits that fail on the first
// backend of each kind), then checks every state against the oracle.
func TestConformanceSmall(t *testing.T) {
	calls := map[string]int{}
	defer func(m func(samplertest.New) error, l func(samplertest.NewDist) error) { mapKit, lawKit = m, l }(mapKit, lawKit)
	firstMap, firstLaw := "", ""
	for _, b := range backends.Every() {
		if b.MapExact() && firstMap == "" {
			firstMap = b.Name
		}
		if !b.MapExact() && firstLaw == "" {
			firstLaw = b.Name
		}
	}
	require.NotEmpty(t, firstMap)
	require.NotEmpty(t, firstLaw)
	// A backend is known by the type of the sampler it makes.
	byType := map[string]string{}
	for _, b := range backends.Every() {
		byType[fmt.Sprintf("%T", b.Dist(1))] = b.Name
	}
	require.Len(t, byType, len(backends.Every()), "each backend has a type of its own")
	mapKit = func(nw samplertest.New) error {
		n := byType[fmt.Sprintf("%T", nw(1))]
		calls["map "+n]++
		if n == firstMap {
			return errors.New("StateMachine: planted")
		}
		return nil
	}
	lawKit = func(nd samplertest.NewDist) error {
		n := byType[fmt.Sprintf("%T", nd(1))]
		calls["law "+n]++
		if n == firstLaw {
			return errors.New("ChiSquare: planted")
		}
		return nil
	}
	checkSmallConformance(t, func(b backends.Backend) (string, string) {
		switch {
		case b.Name == firstMap:
			return "StateMachine: planted", "by the map mode"
		case b.MapExact():
			return "pass", "by the map mode"
		case b.Name == firstLaw:
			return "law-exact: no map", "ChiSquare: planted"
		}
		return "law-exact: no map", "pass"
	})
	for _, b := range backends.Every() {
		mode := "law "
		if b.MapExact() {
			mode = "map "
		}
		require.Equal(t, 1, calls[mode+b.Name], "%s kit once on %s", mode, b.Name)
	}
	require.Len(t, calls, len(backends.Every()), "no other kit runs")
}

func TestDrawStateDeterministic(t *testing.T) {
	a, b := drawState(1, 3, 50), drawState(1, 3, 50)
	require.Equal(t, a, b, "the same seed draws the same state")
	require.NotEmpty(t, a.keys)
	require.LessOrEqual(t, len(a.keys), 50)
	n := float64(len(a.keys))
	for _, e := range a.eps {
		require.True(t, e >= 0 && e <= 1/n, "ε = %v valid for n = %v", e, n)
	}
	for _, u := range a.us {
		require.True(t, u >= 0 && u < 1)
	}
}

// clock is a settable clock, safe for the progress goroutine.
type clock struct{ ns atomic.Int64 }

func (c *clock) now() time.Time          { return time.Unix(0, c.ns.Load()) }
func (c *clock) advance(d time.Duration) { c.ns.Add(int64(d)) }
func newClock(t0 time.Time) *clock       { c := &clock{}; c.ns.Store(t0.UnixNano()); return c }
func (c *clock) progress(w io.Writer, tty bool) *progress {
	p := newProgress(w, tty)
	p.now = c.now
	return p
}

func TestProgressLines(t *testing.T) {
	var b syncBuffer
	c := newClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	p := c.progress(&b, false)
	p.Start("scaling", 4)
	require.Contains(t, p.line(), "ETA ?")
	p.Step()
	c.advance(10 * time.Second)
	line := p.line()
	require.Contains(t, line, "scaling")
	require.Contains(t, line, "[######..................] 1/4")
	require.Contains(t, line, "ETA 30s", "three units left at 10 s each")
	p.tick()
	require.Empty(t, b.String(), "no plain line before 15 s")
	c.advance(6 * time.Second)
	p.tick()
	p.tick()
	require.Equal(t, 1, strings.Count(b.String(), "\n"), "one plain line, however often it ticks: %q", b.String())
	require.Contains(t, b.String(), "srgreport: scaling        [######..................] 1/4 16s ETA 48s\n")
	p.Done("ok")
	require.True(t, strings.HasSuffix(b.String(), "srgreport: scaling done in 16.0s (ok)\n"), b.String())

	// Before any unit is done, the ETA comes from the stage's expected length.
	p.expects = map[string]time.Duration{"claims": time.Minute}
	p.Start("claims", 1)
	c.advance(20 * time.Second)
	require.Contains(t, p.line(), "ETA about 40s")
	p.total = 100
	p.Step()
	require.Contains(t, p.line(), "ETA about 40s", "one unit of 100 is too few for a rate")
	c.advance(time.Minute)
	require.Contains(t, p.line(), "ETA 2h12m0s", "past the plan, the rate: 80 s a unit")
	p.Done("")
	p.Start("claims", 1)
	c.advance(2 * time.Minute)
	require.Contains(t, p.line(), "longer than the expected 1m0s")
	p.Done("")

	var tb syncBuffer
	tp := frozen(&tb, true)
	tp.Start("claims", 1)
	tp.Step()
	tp.Done("")
	require.True(t, strings.HasPrefix(tb.String(), "\r"), "a terminal gets carriage-return redraws")
	require.True(t, strings.HasSuffix(tb.String(), "claims done in 0s\n"))
}

// syncBuffer is a bytes.Buffer safe for the progress goroutine.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// The run says at the start what will run and roughly for how long, and at
// the end every file it wrote, PNG copies included, one a line on stdout
// (the progress goes elsewhere: stderr).
func TestRunAnnouncesPlanAndFiles(t *testing.T) {
	out, png := t.TempDir(), t.TempDir()
	cfg := config{out: out, pngDir: png, seed: 3, sampler: "btree", experiments: true, override: &tiny}
	var b syncBuffer
	var stdout bytes.Buffer
	pr := frozen(&b, false)
	pr.results = &stdout
	require.NoError(t, run(cfg, pr))
	log := b.String()
	first, _, _ := strings.Cut(log, "\n")
	require.Contains(t, first, "full run, seed 3, report into "+out+": about ")
	for _, stage := range []string{"synthetic", "data set generated", "timing generated"} {
		require.Regexp(t, "\n  "+stage+" +about ", log)
		require.Contains(t, log, "srgreport: "+stage+" done in ")
	}
	require.Less(t, strings.Index(log, "about"), strings.Index(log, "done in"), "the plan comes first")
	require.Regexp(t, `srgreport: wrote \d+ files in .* \(listed on stdout\)\n$`, log)
	require.NotContains(t, log, filepath.Join(out, "index.md"), "no file list among the progress")
	files := strings.Split(strings.TrimSuffix(stdout.String(), "\n"), "\n")
	for _, f := range []string{"index.md", "summary.json", "curves.csv", "figure1.svg", "figure1-seconds.svg", "figure1-suboptimality.svg"} {
		require.Contains(t, files, filepath.Join(out, f))
	}
	pngs, err := filepath.Glob(filepath.Join(png, "*.png"))
	require.NoError(t, err)
	require.NotEmpty(t, pngs)
	for _, p := range pngs {
		require.Contains(t, files, p, "every PNG is listed")
	}
	require.Regexp(t, fmt.Sprintf(`wrote %d files`, len(files)), log)
	for _, f := range files {
		_, err := os.Stat(f)
		require.NoError(t, err, "listed files exist")
	}
}

func TestFmtDuration(t *testing.T) {
	for _, c := range []struct {
		d    time.Duration
		want string
	}{
		{0, "0s"},
		{time.Millisecond, "< 0.1s"},
		{49 * time.Millisecond, "< 0.1s"},
		{200 * time.Millisecond, "0.2s"},
		{12345 * time.Millisecond, "12.3s"},
		{90 * time.Second, "1m30s"},
		{time.Hour + 400*time.Millisecond, "1h0m0s"},
	} {
		require.Equal(t, c.want, fmtDuration(c.d), "%v", c.d)
	}
}

// -replace switches the data-set runs to draws with replacement, and the
// report says so where it states the protocol.
func TestReplaceFlag(t *testing.T) {
	cfg, err := parseFlags([]string{"-replace"}, io.Discard)
	require.NoError(t, err)
	require.True(t, cfg.replace)
	out := t.TempDir()
	cfg = config{out: out, seed: 3, sampler: "ost", experiments: true, override: &tiny, replace: true}
	require.NoError(t, run(cfg, frozen(io.Discard, false)))
	md, err := os.ReadFile(filepath.Join(out, "index.md"))
	require.NoError(t, err)
	require.Contains(t, string(md), "- data-set mini-batches: with replacement (`-replace`; not the paper's protocol)")
	require.Contains(t, string(md), "drawn with replacement (`-replace`; the paper draws without)")
}

// A set above bigSet examples runs a quarter of the default epochs, unless
// -epochs is given.
func TestBigSetEpochs(t *testing.T) {
	var b strings.Builder
	for i := range bigSet + 1 {
		fmt.Fprintf(&b, "%d 1:%d\n", 2*(i%2)-1, i%7+1)
	}
	path := writeLibsvm(t, b.String())
	sz := sizes{dataRuns: 1, dataEpochs: 200}
	ds, err := loadDatasets(config{data: dataFlags{{"big", path}}}, sz)
	require.NoError(t, err)
	require.Equal(t, 50, ds[0].Epochs)
	ds, err = loadDatasets(config{data: dataFlags{{"big", path}}, epochs: 200}, sz)
	require.NoError(t, err)
	require.Equal(t, 200, ds[0].Epochs)
}

// The tickers: round steps on linear axes, powers of ten on log axes.
func TestTicks(t *testing.T) {
	var labels []string
	for _, tk := range (niceTicks{}).Ticks(0, 60) {
		if tk.Label != "" {
			labels = append(labels, tk.Label)
		}
	}
	require.Equal(t, []string{"0", "10", "20", "30", "40", "50", "60"}, labels)
	labels = nil
	for _, tk := range (pow10Ticks{}).Ticks(250, 1.1e6) {
		if tk.Label != "" {
			labels = append(labels, tk.Label)
		}
	}
	require.Equal(t, []string{"10³", "10⁴", "10⁵", "10⁶"}, labels)
	// Less than two powers of ten: the multiples 1, 2 and 5, plain.
	labels = nil
	for _, tk := range (pow10Ticks{}).Ticks(90, 700) {
		if tk.Label != "" {
			labels = append(labels, tk.Label)
		}
	}
	require.Equal(t, []string{"100", "200", "500"}, labels)
	labels = nil
	for _, tk := range (pow10Ticks{}).Ticks(0.0013, 0.009) {
		if tk.Label != "" {
			labels = append(labels, tk.Label)
		}
	}
	require.Equal(t, []string{"0.002", "0.005"}, labels)
	require.Equal(t, "⁻¹²", superscript(-12))
}

// independentStep returns 1/(2𝓛) for logistic regression with μ = 1/n on
// ds (rows of unit norm) and mini-batches of m, from the paper's formulas:
// Lmax = 1/4 + μ, L = λ_max(AᵀA/n)/4 + μ (by power iteration here), and
// 𝓛 = (n − m)/(m(n − 1))·Lmax + n(m − 1)/(m(n − 1))·L.
func independentStep(ds *libsvm.Dataset, m int) float64 {
	n, d := ds.Len(), ds.Dim()
	mu := 1 / float64(n)
	v := make([]float64, d)
	for j := range v {
		v[j] = 1
	}
	lambda := 0.0
	for range 2000 {
		w := make([]float64, d)
		for i := range n {
			idx, val := ds.Row(i)
			dot := 0.0
			for k, j := range idx {
				dot += val[k] * v[j]
			}
			for k, j := range idx {
				w[j] += val[k] * dot / float64(n)
			}
		}
		norm := 0.0
		for _, x := range w {
			norm += x * x
		}
		norm = math.Sqrt(norm)
		lambda = norm
		for j := range w {
			v[j] = w[j] / norm
		}
	}
	lmax, l := 0.25+mu, lambda/4+mu
	nf, mf := float64(n), float64(m)
	bigL := (nf-mf)/(mf*(nf-1))*lmax + nf*(mf-1)/(mf*(nf-1))*l
	return 1 / (2 * bigL)
}

// The plan counts the backends the conformance stage checks (every
// backend, law-exact ones included) and announces the steps its progress
// counts (conformanceUnits, which TestConformanceSmall ties to the stage).
func TestPlanCountsConformance(t *testing.T) {
	nb := len(backends.Every())
	require.Greater(t, nb, len(backends.All), "the law-exact backends are checked too")
	stages := plan(config{conformance: true}, sizes{states: 60}, nil)
	require.Len(t, stages, 1)
	require.Equal(t, fmt.Sprintf("%d backends: the kit on each, then 60 states on all (%d steps)", nb, 2*nb+60), stages[0].what)
}

// countingProgress is a progress whose units done are recorded as they are
// set, stage by stage.
type countingProgress struct {
	mu    sync.Mutex
	steps map[string][]int
}

// The progress of a data set's stage and of the synthetic stage moves with
// every run, not once at the end: each unit (x*, then every run; for the
// synthetic stage also every other seed's r) is counted once, in order,
// and the last is the stage's total.
func TestProgressInsideStages(t *testing.T) {
	var b syncBuffer
	pr := frozen(&b, false)
	c := &countingProgress{steps: map[string][]int{}}
	pr.observe = func(stage string, done, total int) {
		c.mu.Lock()
		defer c.mu.Unlock()
		require.LessOrEqual(t, done, total, stage)
		c.steps[stage] = append(c.steps[stage], done)
	}
	sz := tiny
	sz.dataRuns = 2
	cfg := config{out: t.TempDir(), seed: 3, sampler: "btree", experiments: true, override: &sz}
	require.NoError(t, run(cfg, pr))
	want := func(total int) []int {
		var out []int
		for k := 1; k <= total; k++ {
			out = append(out, k)
		}
		return out
	}
	require.Equal(t, want(1+8*sz.dataRuns), c.steps["data set "+generatedName], "x* and the 8 curves' runs")
	require.Equal(t, want(1+2*sz.synthRuns+sz.ratioSeeds), c.steps["synthetic"], "x*, the runs, the other seeds")
}

// The time the command announces for a quick run of the embedded sets is
// held to the one measured in docs/report.md (How long it takes), which
// the README links to: the announcement is rough, and says a busy machine
// can take twice as long, so the two agree within a factor of two.
func TestPlanMatchesDocumentedTime(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "report.md"))
	require.NoError(t, err)
	row := regexp.MustCompile("(?m)^\\| `-quick` \\| (\\d+) min (\\d+) s \\|").FindStringSubmatch(string(doc))
	require.NotNil(t, row, "docs/report.md gives the quick run's wall-clock time")
	mins, _ := strconv.Atoi(row[1])
	secs, _ := strconv.Atoi(row[2])
	measured := time.Duration(60*mins+secs) * time.Second
	cfg, err := parseFlags([]string{"-quick"}, io.Discard)
	require.NoError(t, err)
	sz := cfg.sizes()
	sets, err := loadDatasets(cfg, sz)
	require.NoError(t, err)
	var total time.Duration
	for _, s := range plan(cfg, sz, sets) {
		total += s.expect
	}
	ratio := total.Seconds() / measured.Seconds()
	require.True(t, 0.5 <= ratio && ratio <= 2,
		"the quick run's announced %s against the %s docs/report.md measured", total, measured)
}
