// Package samplertest is the conformance kit for reweighted.Sampler
// backends, in the spirit of testing/fstest: one call,
//
//	samplertest.Run(t, func(n int) reweighted.Sampler { return mybackend.New(n) })
//
// checks a backend against the contract and against an exact oracle that
// computes Lemma 1 and Algorithm 4 in math/big rational arithmetic, and
// Check does the same outside a test, returning the first failure. The
// oracle, the accuracy checks (Verify), the comparison of two backends item
// for item (Compare), the KKT optimality certificate and the generators of
// hard inputs are exported for other tests to use. A law-exact sampler
// (reweighted.LawSampler, such as levels) runs the law mode:
//
//	samplertest.RunLaw(t, func(n int) reweighted.Distribution { return levels.New(n) })
//
// # Design
//
// RunWeighted (and CheckWeighted outside a test) does the same for the
// third kind, a weighted sampler (reweighted.Weighted: p_i = a_i/Σa in
// index order, the sum trees of prioritised replay), against the exact
// prefix sums in index order (OracleWeighted), probing for Find
// (reweighted.WeightedFinder) and Draw (reweighted.WeightedDrawer).
//
// Like fstest, the kit probes optional methods: a sampler with a
// Check() error method (Checker) has it called after every action of the
// state machine, and one with Load([]float64) error or
// Probs(float64, []float64) ([]float64, error) has those checked too, and
// one built on package driver, with Index() driver.Index, has its index
// checked against exact sums and the exact order (CheckIndex). A sampler
// that can be saved and restored (encoding.BinaryMarshaler, BinaryAppender
// and BinaryUnmarshaler) or copied (Clone, returning its own type) has
// its round trips, its clones' independence and its refusal of bad bytes
// checked.
//
// Two helpers serve a backend's own tests, which see its insides:
// RejectsBadInput compares a deep copy of the structure before and after
// every rejected call, and CheckCatches shows that Check reports each
// invariant the test breaks.
package samplertest

import (
	"errors"
	"flag"
	"fmt"
	"strings"
	"testing"

	"github.com/reweighted/reweighted"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// New makes a sampler of n items, all keys 0.
type New func(n int) reweighted.Sampler

// TB is what the checks need of a test; *testing.T and *rapid.T have it.
type TB = rapid.TB

// Checker is the optional invariant check of a backend: nil if its
// structure is sound, else an error naming the first broken invariant.
type Checker interface{ Check() error }

// The optional methods the kit probes for, besides Checker.
type (
	loader interface{ Load(keys []float64) error }
	prober interface {
		Probs(eps float64, dst []float64) ([]float64, error)
	}
)

// checks is the whole contract, one named check each.
var checks = []struct {
	name string
	run  func(TB, New)
}{
	{"Empty", testEmpty},
	{"NegativeSizePanics", testNegativeSize},
	{"NewIsUniform", testNewIsUniform},
	{"Edges", testEdges},
	{"DrawsRankRho", testDrawsRankRho},
	{"NearCutoffRegression", testNearCutoffRegression},
	{"NearCutoff", property(nearCutoffProperty)},
	{"TinyKeys", property(tinyKeysProperty)},
	{"ExactMaxSum", testExactMaxSum},
	{"NegativeZero", testNegativeZero},
	{"BadInput", testBadInput},
	{"ErrorOrder", testErrorOrder},
	{"Postcondition", property(postcondition)},
	{"StateMachine", property(StateMachine)},
	{"ScaleInvariance", property(scaleInvariance)},
	{"PermutationEquivariance", property(permutation)},
	{"HistoryIndependence", property(history)},
	{"Load", property(loadProperty)},
	{"Probs", property(probsProperty)},
	{"IndexSums", property(indexSumsProperty)},
	{"ConcurrentReads", testConcurrentReads},
	{"ChiSquare", testChiSquare},
	{"ZeroAllocs", testZeroAllocs},
	{"BatchDraw", property(batchDrawProperty)},
	{"BatchDrawFallback", testBatchDrawFallback},
	{"BatchSet", property(batchSetProperty)},
	{"BadBatch", testBadBatch},
	{"BatchZeroAllocs", testBatchZeroAllocs},
	{"SaveRestore", mapSaveRestore},
	{"Clone", mapClone},
	{"BadState", mapBadState},
}

// CheckCatches tests a backend's Check itself: for each case, broken
// returns a sampler, which must pass Check, and a function that breaks one
// invariant of it; Check must then fail with an error that contains
// want[case].
func CheckCatches(t *testing.T, want map[string]string, broken func(name string) (Checker, func())) {
	for name, msg := range want {
		t.Run(name, func(t *testing.T) {
			s, corrupt := broken(name)
			require.NoError(t, s.Check(), "before the corruption")
			corrupt()
			require.ErrorContains(t, s.Check(), msg)
		})
	}
}

func property(p func(New) func(*rapid.T)) func(TB, New) {
	return func(t TB, nw New) { rapid.Check(t, p(nw)) }
}

// Run checks the sampler that newSampler makes against the whole contract,
// one subtest per check.
func Run(t *testing.T, newSampler New) {
	for _, c := range checks {
		t.Run(c.name, func(t *testing.T) { c.run(t, newSampler) })
	}
}

// Check runs the checks of Run outside a test and returns an error naming
// every check that failed, with its first message; nil if all pass.
func Check(newSampler New) error {
	// rapid reads testing.Short, which needs the testing flags registered
	// and the command line parsed; a binary with a flag set of its own has
	// not parsed the default one (parsing no arguments sets nothing).
	testing.Init()
	if !flag.Parsed() {
		_ = flag.CommandLine.Parse(nil)
	}
	var errs []error
	for _, c := range checks {
		if failed := failures("samplertest/"+c.name, c.run, newSampler); len(failed) > 0 {
			errs = append(errs, fmt.Errorf("%s: %s", c.name, strings.Join(strings.Fields(failed[0]), " ")))
		}
	}
	return errors.Join(errs...)
}

// recorder is a TB that records failures and what the check logs (rapid
// logs the draws and the failure of a shrunk case); FailNow ends the check.
type recorder struct {
	name   string
	failed []string
	logs   []string
}

type stop struct{}

// failures runs check against newSampler on a recorder named name and
// returns the failures it recorded, a panic other than FailNow's included.
func failures(name string, check func(TB, New), newSampler New) []string {
	return record(name, check, newSampler).failed
}

// record runs check against newSampler on a recorder named name and
// returns the recorder, a panic other than FailNow's recorded as a failure.
func record(name string, check func(TB, New), newSampler New) (r *recorder) {
	r = &recorder{name: name}
	defer func() {
		if x := recover(); x != nil {
			if _, ok := x.(stop); !ok {
				r.failed = append(r.failed, fmt.Sprint("panic: ", x))
			}
		}
	}()
	check(r, newSampler)
	return r
}

func (r *recorder) Helper()                      {}
func (r *recorder) Name() string                 { return r.name }
func (r *recorder) Logf(format string, a ...any) { r.logs = append(r.logs, fmt.Sprintf(format, a...)) }
func (r *recorder) Log(a ...any)                 { r.logs = append(r.logs, fmt.Sprint(a...)) }
func (r *recorder) Skipf(string, ...any)         { panic(stop{}) }
func (r *recorder) Skip(...any)                  { panic(stop{}) }
func (r *recorder) SkipNow()                     { panic(stop{}) }
func (r *recorder) Errorf(format string, a ...any) {
	r.failed = append(r.failed, fmt.Sprintf(format, a...))
}
func (r *recorder) Error(a ...any)                 { r.failed = append(r.failed, fmt.Sprint(a...)) }
func (r *recorder) Fatalf(format string, a ...any) { r.Errorf(format, a...); r.FailNow() }
func (r *recorder) Fatal(a ...any)                 { r.Error(a...); r.FailNow() }
func (r *recorder) FailNow()                       { panic(stop{}) }
func (r *recorder) Fail()                          { r.failed = append(r.failed, "failed") }
func (r *recorder) Failed() bool                   { return len(r.failed) > 0 }

// NamedCheck is one check of Run: the name of its subtest and the check,
// which runs on any TB (a *testing.T, or a recorder of a program's own).
type NamedCheck struct {
	Name string
	Run  func(TB, New)
}

// NamedLawCheck is one check of RunLaw.
type NamedLawCheck struct {
	Name string
	Run  func(TB, NewDist)
}

// Checks returns the checks of Run, in its order, to run one at a time
// outside a test, as Check does but with the caller's own report.
func Checks() []NamedCheck {
	out := make([]NamedCheck, len(checks))
	for k, c := range checks {
		out[k] = NamedCheck{c.name, c.run}
	}
	return out
}

// LawChecks returns the checks of RunLaw, in its order.
func LawChecks() []NamedLawCheck {
	out := make([]NamedLawCheck, len(lawChecks))
	for k, c := range lawChecks {
		out[k] = NamedLawCheck{c.name, c.run}
	}
	return out
}

// SetDraws sets the number of draws of each χ² test of both modes, as the
// flag -samplertest.draws does (10^5 by default, 20,000 under the race
// detector), for a program that runs the checks outside go test, such as
// one whose sampler lives in another process and draws slowly; fewer draws
// test the law with less power, and fewer than 1000 fail the χ² checks.
// Calls must not run while checks do.
func SetDraws(n int) {
	*drawsFlag = n
}
