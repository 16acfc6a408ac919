package samplertest

import (
	"flag"
	"fmt"
	"maps"
	"math"
	"math/big"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"

	"github.com/reweighted/reweighted"
	"github.com/stretchr/testify/require"
)

// The mass tests: where a χ² test over n items spreads its power over
// n − 1 degrees of freedom, a test of one sum of indicator counts (the
// mass of the tail, of a binade of keys, of the ranks 1 to r) puts it all
// on one direction, the one a bug in a group of items moves. Each mass is
// tested by the Chernoff bound of the binomial law: a count c of d draws
// fails the test of a mass p when d·KL(c/d ‖ p) ≥ massBound, which a
// correct sampler does with probability at most 2·exp(−massBound) per
// mass, whatever d and p.

// massTestsMax bounds the number of masses one run of the kit tests, and
// massBound is set so that a correct sampler fails one of them with
// probability below 10^-6 a run: 2·maxMasses·exp(−massBound) = 10^-6.
const (
	massTestsMax = 1000
	massBound    = 21.416413017506358 // ln(2·10^9)
)

// massDrawsFlag is the number of draws of each case of the mass tests.
var massDrawsFlag = flag.Int("samplertest.massdraws", defaultMassDraws(),
	"draws of each case of the mass tests of the conformance kit (at least 1000; 4·10^6 catch a 1% bias of a mass of 0.3)")

func defaultMassDraws() int {
	if raceEnabled {
		return 20_000
	}
	return 50_000
}

// SetMassDraws sets the number of draws of each case of the mass tests, as
// the flag -samplertest.massdraws does (5·10^4 by default, at which a
// mass of 0.3 fails when off by more than 4.5%, relative; 0.5% at
// 4·10^6, samplercheck's default). Calls must not run
// while checks do.
func SetMassDraws(n int) {
	*massDrawsFlag = n
}

// massDraws returns the draws of each case of the mass tests, failing if
// the flag asks for too few.
func massDraws(t TB) int {
	require.GreaterOrEqual(t, *massDrawsFlag, minDraws, "-samplertest.massdraws")
	return *massDrawsFlag
}

// Mass is a set of items whose total probability a mass test checks.
type Mass struct {
	Name  string
	Items []int
	P     float64 // the exact probability of drawing one of Items, rounded
}

// klBern is the Kullback–Leibler divergence of Bernoulli(q) from
// Bernoulli(p), 0 < p < 1.
func klBern(q, p float64) float64 {
	kl := 0.0
	if q > 0 {
		kl += q * math.Log(q/p)
	}
	if q < 1 {
		kl += (1 - q) * math.Log((1-q)/(1-p))
	}
	return kl
}

// MassThreshold returns the smallest relative bias r > 0 of a mass p that
// fails the test at d draws when the count is exactly d·p·(1 + r): a bias
// of that size is caught about half the time, one of 1.5 times it nearly
// always. +Inf if no count above d·p fails.
func MassThreshold(p float64, d int) float64 {
	fails := func(r float64) bool {
		q := p * (1 + r)
		return q <= 1 && float64(d)*klBern(q, p) >= massBound
	}
	if !fails(1/p - 1) {
		return math.Inf(1)
	}
	lo, hi := 0.0, 1/p-1
	for range 60 {
		mid := (lo + hi) / 2
		if fails(mid) {
			hi = mid
		} else {
			lo = mid
		}
	}
	return hi
}

// massResult is one mass tested: its count against the expected one.
type massResult struct {
	Mass
	count float64
	score float64 // d·KL(count/d ‖ p)
}

func (r massResult) String(d int) string {
	e := r.P * float64(d)
	z := (r.count - e) / math.Sqrt(e*(1-r.P))
	return fmt.Sprintf("%s: %.0f draws, %.1f expected (%+.3g%%, z = %+.3g; it fails at a relative %.3g%%)",
		r.Name, r.count, e, 100*(r.count/e-1), z, 100*MassThreshold(r.P, d))
}

// CheckMasses tests the counts of d draws, by item, against every mass,
// and against the items of probability 0 (never drawn): p[i] is item i's
// probability, 0 only when it is exactly 0 (see massProbs). It returns an
// error naming the masses most off, counts against expected counts, if a
// test fails.
func CheckMasses(counts []float64, d int, p []float64, masses []Mass) error {
	for i, c := range counts {
		if p[i] == 0 && c > 0 {
			return fmt.Errorf("item %d, of probability 0, drawn %.0f times of %d", i, c, d)
		}
	}
	var failed []massResult
	for _, m := range masses {
		if !(m.P > 0 && m.P < 1) {
			continue
		}
		c := 0.0
		for _, i := range m.Items {
			c += counts[i]
		}
		r := massResult{Mass: m, count: c, score: float64(d) * klBern(c/float64(d), m.P)}
		if r.score >= massBound {
			failed = append(failed, r)
		}
	}
	if len(failed) == 0 {
		return nil
	}
	slices.SortFunc(failed, func(a, b massResult) int {
		if a.score != b.score {
			return -cmpFloat(a.score, b.score)
		}
		return strings.Compare(a.Name, b.Name)
	})
	lines := []string{fmt.Sprintf("%d of %d masses are off (the most off first):", len(failed), len(masses))}
	for _, r := range failed[:min(len(failed), 6)] {
		lines = append(lines, "  "+r.String(d))
	}
	return fmt.Errorf("%s", strings.Join(lines, "\n"))
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// massProbs returns the exact probabilities as floats, a probability
// that is not 0 but rounds to 0 as the smallest float: CheckMasses reads
// p = 0 as an item that is never drawn.
func massProbs(exact []*big.Rat) []float64 {
	p := make([]float64, len(exact))
	for i, x := range exact {
		p[i] = ratFloat(x)
		if p[i] == 0 && x.Sign() > 0 {
			p[i] = math.SmallestNonzeroFloat64
		}
	}
	return p
}

// LawMasses returns the masses tested on a sampler of the law: the tail
// (ranks ρ + 1 to n), the head and tail parts of the binade of keys that
// holds the cutoff ε·λ, every binade of keys (and the zeros), the ranks
// 1 to r for every r, and every item. Masses of the same items are listed
// once, under their first name.
func LawMasses(ex *Exact) []Mass {
	p := massProbs(ex.P)
	var out []Mass
	seen := map[string]bool{}
	add := func(name string, items []int) {
		if len(items) == 0 {
			return
		}
		items = slices.Clone(items)
		sort.Ints(items)
		// A mass and its complement are one test.
		key, rest := fmt.Sprint(items), fmt.Sprint(complement(ex.N, items, p))
		if seen[key] || seen[rest] {
			return
		}
		seen[key] = true
		m := Mass{Name: name, Items: items}
		for _, i := range items {
			m.P += p[i]
		}
		out = append(out, m)
	}
	order := ex.Order
	if !ex.AllZero && ex.Rho < ex.N {
		add(fmt.Sprintf("the tail (ranks %d to %d)", ex.Rho+1, ex.N), order[ex.Rho:])
		// The binade of the first tail key, split at the cutoff.
		cut := binade(ratFloat(ex.Keys[order[ex.Rho]]))
		var head, tail []int
		for r, i := range order {
			if binade(ratFloat(ex.Keys[i])) == cut {
				if r < ex.Rho {
					head = append(head, i)
				} else {
					tail = append(tail, i)
				}
			}
		}
		if len(head) > 0 {
			add(fmt.Sprintf("the head part of %s, which holds the cutoff", binadeName(cut)), head)
			add(fmt.Sprintf("the tail part of %s, which holds the cutoff", binadeName(cut)), tail)
		}
	}
	groups := map[int][]int{}
	for i := range ex.N {
		b := binade(ratFloat(ex.Keys[i]))
		groups[b] = append(groups[b], i)
	}
	for _, b := range slices.Sorted(maps.Keys(groups)) {
		add(binadeName(b), groups[b])
	}
	for r := 1; r < ex.N; r++ {
		add(fmt.Sprintf("ranks 1 to %d", r), order[:r])
	}
	for i := range ex.N {
		add(fmt.Sprintf("item %d (rank %d, key %v)", i, ex.Rank[i], ratFloat(ex.Keys[i])), []int{i})
	}
	return out
}

// complement returns the items of positive p not in items, sorted.
func complement(n int, items []int, p []float64) []int {
	in := make([]bool, n)
	for _, i := range items {
		in[i] = true
	}
	var out []int
	for i := range n {
		if !in[i] && p[i] > 0 {
			out = append(out, i)
		}
	}
	return out
}

// binade returns the exponent e with a in [2^e, 2^(e+1)), and a number
// below every exponent for 0.
func binade(a float64) int {
	if a == 0 {
		return math.MinInt32
	}
	_, e := math.Frexp(a)
	return e - 1
}

func binadeName(b int) string {
	if b == math.MinInt32 {
		return "the keys 0"
	}
	return fmt.Sprintf("the keys in [2^%d, 2^%d)", b, b+1)
}

// massCase is a key vector and bound of the mass tests.
type massCase struct {
	name string
	keys []float64
	eps  float64
}

// lawMassCases are the cases of the mass tests of the law mode: a tail of
// mass 1/2 whose keys span zeros, subnormals and the binade of the
// cutoff, with head keys in that binade too; keys spread over 16
// binades at ε = 1/(2n); and proportional sampling (ε = 0) over keys
// across the float range.
func lawMassCases() []massCase {
	half := []float64{16, 12, 9, 8, 6.5, 5.5, 4.5, 4.2, // the head: S = 65.7, cutoff S/16
		4, 3.9, 3, 2.5, 2, 1, 0.5, 0.3, 0.125, 0.01, 1e-5, 1e-200, 5e-324, 0, 0, 0}
	rng := rand.New(rand.NewPCG(11, 12))
	spread := make([]float64, 30)
	for i := range spread {
		spread[i] = math.Ldexp(1+rng.Float64(), rng.IntN(16)-8)
	}
	prop := []float64{3, 1, 1e-300, 2, 0x1p-1074, 0.5, 7, 0, 1.5, 4, 0.25, 1e-20, 6}
	return []massCase{
		{"a tail of mass 1/2", half, 1.0 / 32},
		{"keys over 16 binades", spread, 1.0 / 60},
		{"proportional (ε = 0)", prop, 0},
	}
}

// Property: the mass of every group of items a bug moves together — the
// tail, the head and tail parts of the binade of the cutoff, every
// binade, the ranks 1 to r, every item — is p*'s, tested one mass at a
// time on -samplertest.massdraws draws of DrawBatch with replacement
// (5·10^4 by default) on each of three cases; the log says the smallest
// bias each test catches.
func lawMasses(t TB, newDist NewDist) {
	d := massDraws(t)
	for k, c := range lawMassCases() {
		ex := Oracle(c.keys, c.eps)
		s := fillDist(t, newDist, c.keys)
		counts := make([]float64, len(c.keys))
		src := rand.NewPCG(uint64(k), 31)
		items, probs := make([]int, 8192), make([]float64, 8192)
		for left := d; left > 0; left -= len(items) {
			m := min(left, len(items))
			require.NoError(t, reweighted.DrawBatch(s, c.eps, src, true, items[:m], probs[:m]))
			for _, i := range items[:m] {
				counts[i]++
			}
		}
		masses := LawMasses(ex)
		if err := CheckMasses(counts, d, massProbs(ex.P), masses); err != nil {
			require.NoError(t, err, "%s: keys %v at ε = %v (ρ = %d)", c.name, c.keys, c.eps, ex.Rho)
		}
		logPower(t, c.name, masses, d)
	}
}

// logPower logs what the mass tests of a case catch at d draws.
func logPower(t TB, name string, masses []Mass, d int) {
	t.Logf("%s: %d masses tested on %d draws; a mass fails when off by more than", name, len(masses), d)
	for _, m := range masses {
		if strings.HasPrefix(m.Name, "the tail") || strings.HasPrefix(m.Name, "the head part") || strings.HasPrefix(m.Name, "the tail part") {
			t.Logf("  %.3g%% relative: %s, p = %.4g", 100*MassThreshold(m.P, d), m.Name, m.P)
		}
	}
	for _, p := range []float64{0.5, 0.3, 0.1, 0.01} {
		t.Logf("  %.3g%% relative: any mass of %g", 100*MassThreshold(p, d), p)
	}
}

// WeightedMasses returns the masses tested on a weighted sampler of the
// weights keys (p_i = a_i/Σa, in index order): the items 0 to i for every
// i (what a find in the wrong order, or over padding leaves, moves), every
// binade of weights, and every item.
func WeightedMasses(keys []float64) []Mass {
	p := massProbs(Oracle(keys, 0).P)
	var out []Mass
	seen := map[string]bool{}
	add := func(name string, items []int) {
		key, rest := fmt.Sprint(items), fmt.Sprint(complement(len(keys), items, p))
		if len(items) == 0 || seen[key] || seen[rest] {
			return
		}
		seen[key] = true
		m := Mass{Name: name, Items: items}
		for _, i := range items {
			m.P += p[i]
		}
		out = append(out, m)
	}
	for i := 0; i+1 < len(keys); i++ {
		add(fmt.Sprintf("items 0 to %d", i), seq(i+1))
	}
	groups := map[int][]int{}
	for i, a := range keys {
		groups[binade(a)] = append(groups[binade(a)], i)
	}
	for _, b := range slices.Sorted(maps.Keys(groups)) {
		add(binadeName(b), groups[b])
	}
	for i, a := range keys {
		add(fmt.Sprintf("item %d (weight %v)", i, a), []int{i})
	}
	return out
}

// weightedMassCases are the cases of the weighted kind's mass tests: 7
// items, not a power of two, weights across binades with a 0 and a
// subnormal; and 24 items over 16 binades. Each is drawn after its first
// weight was set to 1e20 and back, which leaves a sum tree that adds
// changes to rounded sums far from its weights.
func weightedMassCases() []massCase {
	rng := rand.New(rand.NewPCG(13, 14))
	spread := make([]float64, 24)
	for i := range spread {
		spread[i] = math.Ldexp(1+rng.Float64(), rng.IntN(16)-8)
	}
	return []massCase{
		{"7 items", []float64{3, 0, 1, 2, 5e-324, 4, 1.5}, 0},
		{"24 items over 16 binades", spread, 0},
	}
}

// Property: the masses of a weighted sampler's draws (WeightedMasses) are
// a_i/Σa's, on -samplertest.massdraws draws a case (5·10^4 by default),
// after a weight of 1e20 set and set back.
func weightedMasses(t TB, nw NewWeighted) {
	d := massDraws(t)
	for k, c := range weightedMassCases() {
		w := fillWeighted(t, nw, c.keys)
		skipUnless(t, w, false, true)
		dr := w.(reweighted.WeightedDrawer)
		require.NoError(t, w.Set(0, 1e20))
		require.NoError(t, w.Set(0, c.keys[0]))
		p := massProbs(Oracle(c.keys, 0).P)
		counts := make([]float64, len(c.keys))
		src := rand.NewPCG(uint64(k), 37)
		for range d {
			i, err := dr.Draw(src)
			require.NoError(t, err, c.name)
			require.True(t, i >= 0 && i < len(c.keys), "%s: Draw = %d, an index out of range (a padding leaf?)", c.name, i)
			counts[i]++
		}
		masses := WeightedMasses(c.keys)
		if err := CheckMasses(counts, d, p, masses); err != nil {
			require.NoError(t, err, "%s: weights %v, after weight 0 was set to 1e20 and back", c.name, c.keys)
		}
		logPower(t, c.name, masses, d)
	}
}

// mostOff names the items whose counts of d draws are farthest from the
// exact p*, in standard deviations, three at most: what a failed χ² test
// prints beside its p-value. Items are named by rank and key, or with
// byIndex (the weighted kind) by weight.
func mostOff(ex *Exact, counts []float64, d int, byIndex bool) string {
	z := func(i int) float64 {
		p := ratFloat(ex.P[i])
		e := p * float64(d)
		if e == 0 {
			return math.Inf(1) * counts[i]
		}
		return (counts[i] - e) / math.Sqrt(e*(1-p))
	}
	items := seq(ex.N)
	sort.SliceStable(items, func(a, b int) bool { return math.Abs(z(items[a])) > math.Abs(z(items[b])) })
	parts := []string{}
	for _, i := range items[:min(3, len(items))] {
		e := ratFloat(ex.P[i]) * float64(d)
		name := fmt.Sprintf("rank %d, key %v", ex.Rank[i], ratFloat(ex.Keys[i]))
		if byIndex {
			name = fmt.Sprintf("weight %v", ratFloat(ex.Keys[i]))
		}
		parts = append(parts, fmt.Sprintf("item %d (%s): %.0f draws, %.1f expected (z = %+.3g)", i, name, counts[i], e, z(i)))
	}
	return "the items most off: " + strings.Join(parts, "; ")
}
