package samplertest

import (
	"fmt"
	"math"
	"math/big"
	"slices"
	"strings"
	"testing"

	"github.com/reweighted/reweighted"
	"github.com/reweighted/reweighted/internal/lemma1"
	"github.com/stretchr/testify/require"
)

// brute is a deliberately simple backend for testing the kit itself: it
// sorts the keys on every query. Its switches plant the bugs the kit must
// catch.
type brute struct {
	keys    []float64
	order   []int     // scratch, so that queries do not allocate
	prefix  []float64 // scratch
	holds   func(b lemma1.Bound, a, s float64, r int) bool
	skipRho bool // Sample never returns the item at rank ρ (the C++ bug)
	halfSet bool // Set writes the key before it rejects it
}

func goodHolds(b lemma1.Bound, a, s float64, r int) bool { return b.Holds(a, s, r) }

// naiveHolds compares a·c ≥ ε·S directly: both sides underflow for
// subnormal keys.
func naiveHolds(b lemma1.Bound, a, s float64, r int) bool { return a*b.C(r) >= b.Eps()*s }

func newBrute(n int) *brute {
	if n < 0 {
		panic("negative size")
	}
	return &brute{keys: make([]float64, n), order: make([]int, n), prefix: make([]float64, n+1), holds: goodHolds}
}

func (s *brute) Len() int          { return len(s.keys) }
func (s *brute) Key(i int) float64 { return s.keys[i] }

func (s *brute) Set(i int, a float64) error {
	if err := lemma1.CheckIndex(i, len(s.keys)); err != nil {
		return err
	}
	if s.halfSet {
		s.keys[i] = a
	}
	a, err := lemma1.CheckKey(a)
	if err != nil {
		return err
	}
	total := 0.0
	for _, k := range s.keys {
		total += k
	}
	if err := lemma1.CheckSum(total, s.keys[i], a); err != nil {
		return err
	}
	s.keys[i] = a
	return nil
}

// solve returns the canonical order, the prefix sums, ρ and whether all keys are 0.
func (s *brute) solve(b lemma1.Bound) (order []int, prefix []float64, rho int, zero bool) {
	n := len(s.keys)
	order, prefix = s.order, s.prefix
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, s.cmp)
	for r, i := range order {
		prefix[r+1] = prefix[r] + s.keys[i]
	}
	rho = 1
	for r := 2; r <= n; r++ {
		if s.holds(b, s.keys[order[r-1]], prefix[r], r) {
			rho = r
		}
	}
	return order, prefix, rho, prefix[n] == 0
}

// cmp orders items canonically: key descending, index ascending.
func (s *brute) cmp(i, j int) int {
	switch {
	case s.keys[i] > s.keys[j]:
		return -1
	case s.keys[i] < s.keys[j]:
		return 1
	}
	return i - j
}

func (s *brute) Solve(eps float64) (int, float64, error) {
	b, err := lemma1.NewBound(len(s.keys), eps)
	if err != nil {
		return 0, 0, err
	}
	_, prefix, rho, zero := s.solve(b)
	if zero {
		return len(s.keys), 0, nil
	}
	return rho, b.Lambda(prefix[rho], rho), nil
}

func (s *brute) Prob(i int, eps float64) (float64, error) {
	b, err := lemma1.NewBound(len(s.keys), eps)
	if err != nil {
		return 0, err
	}
	if err := lemma1.CheckIndex(i, len(s.keys)); err != nil {
		return 0, err
	}
	order, prefix, rho, zero := s.solve(b)
	if zero {
		return b.UniformProb(), nil
	}
	for r := 1; r <= rho; r++ {
		if order[r-1] == i {
			return b.Prob(s.keys[i], prefix[rho], rho), nil
		}
	}
	return b.Eps(), nil
}

func (s *brute) Sample(eps, u float64) (int, float64, error) {
	b, err := lemma1.NewBound(len(s.keys), eps)
	if err != nil {
		return 0, 0, err
	}
	if err := lemma1.CheckU(u); err != nil {
		return 0, 0, err
	}
	order, prefix, rho, zero := s.solve(b)
	if zero {
		return order[b.UniformRank(u)-1], b.UniformProb(), nil
	}
	head, t, scale, r := b.Head(u, prefix[rho], rho)
	if !head {
		return order[r-1], b.Eps(), nil
	}
	last := rho
	for last > 1 && s.keys[order[last-1]] == 0 {
		last--
	}
	r = last
	for k := 1; k <= last; k++ {
		if prefix[k]*scale > t {
			r = k
			break
		}
	}
	if s.skipRho && r == rho && rho > 1 {
		r--
	}
	i := order[r-1]
	return i, b.Prob(s.keys[i], prefix[rho], rho), nil
}

// The kit passes on a backend that shares nothing with naive, ost or segtree
// but the arithmetic of internal/lemma1.
func TestRunOnBruteForce(t *testing.T) {
	Run(t, func(n int) reweighted.Sampler { return newBrute(n) })
}

// recorder is a require.TestingT that records a failure and stops the check.
type recorder struct{ failed []string }

type stop struct{}

func (r *recorder) Errorf(format string, args ...any) {
	r.failed = append(r.failed, fmt.Sprintf(format, args...))
}
func (r *recorder) FailNow() { panic(stop{}) }

// fails runs check against a mutant and reports whether the kit failed it.
func fails(check func(require.TestingT, New), mutant New) (bool, string) {
	r := &recorder{}
	func() {
		defer func() {
			if x := recover(); x != nil {
				if _, ok := x.(stop); !ok {
					panic(x)
				}
			}
		}()
		check(r, mutant)
	}()
	if len(r.failed) == 0 {
		return false, ""
	}
	return true, r.failed[0]
}

// Mutation tests: each planted bug makes the kit fail.
func TestKitCatchesPlantedBugs(t *testing.T) {
	mutants := []struct {
		name  string
		check func(require.TestingT, New)
		plant func(*brute)
	}{
		{"never draws rank ρ", testDrawsRankRho, func(s *brute) { s.skipRho = true }},
		{"never draws rank ρ (edge cases)", testEdges, func(s *brute) { s.skipRho = true }},
		{"predicate underflows for subnormal keys", testEdges, func(s *brute) { s.holds = naiveHolds }},
		{"Set half-applies before rejecting", testBadInput, func(s *brute) { s.halfSet = true }},
	}
	for _, m := range mutants {
		t.Run(m.name, func(t *testing.T) {
			ok, _ := fails(m.check, func(n int) reweighted.Sampler { return newBrute(n) })
			require.False(t, ok, "the unmutated backend passes this check")
			ok, msg := fails(m.check, func(n int) reweighted.Sampler { s := newBrute(n); m.plant(s); return s })
			require.True(t, ok, "the kit missed the planted bug")
			t.Logf("caught: %.300s", strings.Join(strings.Fields(msg), " "))
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
			for j := range i {
				if keys[j] == a {
					seen["tie"] = true
				}
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
	}
	for _, kind := range []string{"zero", "subnormal", "huge", "normal", "tie", "ε = 0", "ε = 1/n", "ε just below 1/n", "subnormal ε"} {
		require.True(t, seen[kind], "the generators never drew %s", kind)
	}
}
