package main

import (
	"bytes"
	"flag"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/reweighted/reweighted"
	"github.com/reweighted/reweighted/samplertest"
	"github.com/stretchr/testify/require"
)

var long = flag.Bool("long", false, "run the checker at its default sizes on every reference program")

// ref is the Go reference program, built once by TestMain.
var ref string

func TestMain(m *testing.M) {
	flag.Parse()
	dir, err := os.MkdirTemp("", "samplercheck")
	if err != nil {
		panic(err)
	}
	ref = filepath.Join(dir, "refsampler")
	gobin, err := exec.LookPath("go")
	if err != nil {
		panic("the go command builds the reference program: " + err.Error())
	}
	build := exec.Command(gobin, "build", "-o", ref, "./internal/refsampler")
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		panic("building the reference program: " + err.Error())
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// check runs the checker with args and returns its exit code and output.
// Runs at small sizes: each property is a few rapid cases and χ² tests of
// a few thousand draws, enough to catch every planted bug below.
func check(t *testing.T, args ...string) (int, string) {
	t.Helper()
	var out, errs bytes.Buffer
	if !*long {
		args = append([]string{"-checks", "5", "-steps", "10", "-draws", "2000", "-massdraws", "20000", "-seed", "7"}, args...)
	}
	code := run(args, &out, &errs)
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("samplercheck %s:\n%s%s", strings.Join(args, " "), out.String(), errs.String())
		}
	})
	return code, out.String()
}

// statusRE matches a property's line of the report.
var statusRE = regexp.MustCompile(`(?m)^(PASS|FAIL|SKIP|NOT RUN)\s+(\w+)`)

// statuses returns the status of each property the report names.
func statuses(out string) map[string]string {
	m := map[string]string{}
	for _, s := range statusRE.FindAllStringSubmatch(out, -1) {
		m[s[2]] = s[1]
	}
	return m
}

// requireAllPass asserts a clean run: exit 0 and every property of the
// kit's mode either passed or was skipped as not for a program.
func requireAllPass(t *testing.T, code int, out string, names []string) {
	t.Helper()
	require.Equal(t, 0, code, "exit code")
	got := statuses(out)
	for _, name := range names {
		want := "PASS"
		if notForPrograms[name] != "" {
			want = "SKIP"
		}
		require.Equal(t, want, got[name], "property %s", name)
	}
	require.Contains(t, out, "\nPASS\n")
}

func mapNames() []string {
	var names []string
	for _, c := range samplertest.Checks() {
		names = append(names, c.Name)
	}
	return names
}

func lawNames() []string {
	var names []string
	for _, c := range samplertest.LawChecks() {
		names = append(names, c.Name)
	}
	return names
}

// Property: the checks left out name checks of the kit, so that a renamed
// check is not run by mistake, and every other check runs.
func TestNotForProgramsNamesKitChecks(t *testing.T) {
	all := append(mapNames(), lawNames()...)
	for name := range notForPrograms {
		require.Contains(t, all, name)
	}
}

func TestGoMapReferencePasses(t *testing.T) {
	code, out := check(t, "--", ref)
	requireAllPass(t, code, out, mapNames())
	require.Contains(t, out, "a sampler of the map kind")
}

func TestGoLawReferencePasses(t *testing.T) {
	code, out := check(t, "--", ref, "-kind", "law")
	requireAllPass(t, code, out, lawNames())
	require.Contains(t, out, "a sampler of the law kind")
}

// The Python reference program speaks version 1 and exits when asked in
// version 2: it is asked again in version 1, and passes.
func TestPythonReferencePasses(t *testing.T) {
	python := python3(t, "refsampler.py")
	code, out := check(t, "--", python, filepath.Join("testdata", "refsampler.py"))
	requireAllPass(t, code, out, mapNames())
	require.Contains(t, out, "samplercheck: protocol 1, a sampler of the map kind")
}

// python3 returns the path of python3, or skips the test, which checks
// the program of testdata named, when it is not on PATH.
func python3(t *testing.T, program string) string {
	t.Helper()
	python, err := exec.LookPath("python3")
	if err != nil {
		t.Skipf("python3 is not on PATH: the Python program testdata/%s is not checked", program)
	}
	return python
}

func weightedNames() []string {
	var names []string
	for _, c := range samplertest.WeightedChecks() {
		names = append(names, c.Name)
	}
	return names
}

// The exact sum tree in Python passes every check of the weighted kind;
// with --only find or --only draw, the checks of the other are skipped,
// and the report says so.
func TestPythonSumTreePasses(t *testing.T) {
	python := python3(t, "sumtree.py")
	code, out := check(t, "--", python, filepath.Join("testdata", "sumtree.py"))
	requireAllPass(t, code, out, weightedNames())
	require.Contains(t, out, "a sampler of the weighted kind")
	require.Contains(t, out, "the program does find: yes; draw: yes")
	for only, skipped := range map[string]string{"find": "ChiSquare", "draw": "FindEdges"} {
		code, out := check(t, "-run", "^(Kind|ChiSquare|FindEdges)$", "--", python, filepath.Join("testdata", "sumtree.py"), "--only", only)
		require.Equal(t, 0, code, "exit code with --only %s", only)
		require.Contains(t, out, "no (ErrUnsupported: its checks are skipped)")
		require.Equal(t, "SKIP", statuses(out)[skipped], "--only %s", only)
		require.Equal(t, "PASS", statuses(out)["Kind"], "--only %s", only)
	}
}

// The sum tree of the replay tutorials fails, by the properties that name
// its bugs: its find maps u to the wrong items when the capacity is not a
// power of two, and its draws follow another law; padded to a power of
// two, its total drifts from the exact sum once a weight of 1e20 is set
// and set back, and its find returns items of weight 0.
func TestPythonReplaySumTreeFails(t *testing.T) {
	python := python3(t, "sumtree_replay.py")
	for _, c := range []struct {
		args  []string
		fails map[string]string // property → a pattern of what its report says
	}{
		{nil, map[string]string{
			"Capacities": `Find\(0\) = 1, whose exact interval .* \(not index order, or sums off\)`,
			"ChiSquare":  `Draw's law is not a_i/Σa`,
			"Masses":     `masses are off \(the most off first\)`,
		}},
		{[]string{"--pow2"}, map[string]string{
			"Drift": `Total\(\) = 0, exact sum 1.03.*\(a sum kept in float32, or by adding deltas\?\)`,
			"Edges": `Find\(0.999\) = 4, an item of weight 0`,
		}},
	} {
		var names []string
		for name := range c.fails {
			names = append(names, name)
		}
		args := append([]string{"-run", "^(" + strings.Join(names, "|") + ")$", "--", python, filepath.Join("testdata", "sumtree_replay.py")}, c.args...)
		code, out := check(t, args...)
		require.Equal(t, 1, code, "exit code")
		got := statuses(out)
		for name, says := range c.fails {
			require.Equal(t, "FAIL", got[name], "property %s, %v", name, c.args)
			section := out[strings.Index(out, "FAIL     "+name+" "):]
			if k := statusRE.FindStringIndex(section[1:]); k != nil {
				section = section[:k[0]+1]
			}
			require.Regexp(t, says, section, "the report of %s, %v", name, c.args)
		}
	}
}

// The Python law sampler passes (with -long: a run of the law kind's
// checks costs a Python program about a minute); with its tail drawn 2%
// too often (the tail's mass 1% high on the first case, prob still
// right) it passes ChiSquare and BatchChiSquare and fails Masses by the
// tail, at -massdraws 10^6.
func TestPythonLawSampler(t *testing.T) {
	if !*long {
		t.Skip("with -long: the law kind's checks on a Python program take about a minute")
	}
	python := python3(t, "lawsampler.py")
	program := filepath.Join("testdata", "lawsampler.py")
	code, out := check(t, "--", python, program)
	requireAllPass(t, code, out, lawNames())
	code, out = check(t, "-run", "^(ChiSquare|BatchChiSquare|Masses)$", "-massdraws", "1000000", "--", python, program, "--tail-bias", "0.02")
	require.Equal(t, 1, code)
	got := statuses(out)
	require.Equal(t, "PASS", got["ChiSquare"])
	require.Equal(t, "PASS", got["BatchChiSquare"])
	require.Equal(t, "FAIL", got["Masses"])
	require.Regexp(t, `masses are off \(the most off first\):\s+the tail \(ranks 9 to 24\)`, out)
}

// A crashed program's standard error is printed once, indented.
func TestCrashPrintedOnce(t *testing.T) {
	code, out := check(t, "-run", "^Edges$", "--", ref, "-bug", "crash")
	require.Equal(t, 1, code)
	require.Equal(t, 1, strings.Count(out, "refsampler: a planted crash"), out)
	require.Contains(t, out, "  | refsampler: a planted crash")
}

// A property that runs longer than progressEvery says so on standard
// error.
func TestProgress(t *testing.T) {
	old := progressEvery
	progressEvery = 0
	defer func() { progressEvery = old }()
	var out, errs bytes.Buffer
	require.Equal(t, 0, run([]string{"-checks", "2", "-run", "^Edges$", "--", ref}, &out, &errs), out.String())
	require.Regexp(t, `samplercheck: Edges running, \d+s, \d+ requests`, errs.String())
}

// Each planted bug fails the properties that target it, with the
// message of the check: the exact oracle's answer against the program's.
func TestPlantedBugsAreCaught(t *testing.T) {
	for _, c := range []struct {
		bug, run string
		fails    map[string][]string // property → patterns of what its report says
	}{
		{"float-rho", "NearCutoff", map[string][]string{
			// Three keys within an ulp of the cutoff: exact ρ = 2, the
			// float predicate says 4.
			"NearCutoffRegression": {"expected: 2", "actual  : 4"},
			"NearCutoff":           {`exact (ρ|λ|p\*)|want item`, "smallest failing case"},
		}},
		{"tail-p", "Edges|ChiSquare", map[string][]string{
			"Edges": {`Sample\(.*\) = .*(with p = |but Prob)`},
		}},
		{"rejected-set", "BadInput", map[string][]string{
			"BadInput": {`Set\(0, 0.76·MaxSum\) beside MaxSum/4 changed the sampler`},
		}},
		{"tail-slice", "Edges|DrawsRankRho|ChiSquare", map[string][]string{
			"Edges":     {"away from its interval; want item"},
			"ChiSquare": {"χ² = "},
		}},
	} {
		t.Run(c.bug, func(t *testing.T) {
			code, out := check(t, "-run", c.run, "--", ref, "-bug", c.bug)
			require.Equal(t, 1, code, "exit code")
			got := statuses(out)
			for name, says := range c.fails {
				require.Equal(t, "FAIL", got[name], "property %s", name)
				section := out[strings.Index(out, "FAIL     "+name+" "):]
				if k := statusRE.FindStringIndex(section[1:]); k != nil {
					section = section[:k[0]+1]
				}
				for _, s := range says {
					require.Regexp(t, s, section, "the report of %s", name)
				}
				require.Contains(t, section, "the last requests before the failure")
			}
		})
	}
	// The failing rapid properties wrote no fail file.
	_, err := os.Stat(filepath.Join("testdata", "rapid"))
	require.True(t, os.IsNotExist(err), "testdata/rapid exists: %v", err)
}

// A program that breaks the protocol fails with the request named and
// what went wrong; one that hangs stops the run, which ends.
func TestProtocolBreaks(t *testing.T) {
	for _, c := range []struct {
		bug  string
		says []string
	}{
		{"crash", []string{"the program exited (exit status 3)", "refsampler: a planted crash"}},
		{"hang", []string{"no answer within 1s"}},
		{"garbage", []string{`malformed answer "hello"`}},
		{"off-protocol", []string{`has "lambda", out of protocol (want the keys`}},
	} {
		t.Run(c.bug, func(t *testing.T) {
			code, out := check(t, "-timeout", "1s", "-run", "^(Edges|BadInput)$", "--", ref, "-bug", c.bug)
			require.Equal(t, 1, code, "exit code")
			require.Equal(t, "FAIL", statuses(out)["Edges"])
			require.Regexp(t, `the program broke the protocol: request \{"op":"\w+"`, out)
			for _, s := range c.says {
				require.Contains(t, out, s)
			}
			if c.bug == "hang" {
				require.Equal(t, "NOT RUN", statuses(out)["BadInput"])
			} else {
				// The next property runs on a fresh copy, which breaks
				// at its own 200th request.
				require.Equal(t, "FAIL", statuses(out)["BadInput"])
			}
		})
	}
}

func TestProgramThatCannotStart(t *testing.T) {
	code, out := check(t, "--", filepath.Join(t.TempDir(), "no such program"))
	require.Equal(t, 1, code)
	require.Contains(t, out, "FAIL     kind: the program broke the protocol")
	require.Contains(t, out, "cannot start")
}

func TestBadCommandLine(t *testing.T) {
	for _, args := range [][]string{{}, {"-checks", "0", "--", ref}, {"-run", "(", "--", ref}, {"-nosuchflag"}} {
		var out, errs bytes.Buffer
		require.Equal(t, 2, run(args, &out, &errs), "samplercheck %v", args)
		require.NotEmpty(t, errs.String())
	}
}

// Samplers that share one copy of the program are restored by replaying
// their history, rejected sets included, and answer as naive does.
func TestReplay(t *testing.T) {
	g := NewProgram([]string{ref}, 10*time.Second)
	defer g.Close()
	g.pool = 1
	a := mapSampler{g.newBase(3)}
	require.NoError(t, a.Set(0, 2))
	b := mapSampler{g.newBase(2)}
	require.NoError(t, b.Set(1, 5))
	require.ErrorIs(t, a.Set(1, math.NaN()), reweighted.ErrKey)
	require.NoError(t, a.Set(2, 6))
	require.NoError(t, b.Set(0, 1))
	before := g.count
	rho, lambda, err := a.Solve(0.25)
	require.NoError(t, err)
	// Keys 2, 0, 6 at ε = 1/4: rank 2 fails 2·(1 − 1/4) ≥ 8/4, so ρ = 1
	// and λ = 6/(1 − 2/4).
	require.Equal(t, 1, rho)
	require.Equal(t, 12.0, lambda)
	require.Equal(t, 5, g.count-before, "new, the three sets of a, then solve")
	p, err := b.Prob(0, 0)
	require.NoError(t, err)
	require.Equal(t, 1.0/6, p)
	require.Equal(t, []float64{2, 0, 6}, a.keys)
}

// A program that answers a replayed set otherwise than the first time
// breaks the protocol.
func TestReplayMismatch(t *testing.T) {
	g := NewProgram([]string{ref, "-bug", "forgetful"}, 10*time.Second)
	defer g.Close()
	g.pool = 1
	a := mapSampler{g.newBase(3)}
	require.NoError(t, a.Set(0, 2))
	mapSampler{g.newBase(2)}.Len()
	require.PanicsWithError(t, `request {"op":"set","i":0,"a":2}: replayed as set 1 of the sampler's history on a new copy of the program, `+
		`it answered {"error":"ErrKey","message":"reweighted: invalid key: forgotten"}, but {} the first time: `+
		`the program must answer as a function of the requests since new`, func() { _, _, _ = a.Solve(0) })
}

// Answers out of protocol are refused with the reason: values of the wrong
// type, floats that are not float64, unknown error names.
func TestAnswersOutOfProtocol(t *testing.T) {
	req := []byte(`{"op":"solve","eps":0.5}`)
	for resp, says := range map[string]string{
		`{"rho":1.5,"lambda":1}`:        "1.5 is not an integer",
		`{"rho":1,"lambda":"inf"}`:      `"inf" is not a float of the protocol`,
		`{"rho":1,"lambda":1e400}`:      "1e400 is not a float64",
		`{"rho":1,"lambda":null}`:       "null is not a float of the protocol",
		`{"rho":1}`:                     `lacks "lambda"`,
		`[1,2]`:                         "not a JSON object",
		`{"error":"ErrFoo"}`:            `unknown error "ErrFoo"`,
		`{"error":"ErrKey","code":3}`:   `has "code", out of protocol`,
		`{"rho":1,"lambda":1,"rho2":0}`: `has "rho2", out of protocol`,
	} {
		g := NewProgram(nil, time.Second)
		perr := func() (perr *ProtocolError) {
			defer func() { perr, _ = recover().(*ProtocolError) }()
			if err := g.answerError(req, []byte(resp)); err == nil {
				var a struct {
					Rho    jint
					Lambda jfloat
				}
				g.decode(req, []byte(resp), &a, "rho", "lambda")
			}
			return nil
		}()
		require.NotNil(t, perr, "answer %s", resp)
		require.True(t, strings.HasPrefix(perr.Error(), `request {"op":"solve","eps":0.5}: `), perr.Error())
		require.Contains(t, perr.Error(), says, "answer %s", resp)
	}
	g := NewProgram(nil, time.Second)
	var a struct{ Lambda jfloat }
	g.decode(req, []byte(`{"lambda":"-Inf"}`), &a, "lambda")
	require.True(t, math.IsInf(float64(a.Lambda), -1))
	err := g.answerError(req, []byte(`{"error":"ErrEpsilon","message":"ε = 2"}`))
	require.ErrorIs(t, err, reweighted.ErrEpsilon)
	require.ErrorContains(t, err, "ε = 2")
}

// TestRunRestoresFlags: a run sets rapid's flags and the kit's sizes in the
// default flag set, which the command's tests share with the checks they
// run; it must put every one back as it was.
func TestRunRestoresFlags(t *testing.T) {
	names := []string{"rapid.checks", "rapid.steps", "rapid.seed", "rapid.nofailfile",
		"rapid.shrinktime", "samplertest.draws", "samplertest.massdraws"}
	before := map[string]string{}
	for _, n := range names {
		f := flag.Lookup(n)
		require.NotNil(t, f, n)
		before[n] = f.Value.String()
	}
	code, _ := check(t, "-seed", "12345", "-checks", "3", "-draws", "3000", "--", filepath.Join(t.TempDir(), "no-such-program"))
	require.Equal(t, 1, code, "exit code for a program that does not start")
	for _, n := range names {
		require.Equal(t, before[n], flag.Lookup(n).Value.String(), "%s after the run", n)
	}
}
