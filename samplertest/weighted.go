package samplertest

import (
	"errors"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/reweighted/reweighted"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// NewWeighted makes a weighted sampler of n items, all weights 0.
type NewWeighted func(n int) reweighted.Weighted

// NamedWeightedCheck is one check of RunWeighted.
type NamedWeightedCheck struct {
	Name string
	Run  func(TB, NewWeighted)
}

// weightedChecks is the contract of the weighted kind, one named check
// each. A check that needs Find skips a sampler without it, and one that
// needs Draw skips a sampler without it; Kind fails a sampler with neither.
var weightedChecks = []struct {
	name string
	run  func(TB, NewWeighted)
}{
	{"Kind", weightedKind},
	{"Empty", weightedEmpty},
	{"Edges", weightedEdges},
	{"Capacities", weightedCapacities},
	{"Drift", weightedDrift},
	{"ManyUpdates", weightedManyUpdates},
	{"ExactMaxSum", weightedExactMaxSum},
	{"NegativeZero", weightedNegativeZero},
	{"BadInput", weightedBadInput},
	{"ErrorOrder", weightedErrorOrder},
	{"FindEdges", findEdges},
	{"StateMachine", weightedProperty(WeightedStateMachine)},
	{"ChiSquare", weightedChiSquare},
	{"Masses", weightedMasses},
}

func weightedProperty(p func(NewWeighted) func(*rapid.T)) func(TB, NewWeighted) {
	return func(t TB, nw NewWeighted) { rapid.Check(t, p(nw)) }
}

// RunWeighted checks the weighted sampler that newWeighted makes against
// the contract of the weighted kind, one subtest per check: Len, Key, Set
// and its errors, Total within RelLambda of the exact sum, Find (where the
// sampler is a reweighted.WeightedFinder) map-exact in index order within
// UDist of u and never on an item of weight 0, and Draw (where it is a
// reweighted.WeightedDrawer) by χ² tests against the exact law and never
// an item of weight 0. The histories are those that break sum trees: a
// huge weight set and set back among small ones, many updates, weights
// across the whole float range, subnormals, capacities that are not powers
// of two, u next to 1 and at the edges of the exact intervals, ties and
// near-ties. The checks that need Find or Draw skip a sampler without it,
// and say so; a sampler with neither fails Kind.
func RunWeighted(t *testing.T, newWeighted NewWeighted) {
	for _, c := range weightedChecks {
		t.Run(c.name, func(t *testing.T) { c.run(t, newWeighted) })
	}
}

// CheckWeighted runs the checks of RunWeighted outside a test and returns
// an error naming every check that failed, with its first message; nil if
// all pass (a check skipped for want of Find or Draw is no failure).
func CheckWeighted(newWeighted NewWeighted) error {
	testing.Init()
	if !flag.Parsed() {
		_ = flag.CommandLine.Parse(nil)
	}
	var errs []error
	for _, c := range weightedChecks {
		if failed := weightedFailures("samplertest/"+c.name, c.run, newWeighted); len(failed) > 0 {
			errs = append(errs, fmt.Errorf("%s: %s", c.name, strings.Join(strings.Fields(failed[0]), " ")))
		}
	}
	return errors.Join(errs...)
}

// WeightedChecks returns the checks of RunWeighted, in its order.
func WeightedChecks() []NamedWeightedCheck {
	out := make([]NamedWeightedCheck, len(weightedChecks))
	for k, c := range weightedChecks {
		out[k] = NamedWeightedCheck{c.name, c.run}
	}
	return out
}

// weightedFailures is failures for a check of the weighted kind, followed,
// when it failed, by what it logged: a property's shrunk failure.
func weightedFailures(name string, check func(TB, NewWeighted), nw NewWeighted) []string {
	r := record(name, func(t TB, _ New) { check(t, nw) }, nil)
	if len(r.failed) == 0 {
		return nil
	}
	return append(r.failed, r.logs...)
}

// updatesFlag is the number of updates of ManyUpdates.
var updatesFlag = flag.Int("samplertest.updates", 20_000,
	"updates of the weighted kind's long history (ManyUpdates; 2·10^6 for a long run)")

// SetUpdates sets the number of updates of the weighted kind's long
// history (ManyUpdates), as the flag -samplertest.updates does (20,000 by
// default). Calls must not run while checks do.
func SetUpdates(n int) { *updatesFlag = n }

// weightedMinPValue is the p-value below which a χ² test of the weighted
// kind fails. Its draws come from the sampler's own use of the source, so
// a correct sampler fails one test with probability 1e-8 (in the χ²
// approximation, on cells expected at least 5 times): the kit makes 28,
// under 1e-6 in all.
const weightedMinPValue = 1e-8

// edgesChecked is how many items' edges VerifyWeighted tries in a big
// sampler: every item's up to this many.
const edgesChecked = 1024

// VerifyWeighted checks a weighted sampler holding keys against the exact
// law: Len and Key; Total within RelLambda of the exact sum (or one step
// of the subnormal grid, where the sum is that small); where it has
// Find, Find at every u of us, at NearEdgeU, at the floats nearest each
// item's exact lower edge S_{i−1}/S and either side of them and at the
// middle of its interval (for up to 1024 items spread over the range), each returning an item whose exact
// interval lies within UDist of u and whose weight is above 0; where it
// has Draw, 64 draws, none of an item of weight 0. With no items or every
// weight 0, Total, Find and Draw must return ErrEmpty.
func VerifyWeighted(w reweighted.Weighted, keys []float64, us []float64) error {
	return verifyWeighted(w, OracleWeighted(keys), us, edgesChecked)
}

func verifyWeighted(w reweighted.Weighted, ex *ExactWeighted, us []float64, limit int) error {
	keys := ex.Keys
	n := len(keys)
	if w.Len() != n {
		return fmt.Errorf("Len() = %d, want %d", w.Len(), n)
	}
	for i, a := range keys {
		if got := w.Key(i); math.Float64bits(got) != math.Float64bits(a) {
			return fmt.Errorf("Key(%d) = %v, want %v", i, got, a)
		}
	}
	f, finds := w.(reweighted.WeightedFinder)
	d, draws := w.(reweighted.WeightedDrawer)
	total, err := w.Total()
	if ex.Empty() {
		if !errors.Is(err, reweighted.ErrEmpty) {
			return fmt.Errorf("Total() of %d weights all 0 = %v, %v; want ErrEmpty", n, total, err)
		}
		if finds {
			if i, err := f.Find(0.5); !errors.Is(err, reweighted.ErrEmpty) {
				return fmt.Errorf("Find(0.5) of %d weights all 0 = %d, %v; want ErrEmpty", n, i, err)
			}
		}
		if draws {
			if i, err := d.Draw(rand.NewPCG(1, 2)); !errors.Is(err, reweighted.ErrEmpty) {
				return fmt.Errorf("a draw of %d weights all 0 = %d, %v; want ErrEmpty", n, i, err)
			}
		}
		return nil
	}
	if err != nil {
		return fmt.Errorf("Total(): %w", err)
	}
	if err := ex.CheckTotal(total); err != nil {
		return err
	}
	if finds {
		for _, list := range [][]float64{us, NearEdgeU, ex.EdgeUs(limit)} {
			for _, u := range list {
				i, err := f.Find(u)
				if err != nil {
					return fmt.Errorf("Find(%v): %w", u, err)
				}
				if err := ex.CheckFind(u, i); err != nil {
					return err
				}
			}
		}
	}
	if draws {
		src := rand.NewPCG(uint64(n), 7)
		for range 64 {
			i, err := d.Draw(src)
			if err != nil {
				return fmt.Errorf("a draw: %w", err)
			}
			if i < 0 || i >= n {
				return fmt.Errorf("a draw = %d, an index out of range [0, %d) (a padding leaf?)", i, n)
			}
			if keys[i] == 0 {
				return fmt.Errorf("a draw = %d, an item of weight 0", i)
			}
		}
	}
	return nil
}

// fillWeighted returns a weighted sampler of len(keys) items holding keys,
// set in index order.
func fillWeighted(t TB, nw NewWeighted, keys []float64) reweighted.Weighted {
	w := nw(len(keys))
	for i, a := range keys {
		require.NoError(t, w.Set(i, a), "Set(%d, %v)", i, a)
	}
	return w
}

// Property: the sampler has Find, Draw or both.
func weightedKind(t TB, nw NewWeighted) {
	w := nw(1)
	_, finds := w.(reweighted.WeightedFinder)
	_, draws := w.(reweighted.WeightedDrawer)
	if !finds && !draws {
		t.Fatalf("%T has neither Find(u float64) (int, error) nor Draw(rand.Source) (int, error): nothing to sample with", w)
	}
	if !finds {
		t.Logf("%T has no Find: the checks of Find are skipped", w)
	}
	if !draws {
		t.Logf("%T has no Draw: the checks of Draw are skipped", w)
	}
}

// skipUnless skips the check unless the sampler has what it needs.
func skipUnless(t TB, w reweighted.Weighted, find, draw bool) {
	if _, ok := w.(reweighted.WeightedFinder); find && !ok {
		t.Skipf("%T has no Find", w)
	}
	if _, ok := w.(reweighted.WeightedDrawer); draw && !ok {
		t.Skipf("%T has no Draw", w)
	}
}

// Property: with no items or every weight 0 there is no law: Total, Find
// and Draw return ErrEmpty, and so again once the last weight above 0 is
// set back to 0.
func weightedEmpty(t TB, nw NewWeighted) {
	w := nw(0)
	require.Equal(t, 0, w.Len())
	// ErrEmpty before the index and the weight are checked, as Distribution.Set.
	require.ErrorIs(t, w.Set(0, 1), reweighted.ErrEmpty, "Set(0, 1) with no items")
	require.ErrorIs(t, w.Set(-1, math.NaN()), reweighted.ErrEmpty, "Set(-1, NaN) with no items")
	require.NoError(t, verifyWeighted(w, OracleWeighted(nil), nil, 0), "no items")
	w = nw(3)
	require.NoError(t, verifyWeighted(w, OracleWeighted(make([]float64, 3)), nil, 0), "3 items, all weights 0")
	require.NoError(t, w.Set(1, 2))
	require.NoError(t, verifyWeighted(w, OracleWeighted([]float64{0, 2, 0}), nil, 0))
	require.NoError(t, w.Set(1, 0))
	require.NoError(t, verifyWeighted(w, OracleWeighted(make([]float64, 3)), nil, 0), "a weight set back to 0")
}

// weightedCase is a named vector of weights.
type weightedCase struct {
	name string
	keys []float64
}

// weightedCases are the boundary classes of the weighted kind: zeros at
// the ends and between, exact ties and near-ties, subnormals, weights
// across the whole float range and across 600 binades, weights near
// MaxSum, one heavy weight among light ones.
func weightedCases() []weightedCase {
	rng := rand.New(rand.NewPCG(21, 22))
	spread := make([]float64, 30)
	for i := range spread {
		spread[i] = math.Ldexp(1+rng.Float64(), rng.IntN(16)-8)
	}
	near := make([]float64, 20)
	for i := range near {
		near[i] = math.Nextafter(1.5, float64(1-2*(i%2))*math.Inf(1))
		for range i / 2 {
			near[i] = math.Nextafter(near[i], 3)
		}
	}
	binades := make([]float64, 31)
	for i := range binades {
		binades[i] = math.Ldexp(1+float64(i)/32, 20*i-300)
	}
	heavy := make([]float64, 17)
	for i := range heavy {
		heavy[i] = 1e-3 * float64(1+i%4)
	}
	heavy[3], heavy[11] = 0, 1e20
	return []weightedCase{
		{"one item", []float64{2.5}},
		{"spread", spread},
		{"ties and zeros", []float64{3, 3, 3, 1, 1, 1, 1, 0.5, 0.5, 0, 0, 2, 2}},
		{"zeros at both ends", []float64{0, 0, 1, 0, 2, 0, 0}},
		{"only the last", []float64{0, 0, 0, 0, 0, 5}},
		{"only the first", []float64{5, 0, 0, 0, 0, 0, 0}},
		{"near-ties", near},
		{"600 binades", binades},
		{"whole range", []float64{0x1p-1074, 0x1p-1030, 0x1p-900, 0x1p-300, 1e-20, 1, 1e20, 0x1p300, 0x1p600, 0x1p-1073, 0, 3}},
		{"only subnormals", []float64{5e-324, 0, 5e-324, 1e-323, 0}},
		{"the least subnormal, then zeros", []float64{5e-324, 0, 0}},
		{"subnormals", []float64{5e-324, 1e-323, 2e-323, 0x1p-1050, 0x1p-1030, 0x0.8p-1022, 3e-323, 0}},
		{"near MaxSum", []float64{reweighted.MaxSum / 2, 0, reweighted.MaxSum / 4, 1, reweighted.MaxSum / 8}},
		{"one heavy", heavy},
	}
}

// Property: on every boundary class, Total, Find at every edge and Draw
// agree with the exact law.
func weightedEdges(t TB, nw NewWeighted) {
	for _, c := range weightedCases() {
		w := fillWeighted(t, nw, c.keys)
		require.NoError(t, verifyWeighted(w, OracleWeighted(c.keys), EdgeU, len(c.keys)), c.name)
	}
}

// capacities are sizes that are not powers of two, and a few that are.
var capacities = []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 15, 17, 31, 33, 100, 1000, 1023, 1025}

// Property: at capacities that are not powers of two, with the last items
// 0 (where a padded tree's padding leaves lie next to items of weight 0)
// and with every weight the same, Find returns items in index order,
// never a padding leaf or an item of weight 0.
func weightedCapacities(t TB, nw NewWeighted) {
	for _, n := range capacities {
		for _, shape := range []string{"equal", "zeros last", "zeros between"} {
			keys := make([]float64, n)
			for i := range keys {
				switch shape {
				case "equal":
					keys[i] = 1
				case "zeros last":
					if i < (n+1)/2 {
						keys[i] = float64(1 + i%3)
					}
				default:
					if i%3 != 1 {
						keys[i] = float64(1 + i%5)
					}
				}
			}
			w := fillWeighted(t, nw, keys)
			require.NoError(t, verifyWeighted(w, OracleWeighted(keys), EdgeU, n), "n = %d, %s", n, shape)
		}
	}
}

// Property: a weight of 1e20 set and set back to 1 among weights of 1e-3
// and zeros, at every position in turn, leaves the sampler of the small
// weights: a sum kept by adding the change loses them (drift), and finds
// and draws land on the wrong items, or on items of weight 0.
func weightedDrift(t TB, nw NewWeighted) {
	const n = 19
	keys := make([]float64, n)
	for i := range keys {
		if i%5 != 2 {
			keys[i] = 1e-3 * float64(1+i%4)
		}
	}
	w := fillWeighted(t, nw, keys)
	for i := range n {
		old := keys[i]
		require.NoError(t, w.Set(i, 1e20))
		keys[i] = 1e20
		require.NoError(t, verifyWeighted(w, OracleWeighted(keys), EdgeU, n), "weight %d set to 1e20", i)
		require.NoError(t, w.Set(i, 1))
		keys[i] = 1
		require.NoError(t, verifyWeighted(w, OracleWeighted(keys), EdgeU, n), "weight %d set to 1e20, then to 1", i)
		require.NoError(t, w.Set(i, old))
		keys[i] = old
	}
	require.NoError(t, verifyWeighted(w, OracleWeighted(keys), EdgeU, n), "every weight back where it was")
}

// Property: a long history of updates (-samplertest.updates, 20,000 by
// default) on 1000 items, weights of every kind with a huge one now and
// then, checked every eighth of the way and at the end, each check right
// after a weight 2^60 times the others' sum was set and set back.
func weightedManyUpdates(t TB, nw NewWeighted) {
	const n = 1000
	updates := *updatesFlag
	rng := rand.New(rand.NewPCG(uint64(updates), 23))
	keys := make([]float64, n)
	w := nw(n)
	every := max(1, updates/8)
	for k := range updates {
		i := rng.IntN(n)
		a := KeyFromBits(byte(rng.IntN(6)), rng.Uint64(), n)
		if a > 0x1p730 {
			// Room for the spikes below MaxSum: a sum of at most 2^740,
			// times 2^60.
			a = math.Ldexp(a, -100)
		}
		if rng.IntN(64) == 0 {
			a = 1e20
		}
		if k%every == every-1 || k == updates-1 {
			// Every check right after a spike set back: 2^60 times the
			// sum of the weights (1e20 at least), so that sums kept by
			// adding the change lose every weight, whatever their scale.
			total := 0.0
			for _, b := range keys {
				total += b
			}
			spike := max(1e20, total*0x1p60)
			require.NoError(t, w.Set(i, spike), "update %d: Set(%d, %v)", k, i, spike)
			require.NoError(t, w.Set(i, a))
		} else {
			require.NoError(t, w.Set(i, a), "update %d: Set(%d, %v)", k, i, a)
		}
		keys[i] = a
		if k%every == every-1 || k == updates-1 {
			us := make([]float64, 64)
			for j := range us {
				us[j] = float64(rng.Uint64()>>11) * 0x1p-53
			}
			require.NoError(t, verifyWeighted(w, OracleWeighted(keys), us, 64), "after %d updates", k+1)
		}
	}
}

// Property: the MaxSum check is exact: weights summing to MaxSum exactly
// are taken, and the smallest weight more is refused, with nothing
// changed.
func weightedExactMaxSum(t TB, nw NewWeighted) {
	w := nw(3)
	keys := []float64{reweighted.MaxSum / 2, reweighted.MaxSum / 2, 0}
	for i, a := range keys {
		require.NoError(t, w.Set(i, a))
	}
	require.ErrorIs(t, w.Set(2, math.SmallestNonzeroFloat64), reweighted.ErrKey, "a weight past MaxSum")
	require.ErrorIs(t, w.Set(1, math.Nextafter(reweighted.MaxSum/2, math.Inf(1))), reweighted.ErrKey, "a weight past MaxSum")
	require.NoError(t, verifyWeighted(w, OracleWeighted(keys), EdgeU, 3))
	require.NoError(t, w.Set(1, 0), "room made")
	require.NoError(t, w.Set(0, reweighted.MaxSum))
	require.ErrorIs(t, w.Set(1, math.SmallestNonzeroFloat64), reweighted.ErrKey, "a weight past MaxSum")
	require.NoError(t, verifyWeighted(w, OracleWeighted([]float64{reweighted.MaxSum, 0, 0}), EdgeU, 3))
	// A Set counts the new weight in place of the old one, never beside it.
	require.NoError(t, w.Set(0, reweighted.MaxSum/2), "Set(0, MaxSum/2) over MaxSum")
	require.NoError(t, verifyWeighted(w, OracleWeighted([]float64{reweighted.MaxSum / 2, 0, 0}), EdgeU, 3))
}

// Property: −0 is stored as 0.
func weightedNegativeZero(t TB, nw NewWeighted) {
	w := nw(2)
	require.NoError(t, w.Set(0, 1))
	require.NoError(t, w.Set(1, math.Copysign(0, -1)))
	require.Equal(t, uint64(0), math.Float64bits(w.Key(1)), "Key after Set(1, −0)")
	require.NoError(t, verifyWeighted(w, OracleWeighted([]float64{1, 0}), EdgeU, 2))
}

// weightedSnapshot is what a caller can observe of a weighted sampler
// without drawing: its weights, its total and its finds at EdgeU.
func weightedSnapshot(w reweighted.Weighted) []string {
	var o []string
	for i := range w.Len() {
		o = append(o, fmt.Sprint(math.Float64bits(w.Key(i))))
	}
	t, err := w.Total()
	o = append(o, fmt.Sprint(math.Float64bits(t), err))
	if f, ok := w.(reweighted.WeightedFinder); ok {
		for _, u := range EdgeU {
			i, err := f.Find(u)
			o = append(o, fmt.Sprint(i, err))
		}
	}
	return o
}

// Property: every error is reported with its sentinel and leaves the
// sampler as it was: a bad index, a NaN, infinite or negative weight, one
// that would pass MaxSum, u outside [0, 1) or NaN; and draws leave it as
// it was too.
func weightedBadInput(t TB, nw NewWeighted) {
	w := nw(5)
	keys := []float64{3, 0, 1, 1, reweighted.MaxSum / 4}
	for i, a := range keys {
		require.NoError(t, w.Set(i, a))
	}
	before := weightedSnapshot(w)
	for _, i := range []int{-1, 5, math.MaxInt, math.MinInt} {
		require.ErrorIs(t, w.Set(i, 1), reweighted.ErrIndex, "Set(%d, 1)", i)
	}
	for _, a := range []float64{math.NaN(), math.Inf(1), math.Inf(-1), -1, -5e-324, math.MaxFloat64, reweighted.MaxSum, reweighted.MaxSum * 0.8} {
		require.ErrorIs(t, w.Set(0, a), reweighted.ErrKey, "Set(0, %v)", a)
	}
	if f, ok := w.(reweighted.WeightedFinder); ok {
		for _, u := range []float64{math.NaN(), -1, -5e-324, 1, math.Nextafter(1, 2), 2, math.Inf(1), math.Inf(-1)} {
			_, err := f.Find(u)
			require.ErrorIs(t, err, reweighted.ErrUniform, "Find(%v)", u)
		}
	}
	require.Equal(t, before, weightedSnapshot(w), "a rejected call changed the sampler")
	if d, ok := w.(reweighted.WeightedDrawer); ok {
		src := rand.NewPCG(8, 9)
		for range 100 {
			_, err := d.Draw(src)
			require.NoError(t, err)
		}
		require.Equal(t, before, weightedSnapshot(w), "draws changed the sampler")
	}
	require.NoError(t, verifyWeighted(w, OracleWeighted(keys), EdgeU, 5))
}

// Property: errors come in the contract's order: ErrEmpty first, then the
// arguments in order.
func weightedErrorOrder(t TB, nw NewWeighted) {
	w := nw(3)
	require.ErrorIs(t, w.Set(-1, math.NaN()), reweighted.ErrIndex, "Set(-1, NaN)")
	f, ok := w.(reweighted.WeightedFinder)
	if !ok {
		return
	}
	_, err := f.Find(math.NaN())
	require.ErrorIs(t, err, reweighted.ErrEmpty, "Find(NaN) with every weight 0")
	_, err = nw(0).(reweighted.WeightedFinder).Find(2)
	require.ErrorIs(t, err, reweighted.ErrEmpty, "Find(2) with no items")
	require.NoError(t, w.Set(2, 1))
	_, err = f.Find(math.NaN())
	require.ErrorIs(t, err, reweighted.ErrUniform, "Find(NaN)")
}

// Property: on drawn weights (zeros, ties, subnormals, huge ones), Find at
// the float nearest every edge and either side of it, at the middle of
// every interval and at drawn u returns an item whose exact interval lies
// within UDist of u.
func findEdges(t TB, nw NewWeighted) {
	skipUnless(t, nw(1), true, false)
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(1, 40).Draw(t, "n")
		keys := Keys(n).Draw(t, "keys")
		w := fillWeighted(t, nw, keys)
		us := rapid.SliceOfN(U(), 1, 8).Draw(t, "us")
		require.NoError(t, verifyWeighted(w, OracleWeighted(keys), us, n))
	})
}

// WeightedStateMachine is the model-based property of the weighted kind:
// random sequences of Set (every kind of weight, ties, neighbouring
// floats, zeros, a huge weight and back, weights near MaxSum, rejected
// calls), Find and Draw, on up to 32 items, against a plain slice of
// weights and the exact law. The invariant after every action is that
// Key returns the model's weights and Total the exact sum.
func WeightedStateMachine(nw NewWeighted) func(*rapid.T) { return WeightedStateMachineN(nw, 32) }

// WeightedStateMachineN is WeightedStateMachine on up to maxN items.
func WeightedStateMachineN(nw NewWeighted, maxN int) func(*rapid.T) {
	return func(t *rapid.T) {
		n := rapid.IntRange(1, max(1, maxN)).Draw(t, "n")
		w := nw(n)
		keys := make([]float64, n)
		index := rapid.IntRange(0, n-1)
		set := func(t *rapid.T, i int, a float64) {
			if !fitsExact(keys, i, a) {
				before := weightedSnapshot(w)
				require.ErrorIs(t, w.Set(i, a), reweighted.ErrKey, "Set(%d, %v) past MaxSum", i, a)
				require.Equal(t, before, weightedSnapshot(w), "a rejected Set(%d, %v) changed the sampler", i, a)
				return
			}
			require.NoError(t, w.Set(i, a), "Set(%d, %v)", i, a)
			keys[i] = a
		}
		t.Repeat(map[string]func(*rapid.T){
			"": func(t *rapid.T) {
				ex := OracleWeighted(keys)
				for i, a := range keys {
					if math.Float64bits(w.Key(i)) != math.Float64bits(a) {
						t.Fatalf("Key(%d) = %v, model %v", i, w.Key(i), a)
					}
				}
				total, err := w.Total()
				if ex.Empty() {
					require.ErrorIs(t, err, reweighted.ErrEmpty, "Total() with every weight 0")
					return
				}
				require.NoError(t, err, "Total()")
				require.NoError(t, ex.CheckTotal(total))
			},
			"Set": func(t *rapid.T) { set(t, index.Draw(t, "i"), Key(n).Draw(t, "a")) },
			"SetZero": func(t *rapid.T) {
				set(t, index.Draw(t, "i"), 0)
			},
			"SetTie": func(t *rapid.T) { set(t, index.Draw(t, "i"), keys[index.Draw(t, "j")]) },
			"SetNeighbour": func(t *rapid.T) {
				a := keys[index.Draw(t, "j")]
				dir := rapid.SampledFrom([]float64{0, math.Inf(1)}).Draw(t, "dir")
				set(t, index.Draw(t, "i"), math.Nextafter(a, dir))
			},
			"SetSpike": func(t *rapid.T) {
				// A huge weight and back: drift's history.
				i := index.Draw(t, "i")
				old := keys[i]
				set(t, i, rapid.SampledFrom([]float64{1e20, 1e100, reweighted.MaxSum / 2}).Draw(t, "spike"))
				set(t, i, old)
			},
			"SetHuge": func(t *rapid.T) {
				f := rapid.Float64Range(0.05, 1.2).Draw(t, "fraction of MaxSum")
				set(t, index.Draw(t, "i"), f*reweighted.MaxSum)
			},
			"SetBad": func(t *rapid.T) {
				before := weightedSnapshot(w)
				i := rapid.IntRange(-2, n+1).Draw(t, "i")
				a := rapid.SampledFrom([]float64{math.NaN(), math.Inf(1), math.Inf(-1), -1, -5e-324, 1}).Draw(t, "a")
				if i >= 0 && i < n && a == 1 {
					i = n // keep the call invalid
				}
				err := w.Set(i, a)
				if i < 0 || i >= n {
					require.ErrorIs(t, err, reweighted.ErrIndex)
				} else {
					require.ErrorIs(t, err, reweighted.ErrKey)
				}
				require.Equal(t, before, weightedSnapshot(w), "rejected Set(%d, %v) changed the sampler", i, a)
			},
			"Verify": func(t *rapid.T) {
				require.NoError(t, verifyWeighted(w, OracleWeighted(keys), []float64{U().Draw(t, "u")}, n))
			},
		})
	}
}

// Property: the law of Draw is p_i = a_i/Σa (χ² goodness of fit against
// the exact law, a quarter of -samplertest.draws, 25,000 by default, on
// each boundary class), both from a sampler only filled and from one
// whose weight 0 was set to a huge value and back, and no item of weight
// 0 is drawn. Each test fails a correct sampler with probability 1e-8.
func weightedChiSquare(t TB, nw NewWeighted) { chiSquareOn(t, nw, weightedCases()) }

// chiSquareOn is weightedChiSquare on the cases given.
func chiSquareOn(t TB, nw NewWeighted, cases []weightedCase) {
	draws := chiDraws(t) / 4
	for k, c := range cases {
		w := fillWeighted(t, nw, c.keys)
		skipUnless(t, w, false, true)
		d := w.(reweighted.WeightedDrawer)
		ex := Oracle(c.keys, 0)
		for _, spiked := range []bool{false, true} {
			what := c.name
			if spiked {
				what += ", after weight 0 was set to 1e20 and back"
				require.NoError(t, w.Set(0, min(1e20, reweighted.MaxSum/4)))
				require.NoError(t, w.Set(0, c.keys[0]))
			}
			src := rand.NewPCG(uint64(k), 31)
			counts := make([]float64, len(c.keys))
			for range draws {
				i, err := d.Draw(src)
				require.NoError(t, err, what)
				require.True(t, i >= 0 && i < len(c.keys), "%s: Draw = %d, an index out of range (a padding leaf?)", what, i)
				require.NotZero(t, c.keys[i], "%s: Draw = %d, an item of weight 0", what, i)
				counts[i]++
			}
			pv := chiSquared(t, ex, counts, draws, what)
			require.Greater(t, pv, weightedMinPValue, "%s: Draw's law is not a_i/Σa; %s", what, mostOff(ex, counts, draws, true))
		}
	}
}
