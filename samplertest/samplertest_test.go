package samplertest

import (
	"cmp"
	"flag"
	"fmt"
	"math"
	"math/big"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/reweighted/reweighted"
	"github.com/reweighted/reweighted/driver"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

var long = flag.Bool("long", false, "run the kit on the brute-force backend with 1,000 rapid checks a property and 10^6 draws a χ² test")

// kitSizes sets the kit's sizes for a test of the kit on the brute-force
// backend: checks rapid checks a property and draws draws a χ² test (0:
// the kit's default) by default, 1,000 and 10^6 with -long.
func kitSizes(t *testing.T, checks, draws int) {
	if *long {
		Sizes(t, 1000, 1_000_000)
		return
	}
	Sizes(t, checks, draws)
}

// brute is a deliberately simple backend for testing the kit itself: an
// index that keeps the keys in a sorted slice, moving one at a time, and
// scans it for ρ, behind the shared driver. Its
// switches plant the bugs the kit must catch.
type brute struct {
	driver.Driver
	idx         bruteIndex
	skipRho     bool // Sample never returns the item at rank ρ (the C++ bug)
	halfSet     bool // Set writes the key before it rejects it
	noSum       bool // UnmarshalBinary reads a state whatever its checksum
	halfRestore bool // UnmarshalBinary raises key 0 before it refuses a state
	sharedClone bool // Clone shares the key array
}

type bruteIndex struct {
	keys      []float64
	order     []int     // canonical order
	prefix    []float64 // plain prefix sums in that order
	floatPred bool      // ρ from the plain float predicate a·c ≥ ε·S
	depth1    bool      // SumDepth claims 1, far below the n of its sums
}

func newBrute(n int) *brute {
	if n < 0 {
		panic("negative size")
	}
	s := &brute{idx: bruteIndex{keys: make([]float64, n), order: make([]int, n), prefix: make([]float64, n+1)}}
	s.idx.sort()
	s.Driver = driver.New(&s.idx)
	return s
}

func (s *brute) Set(i int, a float64) error {
	if s.halfSet && i >= 0 && i < len(s.idx.keys) {
		s.idx.keys[i] = a
	}
	return s.Driver.Set(i, a)
}

// UnmarshalBinary is the Driver's, or a mutant's.
func (s *brute) UnmarshalBinary(data []byte) error {
	if s.noSum && len(data) >= 4 {
		data = seal(slices.Clone(data))
	}
	if _, _, err := reweighted.DecodeState(data); err != nil && s.halfRestore && s.Len() > 0 {
		_ = s.Driver.Set(0, s.Key(0)+1)
	}
	return s.Driver.UnmarshalBinary(data)
}

// Clone copies s, its mutations included.
func (s *brute) Clone() *brute {
	c := *s
	c.idx.keys, c.idx.order, c.idx.prefix = slices.Clone(s.idx.keys), slices.Clone(s.idx.order), slices.Clone(s.idx.prefix)
	if s.sharedClone {
		c.idx.keys = s.idx.keys
	}
	c.Driver = s.Driver.Rebind(&c.idx)
	return &c
}

func (s *brute) Sample(eps, u float64) (int, float64, error) {
	i, p, err := s.Driver.Sample(eps, u)
	if err != nil || !s.skipRho {
		return i, p, err
	}
	rho, _, _ := s.Driver.Solve(eps)
	if r := s.idx.Rank(i); r == rho && rho > 1 {
		i = s.idx.Select(r - 1)
		p, _ = s.Driver.Prob(i, eps)
	}
	return i, p, nil
}

// Resize makes x an index of n items, all keys 0, its planted bugs kept,
// so that UnmarshalBinary restores a state of any size.
func (x *bruteIndex) Resize(n int) {
	y := newBrute(n).idx
	x.keys, x.order, x.prefix = y.keys, y.order, y.prefix
}

// before is the canonical order: keys descending, ties by index.
func (x *bruteIndex) before(i, j int) int {
	return cmp.Or(cmp.Compare(x.keys[j], x.keys[i]), i-j)
}

// sort sorts the order from scratch and refreshes the prefix sums.
func (x *bruteIndex) sort() {
	for i := range x.order {
		x.order[i] = i
	}
	slices.SortFunc(x.order, x.before)
	x.sums()
}

func (x *bruteIndex) sums() {
	for r, i := range x.order {
		x.prefix[r+1] = x.prefix[r] + x.keys[i]
	}
}

func (x *bruteIndex) Len() int          { return len(x.keys) }
func (x *bruteIndex) Key(i int) float64 { return x.keys[i] }

// Update moves item i to its new place; the others stay in order.
func (x *bruteIndex) Update(i int, a float64) {
	x.keys[i] = a
	x.order = slices.DeleteFunc(x.order, func(j int) bool { return j == i })
	r, _ := slices.BinarySearchFunc(x.order, i, x.before)
	x.order = slices.Insert(x.order, r, i)
	x.sums()
}

func (x *bruteIndex) Build(keys []float64) { copy(x.keys, keys); x.sort() }
func (x *bruteIndex) Total() float64       { return x.prefix[len(x.keys)] }
func (x *bruteIndex) Select(r int) int     { return x.order[r-1] }
func (x *bruteIndex) Rank(i int) int       { return slices.Index(x.order, i) + 1 }

func (x *bruteIndex) Cut(c driver.Cutoff) (int, float64) {
	rho := 1
	for r := 2; r <= len(x.keys); r++ {
		a, s := x.keys[x.order[r-1]], x.prefix[r]
		if x.floatPred && !c.Uniform() {
			if a*math.FMA(-float64(len(x.keys)-r), c.Eps(), 1) >= c.Eps()*s {
				rho = r
			}
		} else if c.Holds(a, s, r) {
			rho = r
		}
	}
	return rho, x.prefix[rho]
}

func (x *bruteIndex) SelectSum(target, scale float64) (int, int, float64) {
	for r := 1; r <= len(x.keys); r++ {
		if x.prefix[r]*scale > target {
			return x.order[r-1], r, x.keys[x.order[r-1]]
		}
	}
	return -1, len(x.keys) + 1, 0
}

// SumDepth: prefix sums add the keys one by one, n roundings deep.
func (x *bruteIndex) SumDepth() int {
	if x.depth1 {
		return 1
	}
	return len(x.keys)
}

func (x *bruteIndex) Walk(from, to int, f func(int, float64)) {
	for _, i := range x.order[from-1 : max(from-1, to)] {
		f(i, x.keys[i])
	}
}

// The kit passes on a backend that shares nothing with naive, ost or segtree
// but the driver.
func TestRunOnBruteForce(t *testing.T) {
	kitSizes(t, 30, 0)
	Run(t, func(n int) reweighted.Sampler { return newBrute(n) })
}

// Mutation tests: each planted bug makes the kit fail, the property of
// the index's sums at a fixed seed of rapid (the others are fixed cases);
// the unmutated backend passes the same checks at a fresh seed.
func TestKitCatchesPlantedBugs(t *testing.T) {
	mutants := []struct {
		name  string
		check func(TB, New)
		plant func(*brute)
	}{
		{"never draws rank ρ", testDrawsRankRho, func(s *brute) { s.skipRho = true }},
		{"never draws rank ρ (edge cases)", testEdges, func(s *brute) { s.skipRho = true }},
		{"predicate underflows for subnormal keys", testEdges, func(s *brute) { s.idx.floatPred = true }},
		{"float predicate a few ulps from the cutoff", testNearCutoffRegression, func(s *brute) { s.idx.floatPred = true }},
		{"Set half-applies before rejecting", testBadInput, func(s *brute) { s.halfSet = true }},
		{"SumDepth below the depth of the sums", property(indexSumsProperty), func(s *brute) { s.idx.depth1 = true }},
		{"UnmarshalBinary skips the checksum", mapBadState, func(s *brute) { s.noSum = true }},
		{"UnmarshalBinary changes a receiver it refuses", mapBadState, func(s *brute) { s.halfRestore = true }},
		{"Clone shares the keys", mapClone, func(s *brute) { s.sharedClone = true }},
	}
	for _, m := range mutants {
		t.Run(m.name, func(t *testing.T) {
			require.Empty(t, failures("mutant", m.check, func(n int) reweighted.Sampler { return newBrute(n) }),
				"the unmutated backend passes this check")
			// rapid's seed fixed for the mutant: a property must catch it
			// on every run, not on most of rapid's fresh seeds.
			SetDefaultFlag(t, "rapid.seed", "1")
			var failed []string
			planted(t, func() {
				failed = failures("mutant", m.check, func(n int) reweighted.Sampler { s := newBrute(n); m.plant(s); return s })
			})
			require.NotEmpty(t, failed, "the kit missed the planted bug")
			t.Logf("caught: %.300s", strings.Join(strings.Fields(failed[0]), " "))
		})
	}
}

// The oracle on a case worked by hand: keys 6, 2, 1, 0 and ε = 1/8 give
// λ(1) = 6/(5/8) = 9.6 (6 ≥ 1.2), λ(2) = 8/(3/4) = 32/3 (2 ≥ 4/3) and
// λ(3) = 9/(7/8) = 72/7 (1 < 9/7), so ρ = 2.
func TestOracleByHand(t *testing.T) {
	e := Oracle([]float64{1, 0, 6, 2}, 0.125)
	require.Equal(t, 2, e.Rho)
	require.Equal(t, big.NewRat(32, 3), e.Lambda)
	want := []*big.Rat{big.NewRat(1, 8), big.NewRat(1, 8), big.NewRat(9, 16), big.NewRat(3, 16)}
	for i, p := range want {
		require.Zero(t, p.Cmp(e.P[i]), "p[%d] = %v, want %v", i, e.P[i], p)
	}
	intervals := map[int][2]*big.Rat{
		2: {big.NewRat(0, 1), big.NewRat(9, 16)}, // rank 1
		3: {big.NewRat(9, 16), big.NewRat(3, 4)}, // rank 2 = ρ
		1: {big.NewRat(3, 4), big.NewRat(7, 8)},  // rank 4 takes the first ε slice
		0: {big.NewRat(7, 8), big.NewRat(1, 1)},  // rank 3 the last
	}
	for i, iv := range intervals {
		lo, hi := e.Interval(i, e.Rho)
		require.Zero(t, lo.Cmp(iv[0]), "item %d lo = %v", i, lo)
		require.Zero(t, hi.Cmp(iv[1]), "item %d hi = %v", i, hi)
	}
	require.Equal(t, 3, e.ItemAt(0.7, e.Rho))
}

// The oracle reads ε = 1/float64(n) as exactly 1/n, and all-zero keys as uniform.
func TestOracleEdges(t *testing.T) {
	e := Oracle([]float64{5, 1, 1}, 1/3.0)
	require.True(t, e.Uniform)
	for i := range 3 {
		require.Zero(t, e.P[i].Cmp(big.NewRat(1, 3)), "p[%d] = %v", i, e.P[i])
	}
	z := Oracle([]float64{0, 0}, 0)
	require.True(t, z.AllZero)
	require.Equal(t, 2, z.Rho)
	require.Zero(t, z.Lambda.Sign())
}

// KKT rejects distributions that are feasible but not optimal, and
// infeasible ones.
func TestKKTRejects(t *testing.T) {
	keys := []float64{4, 1, 0}
	require.NoError(t, KKT(keys, 0, []float64{0.8, 0.2, 0}))
	require.Error(t, KKT(keys, 0, []float64{1.0 / 3, 1.0 / 3, 1.0 / 3}), "uniform is not optimal")
	require.Error(t, KKT(keys, 0.1, []float64{0.8, 0.2, 0}), "p below ε")
	require.Error(t, KKT(keys, 0.1, []float64{0.7, 0.1, 0.1}), "Σp ≠ 1")
	require.NoError(t, KKT(keys, 0.3, []float64{0.4, 0.3, 0.3}))
	require.Error(t, KKT(keys, 0.1, []float64{0.8, 0.1, 0.1}), "a = 1 > ελ = 0.5 with p = ε")
}

// The generators draw every kind of input the contract names.
func TestGeneratorsCoverKinds(t *testing.T) {
	seen := map[string]bool{}
	for seed := range 400 {
		n := 1 + seed%20
		keys := Keys(n).Example(seed)
		for i, a := range keys {
			switch {
			case a == 0:
				seen["zero"] = true
			case a < 0x1p-1022:
				seen["subnormal"] = true
			case a > 0x1p700:
				seen["huge"] = true
			default:
				seen["normal"] = true
			}
			if slices.Contains(keys[:i], a) {
				seen["tie"] = true
			}
		}
		eps := Eps(n).Example(seed)
		require.True(t, eps >= 0 && eps <= 1/float64(n), "ε = %v for n = %d", eps, n)
		switch {
		case eps == 0:
			seen["ε = 0"] = true
		case eps == 1/float64(n):
			seen["ε = 1/n"] = true
		case eps == math.Nextafter(1/float64(n), 0):
			seen["ε just below 1/n"] = true
		case eps < 0x1p-1022:
			seen["subnormal ε"] = true
		}
		u := U().Example(seed)
		require.True(t, u >= 0 && u < 1)
		switch {
		case u == 0:
			seen["u = 0"] = true
		case u <= 0x8p-53:
			seen["u a few 2^-53 above 0"] = true
		case u == math.Nextafter(1, 0):
			seen["u = 1 − 2^-53"] = true
		case u >= 1-0x8p-53:
			seen["u a few 2^-53 below 1"] = true
		}
	}
	require.Subset(t, seen, []string{"zero", "subnormal", "huge", "normal", "tie", "ε = 0", "ε = 1/n", "ε just below 1/n", "subnormal ε",
		"u = 0", "u a few 2^-53 above 0", "u = 1 − 2^-53", "u a few 2^-53 below 1"},
		"the generators never drew some kinds")
}

// NearCutoff draws what it promises: at every scale (subnormal, around 1,
// around 2^700), tail keys exactly on their cutoff, and keys one to three
// ulps either side of it; and every instance is valid.
func TestNearCutoffCoversClasses(t *testing.T) {
	seen := map[string]bool{}
	for seed := range 600 {
		in := NearCutoff(12).Example(seed)
		n := len(in.Keys)
		require.True(t, n >= 2 && in.Eps > 0 && in.Eps < 1/float64(n), "ε = %v for n = %d", in.Eps, n)
		ex := Oracle(in.Keys, in.Eps)
		require.True(t, slices.Min(in.Keys) >= 0, "keys %v", in.Keys)
		switch maxKey := slices.Max(in.Keys); {
		case maxKey < 0x1p-1000:
			seen["subnormal scale"] = true
		case maxKey > 0x1p600:
			seen["2^700 scale"] = true
		default:
			seen["unit scale"] = true
		}
		for r := 2; r <= n; r++ {
			a := in.Keys[ex.Order[r-1]]
			if a == 0 {
				continue
			}
			// The sign of x·c(r) − ε·(S(r−1) + x), from the oracle's terms
			// rather than the generator's tieValue: 0 on the cutoff.
			side := func(x float64) int {
				xr := new(big.Rat).SetFloat64(x)
				rhs := new(big.Rat).Add(ex.Prefix[r-1], xr)
				return new(big.Rat).Mul(xr, ex.C(r)).Cmp(rhs.Mul(rhs, ex.Eps))
			}
			// x moved by three floats toward to.
			three := func(x, to float64) float64 {
				return math.Nextafter(math.Nextafter(math.Nextafter(x, to), to), to)
			}
			switch {
			case side(a) == 0:
				seen["exactly on the cutoff"] = true
			case side(a) < 0 && side(three(a, math.Inf(1))) >= 0:
				seen["ulps below"] = true
			case side(a) > 0 && side(three(a, 0)) <= 0:
				seen["ulps above"] = true
			}
		}
	}
	require.Subset(t, seen, []string{"subnormal scale", "unit scale", "2^700 scale", "exactly on the cutoff", "ulps below", "ulps above"},
		"NearCutoff never drew some classes")
}

// Locate, the binary search, finds the item ItemAt, the scan, finds, on
// near-cutoff instances and at every interval's edges.
func TestLocateMatchesItemAt(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		in := NearCutoff(16).Draw(t, "instance")
		ex := Oracle(in.Keys, in.Eps)
		us := []float64{0, math.Nextafter(1, 0), U().Draw(t, "u")}
		for _, i := range ex.Order {
			lo, hi := ex.Interval(i, ex.Rho)
			for _, x := range []*big.Rat{lo, hi} {
				us = append(us, nudge(x, -1), nudge(x, 0), nudge(x, 1))
			}
		}
		for _, u := range us {
			require.Equal(t, ex.ItemAt(u, ex.Rho), ex.Locate(u), "u = %v", u)
		}
		for _, u := range []float64{1, math.Nextafter(1, 2), -0.5, math.Inf(1)} {
			require.Equal(t, -1, ex.Locate(u), "u = %v lies outside [0, 1)", u)
		}
	})
}

// Check, the kit outside a test, passes a correct backend and names the
// checks a mutant fails. TestRunOnBruteForce runs the same checks at more
// checks a property and draws a χ² test.
func TestCheckOutsideTests(t *testing.T) {
	kitSizes(t, 5, 5_000)
	require.NoError(t, Check(func(n int) reweighted.Sampler { return newBrute(n) }))
	// The mutant fails many properties; shrinking each for long adds
	// nothing to which checks fail.
	SetDefaultFlag(t, "rapid.shrinktime", "100ms")
	var err error
	planted(t, func() {
		err = Check(func(n int) reweighted.Sampler { s := newBrute(n); s.skipRho = true; return s })
	})
	require.Error(t, err)
	require.Contains(t, err.Error(), "DrawsRankRho:")
}

// TinyKeys draws what it promises: a subnormal or tiny key first in the
// canonical order, and a positive key last in the head whose exact p* rounds
// to 0 or is tiny, at ε = 0, at a subnormal ε and at a tiny normal ε.
func TestTinyKeysCoversClasses(t *testing.T) {
	seen := map[string]bool{}
	for seed := range 600 {
		in := TinyKeys(16).Example(seed)
		n := len(in.Keys)
		require.True(t, in.Eps >= 0 && in.Eps <= 1/float64(n), "ε = %v for n = %d", in.Eps, n)
		switch {
		case in.Eps == 0:
			seen["ε = 0"] = true
		case in.Eps < 0x1p-1022:
			seen["subnormal ε"] = true
		case in.Eps < 0x1p-29:
			seen["tiny ε"] = true
		}
		ex := Oracle(in.Keys, in.Eps)
		if ex.AllZero {
			continue
		}
		switch first := in.Keys[ex.Order[0]]; {
		case first < 0x1p-1022:
			seen["subnormal first"] = true
		case first < 0x1p-1000:
			seen["tiny first"] = true
		}
		// The last positive key of the head.
		last := -1
		for r := 1; r <= ex.Rho; r++ {
			if i := ex.Order[r-1]; ex.Keys[i].Sign() > 0 {
				last = i
			}
		}
		if p := ratFloat(ex.P[last]); p == 0 {
			seen["p rounds to 0 at the bottom"] = true
		} else if p < 0x1p-1000 && in.Keys[ex.Order[0]] >= 1 {
			seen["tiny p at the bottom"] = true
		}
	}
	require.Subset(t, seen, []string{"ε = 0", "subnormal ε", "tiny ε", "subnormal first", "tiny first",
		"p rounds to 0 at the bottom", "tiny p at the bottom"}, "TinyKeys never drew some classes")
}

// planted runs f, which runs checks on a backend with a bug planted on
// purpose, with rapid's fail files off (-rapid.nofailfile), and requires
// that it wrote none: rapid replays every fail file on later runs, so a
// fail file must always mean a real failure.
func planted(t *testing.T, f func()) {
	const name = "rapid.nofailfile"
	old := flag.Lookup(name).Value.String()
	require.NoError(t, flag.Set(name, "true"))
	defer func() { require.NoError(t, flag.Set(name, old)) }()
	before, err := filepath.Glob(filepath.Join("testdata", "rapid", "*", "*.fail"))
	require.NoError(t, err)
	f()
	after, err := filepath.Glob(filepath.Join("testdata", "rapid", "*", "*.fail"))
	require.NoError(t, err)
	require.Equal(t, before, after, "a run that fails on purpose wrote fail files")
}

var probe = flag.Int("samplertest.probe", 1, "a flag that TestSetDefaultFlag sets")

// SetDefaultFlag sets a flag for the test that calls it and restores it
// after, in every test that calls it: a flag that an earlier test set and
// restored is not taken for one set on the command line.
func TestSetDefaultFlag(t *testing.T) {
	for _, v := range []int{2, 3} {
		t.Run(fmt.Sprint(v), func(t *testing.T) {
			SetDefaultFlag(t, "samplertest.probe", fmt.Sprint(v))
			require.Equal(t, v, *probe)
		})
		require.Equal(t, 1, *probe, "restored after the test")
	}
}

// RelErrRatio is |x − y| over rel·|y| + 2^-1074, worked out by hand at
// the cases below, +Inf for a NaN or infinite x.
func TestRelErrRatioByHand(t *testing.T) {
	tiny := math.SmallestNonzeroFloat64
	for _, c := range []struct {
		x    float64
		y    *big.Rat
		rel  float64
		want float64
	}{
		{1.5, big.NewRat(1, 1), 0.25, 2},   // 0.5 / 0.25, the 2^-1074 lost in rounding
		{1, big.NewRat(1, 1), 0.25, 0},     // exact
		{0.75, big.NewRat(1, 1), 0.5, 0.5}, // below the bound on the other side
		{tiny, new(big.Rat), 1e-9, 1},      // one subnormal step from 0
		{3 * tiny, new(big.Rat), 1e-9, 3},
		{math.NaN(), big.NewRat(1, 1), 1e-9, math.Inf(1)},
		{math.Inf(-1), big.NewRat(1, 1), 1e-9, math.Inf(1)},
	} {
		require.Equal(t, c.want, RelErrRatio(c.x, c.y, c.rel), "x = %v, y = %v, rel = %v", c.x, c.y, c.rel)
	}
}

// Property: RelErrRatio is at most 1 exactly when CloseRel holds, away from
// the quotient's rounding (ratios within 1e-12 of 1 are not compared): the
// report's ratio and the check measure against the same bound.
func TestRelErrRatioAgreesWithCloseRel(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		y := new(big.Rat).SetFloat64(rapid.Float64Range(-1e300, 1e300).Draw(rt, "y"))
		rel := rapid.SampledFrom([]float64{0, 1e-12, 1e-9, 0.5}).Draw(rt, "rel")
		yf, _ := y.Float64()
		x := rapid.OneOf(
			rapid.Float64(),
			rapid.Just(yf),
			rapid.Just(math.Nextafter(yf, math.Inf(1))),
			rapid.Just(yf*(1+rel)),
			rapid.Just(yf*(1-rel)),
			rapid.Just(math.SmallestNonzeroFloat64),
		).Draw(rt, "x")
		r := RelErrRatio(x, y, rel)
		if math.Abs(r-1) < 1e-12 {
			return
		}
		require.Equal(rt, r <= 1, CloseRel(x, y, rel), "ratio %v", r)
	})
}

// probeRanks lists every rank up to 64 items, and above, in increasing
// order, the first two, the last two and ρ − 1 to ρ + 1 among them.
func TestProbeRanksCoverTheEdges(t *testing.T) {
	for n := 1; n <= 200; n += 1 + n/8 {
		for rho := 1; rho <= n; rho++ {
			got := probeRanks(n, rho)
			require.True(t, slices.IsSorted(got), "n = %d", n)
			require.Equal(t, len(got), len(slices.Compact(slices.Clone(got))), "n = %d: ranks listed once", n)
			if n <= 64 {
				require.Len(t, got, n, "n = %d: every rank", n)
			}
			for _, r := range []int{1, 2, rho - 1, rho, rho + 1, n - 1, n} {
				if r >= 1 && r <= n {
					require.Contains(t, got, r, "n = %d, ρ = %d", n, rho)
				}
			}
		}
	}
}
