package samplertest

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"sort"
	"strings"

	"github.com/reweighted/reweighted"
)

// Tolerances of the contract's accuracy section.
const (
	// TV is the largest total variation allowed between Prob and the exact p*.
	TV = 1e-9
	// RelLambda is the largest relative error allowed on λ.
	RelLambda = 1e-9
	// UDist is how far u may lie from the exact interval of the item drawn.
	UDist = 1e-9
)

// Verify checks a sampler holding keys against the exact oracle at the bound
// eps: Key, Solve (ρ equal to the exact ρ, λ within RelLambda, or within one
// subnormal step where λ is subnormal), Prob (total variation within TV, and
// the KKT certificate) and Sample at every u of us, at the midpoint of each
// item's exact interval and at the floats next to each interval's edges
// (the item drawn has its exact interval, under the exact ρ and λ, within
// UDist of u, has positive probability, exactly and as returned, and comes
// with the p that Prob returns). Midpoints and edges are taken for every item when n ≤ 64 and
// otherwise for ranks 1, 2, ρ − 1, ρ, ρ + 1, n − 1, n and 31 spread between.
func Verify(s reweighted.Sampler, keys []float64, eps float64, us []float64) error {
	n := len(keys)
	ex, probs, err := verifyValues(s, keys, eps)
	if err != nil || n == 0 {
		return err
	}
	rho := ex.Rho
	// The exact interval of each item met, formed once: the probes ask for
	// the same one at five u, and each quotient is reduced by a greatest
	// common divisor.
	intervals := map[int][2]*big.Rat{}
	interval := func(i int) (lo, hi *big.Rat) {
		v, ok := intervals[i]
		if !ok {
			v[0], v[1] = ex.Interval(i, rho)
			intervals[i] = v
		}
		return v[0], v[1]
	}
	check := func(u float64) error {
		i, p, err := s.Sample(eps, u)
		if err != nil {
			return fmt.Errorf("Sample(%v, %v): %w", eps, u, err)
		}
		if i < 0 || i >= n {
			return fmt.Errorf("Sample(%v, %v) = item %d out of range", eps, u, i)
		}
		// The caller divides by p: an item whose p rounds to 0 is never
		// drawn, however close u lies to its interval.
		if !(p > 0) {
			return fmt.Errorf("Sample(%v, %v) = item %d (rank %d) with p = %v", eps, u, i, ex.Rank[i], p)
		}
		if math.Float64bits(p) != math.Float64bits(probs[i]) {
			return fmt.Errorf("Sample(%v, %v) = (%d, %v) but Prob(%d) = %v", eps, u, i, p, i, probs[i])
		}
		if ex.ProbAt(i, rho).Sign() == 0 {
			return fmt.Errorf("Sample(%v, %v) = item %d (rank %d) whose probability is 0", eps, u, i, ex.Rank[i])
		}
		lo, hi := interval(i)
		if d := Distance(u, lo, hi); d > UDist {
			want := ex.Locate(u)
			return fmt.Errorf("Sample(%v, %v) = item %d (rank %d), %.3g away from its interval; want item %d (rank %d), ρ = %d",
				eps, u, i, ex.Rank[i], d, want, ex.Rank[want], rho)
		}
		return nil
	}
	for _, u := range us {
		if err := check(u); err != nil {
			return err
		}
	}
	for _, r := range probeRanks(n, rho) {
		i := ex.Order[r-1]
		if ex.ProbAt(i, rho).Sign() == 0 {
			continue
		}
		lo, hi := interval(i)
		mid := new(big.Rat).Add(lo, hi)
		mid.Quo(mid, big.NewRat(2, 1))
		l, h, m := ratFloat(lo), ratFloat(hi), ratFloat(mid)
		for _, u := range []float64{m, l, math.Nextafter(l, 1), math.Nextafter(h, 0), h} {
			if u < 0 || u >= 1 {
				continue
			}
			if err := check(u); err != nil {
				return fmt.Errorf("near the interval of rank %d: %w", r, err)
			}
		}
	}
	return nil
}

// verifyValues checks what Verify and VerifyLaw share: Len, Key, Solve
// (ρ equal to the exact ρ, λ within RelLambda) and Prob (total variation
// within TV, and the KKT certificate); it returns the oracle (nil for no
// keys) and the Prob of every item.
func verifyValues(s reweighted.Distribution, keys []float64, eps float64) (*Exact, []float64, error) {
	n := len(keys)
	if s.Len() != n {
		return nil, nil, fmt.Errorf("Len() = %d, want %d", s.Len(), n)
	}
	for i, a := range keys {
		if k := s.Key(i); math.Float64bits(k) != math.Float64bits(a+0) {
			return nil, nil, fmt.Errorf("Key(%d) = %v, want %v", i, k, a)
		}
	}
	if n == 0 {
		return nil, nil, nil
	}
	ex := Oracle(keys, eps)
	rho, lambda, err := s.Solve(eps)
	if err != nil {
		return nil, nil, fmt.Errorf("Solve(%v): %w", eps, err)
	}
	if rho != ex.Rho {
		return nil, nil, fmt.Errorf("Solve(%v) ρ = %d, exact ρ = %d", eps, rho, ex.Rho)
	}
	if ex.AllZero {
		if rho != n || lambda != 0 {
			return nil, nil, fmt.Errorf("Solve(%v) with all keys 0 = (%d, %v), want (%d, 0)", eps, rho, lambda, n)
		}
	} else if !CloseRel(lambda, ex.Lambda, RelLambda) {
		return nil, nil, fmt.Errorf("Solve(%v) λ = %v (ρ = %d), exact λ = %v (ρ = %d)", eps, lambda, rho, ratFloat(ex.Lambda), ex.Rho)
	}
	probs := make([]float64, n)
	tv := 0.0
	for i := range n {
		p, err := s.Prob(i, eps)
		if err != nil {
			return nil, nil, fmt.Errorf("Prob(%d, %v): %w", i, eps, err)
		}
		probs[i] = p
		tv += math.Abs(p - ratFloat(ex.P[i]))
	}
	if tv/2 > TV {
		return nil, nil, fmt.Errorf("at ε = %v, Prob is at total variation %.3g from exact p* (ρ = %d, exact ρ = %d)", eps, tv/2, rho, ex.Rho)
	}
	if err := KKT(keys, eps, probs); err != nil {
		return nil, nil, fmt.Errorf("at ε = %v, Prob fails: %w; %s", eps, err, farthest(ex, probs))
	}
	return ex, probs, nil
}

// farthest names the items whose p is farthest from the exact p*,
// relatively, three at most.
func farthest(ex *Exact, probs []float64) string {
	off := func(i int) float64 {
		q := ratFloat(ex.P[i])
		if q == 0 {
			return math.Abs(probs[i])
		}
		return math.Abs(probs[i]/q - 1)
	}
	items := make([]int, len(probs))
	for i := range items {
		items[i] = i
	}
	sort.SliceStable(items, func(a, b int) bool { return off(items[a]) > off(items[b]) })
	parts := []string{}
	for _, i := range items[:min(3, len(items))] {
		parts = append(parts, fmt.Sprintf("item %d (rank %d of %d, ρ = %d): p = %v, exact p* = %v", i, ex.Rank[i], ex.N, ex.Rho, probs[i], ratFloat(ex.P[i])))
	}
	return "the items farthest from the exact p*: " + strings.Join(parts, "; ")
}

// ItemAt returns the item whose exact interval under rho contains u, or −1
// if none does (u outside [0, 1)).
func (e *Exact) ItemAt(u float64, rho int) int {
	x := new(big.Rat).SetFloat64(u)
	if x == nil {
		return -1
	}
	for _, i := range e.Order {
		lo, hi := e.Interval(i, rho)
		if x.Cmp(lo) >= 0 && x.Cmp(hi) < 0 {
			return i
		}
	}
	return -1
}

// Locate returns the item whose exact interval under the exact ρ contains
// u, as ItemAt does, by a binary search over the intervals in the order
// Algorithm 4 lays them out: ranks 1 to ρ, then n down to ρ + 1.
func (e *Exact) Locate(u float64) int {
	x := new(big.Rat).SetFloat64(u)
	if x == nil || x.Sign() < 0 || x.Cmp(big.NewRat(1, 1)) >= 0 {
		return -1
	}
	at := func(k int) int { // the item of the k-th interval in u order
		if e.AllZero || k < e.Rho {
			return e.Order[k]
		}
		return e.Order[e.N-1-(k-e.Rho)]
	}
	// The last interval whose lower end is at most u; intervals are
	// contiguous and their lower ends non-decreasing.
	k := sort.Search(e.N, func(k int) bool {
		lo, _ := e.Interval(at(k), e.Rho)
		return lo.Cmp(x) > 0
	}) - 1
	for ; k >= 0; k-- {
		if _, hi := e.Interval(at(k), e.Rho); hi.Cmp(x) > 0 {
			return at(k)
		}
	}
	return -1
}

// probeRanks lists the ranks whose interval midpoints Verify draws: all of
// them when n ≤ 64, else 1, 2, ρ − 1, ρ, ρ + 1, n − 1, n and 31 spread
// between.
func probeRanks(n, rho int) []int {
	probe := map[int]bool{1: true, 2: true, rho - 1: true, rho: true, rho + 1: true, n - 1: true, n: true}
	for k := 1; k < 32; k++ {
		probe[1+k*(n-1)/32] = true
	}
	var out []int
	for r := 1; r <= n; r++ {
		if n <= 64 || probe[r] {
			out = append(out, r)
		}
	}
	return out
}

// CloseRel reports whether the float x is within rel of the exact y,
// |x − y| ≤ rel·|y|, or within one step of the subnormal grid when y is too
// small to carry rel precision.
func CloseRel(x float64, y *big.Rat, rel float64) bool {
	d, bound := relErr(x, y, rel)
	return d != nil && d.Cmp(bound) <= 0
}

// RelErrRatio returns |x − y| over the bound of CloseRel, rel·|y| plus one
// step of the subnormal grid: at most 1 exactly when CloseRel holds, up to
// the rounding of the quotient; +Inf for a NaN or infinite x.
func RelErrRatio(x float64, y *big.Rat, rel float64) float64 {
	d, bound := relErr(x, y, rel)
	if d == nil {
		return math.Inf(1)
	}
	r, _ := d.Quo(d, bound).Float64()
	return r
}

// relErr returns |x − y| and CloseRel's bound on it; d is nil for a NaN or
// infinite x.
func relErr(x float64, y *big.Rat, rel float64) (d, bound *big.Rat) {
	bound = new(big.Rat).Abs(y)
	bound.Mul(bound, new(big.Rat).SetFloat64(rel))
	bound.Add(bound, new(big.Rat).SetFloat64(math.SmallestNonzeroFloat64))
	d = new(big.Rat).SetFloat64(x)
	if d == nil {
		return nil, bound
	}
	d.Sub(d, y)
	return d.Abs(d), bound
}

// KKT checks that p is optimal for min Σ a_i²/p_i over Δ(ε) by its
// Karush–Kuhn–Tucker conditions, independently of how p was computed:
// p is feasible (every p_i ≥ ε, Σ p_i = 1), there is one λ with p_i = a_i/λ
// wherever p_i ≠ ε, and a_i ≤ ε·λ wherever p_i = ε. Comparisons are made in
// exact arithmetic with a relative slack of 1e-9 for the rounding of p.
//
// Every float is a whole number of units of 2^-1074, and ε is one too or
// exactly 1/n, so each condition, multiplied out by its positive
// denominators, is a comparison of integers: no rational is formed, and
// no greatest common divisor computed (those took 17 µs an item).
func KKT(keys []float64, eps float64, p []float64) error {
	n := len(keys)
	if len(p) != n || n == 0 {
		return fmt.Errorf("KKT: %d keys, %d probabilities", n, len(p))
	}
	// ε = epsN/epsD exactly; a float x is units(x)/unitsOne.
	var epsN, epsD big.Int
	if eps == 1/float64(n) {
		epsN.SetInt64(1)
		epsD.SetInt64(int64(n))
	} else {
		units(&epsN, eps)
		epsD.Set(unitsOne)
	}
	g := big.NewInt(1e9) // the slack is 1/g
	var x, y, z, m big.Int
	// p_i ≥ ε(1 − 1/g) ⇔ P_i·epsD·g ≥ epsN·(g − 1)·unitsOne.
	low := new(big.Int).Mul(&epsN, y.Sub(g, big.NewInt(1)))
	low.Mul(low, unitsOne)
	dg := new(big.Int).Mul(&epsD, g)
	// An item is in the tail when p_i is ε within the slack, |p_i − ε| ≤
	// ε/g ⇔ g·|P_i·epsD − epsN·unitsOne| ≤ epsN·unitsOne: a p_i of ε
	// rounded another way, a few ulps off, counted in the head, would move
	// λ by the whole tail's mass and blame the head items for it.
	epsUnits := new(big.Int).Mul(&epsN, unitsOne)
	tail := make([]bool, n)
	var sum, headKeys, headP big.Int
	for i, q := range p {
		if math.IsNaN(q) || math.IsInf(q, 0) || q < 0 {
			return fmt.Errorf("KKT: p[%d] = %v", i, q)
		}
		units(&x, q)
		sum.Add(&sum, &x)
		if y.Mul(&x, dg).Cmp(low) < 0 {
			return fmt.Errorf("KKT: p[%d] = %v below ε = %v", i, q, eps)
		}
		y.Mul(&x, &epsD)
		tail[i] = y.Sub(&y, epsUnits).Abs(&y).Mul(&y, g).Cmp(epsUnits) <= 0
		if !tail[i] {
			headKeys.Add(&headKeys, units(&y, keys[i]))
			headP.Add(&headP, &x)
		}
	}
	// |Σp − 1| ≤ 1/g ⇔ g·|ΣP − unitsOne| ≤ unitsOne.
	if y.Sub(&sum, unitsOne).Abs(&y).Mul(&y, g).Cmp(unitsOne) > 0 {
		f, _ := new(big.Rat).SetFrac(&sum, unitsOne).Float64()
		return fmt.Errorf("KKT: Σp = %v", f)
	}
	if allZero(keys) {
		return nil // every feasible p is optimal
	}
	if headP.Sign() == 0 {
		return nil // every p_i = ε and Σp = 1: nε = 1, the only feasible point
	}
	// λ = headKeys/headP. a_i > ε·λ·(1 + 1/g) ⇔
	// A_i·headP·epsD·g > epsN·headKeys·(g + 1)·unitsOne.
	high := new(big.Int).Mul(&epsN, &headKeys)
	high.Mul(high, y.Add(g, big.NewInt(1)))
	high.Mul(high, unitsOne)
	ghk := new(big.Int).Mul(g, &headKeys)
	// The head item farthest from a/λ, by its deviation over its bound:
	// when one item is off, λ moves with it, and the item to name is the
	// one off the most, not the first in index order.
	worst := -1
	var worstD, worstB, b big.Int
	for i, q := range p {
		// Stationarity: |a_i − λ·p_i| ≤ a_i/g + λ·2^-1074 (the last term for
		// a p_i that underflowed) ⇔ g·|A_i·headP − headKeys·P_i| ≤
		// A_i·headP + g·headKeys.
		ah := mulUnits(&x, &headP, keys[i], &m)
		d := mulUnits(&y, &headKeys, q, &m)
		d.Sub(ah, d).Abs(d).Mul(d, g)
		b.Add(ah, ghk)
		stationary := d.Cmp(&b) <= 0
		if tail[i] {
			// Complementary slackness: a_i ≤ ε·λ·(1 + 1/g), unless p_i is
			// a/λ that happens to equal ε (or underflowed to ε = 0).
			if z.Mul(ah, dg).Cmp(high) > 0 && !stationary {
				return fmt.Errorf("KKT: p[%d] = ε but a = %v > ε·λ", i, keys[i])
			}
			continue
		}
		// d/b > worstD/worstB ⇔ d·worstB > worstD·b.
		if !stationary && (worst < 0 || z.Mul(d, &worstB).Cmp(m.Mul(&worstD, &b)) > 0) {
			worst = i
			worstD.Set(d)
			worstB.Set(&b)
		}
	}
	if worst >= 0 {
		lambda, _ := new(big.Rat).SetFrac(&headKeys, &headP).Float64()
		return fmt.Errorf("KKT: p[%d] = %v is not a/λ = %v/%v, nor ε = %v (λ from the items whose p is not ε; the item farthest from a/λ)",
			worst, p[worst], keys[worst], lambda, eps)
	}
	return nil
}

// unitsOne is 2^1074, the number of units of 2^-1074 in 1.
var unitsOne = new(big.Int).Lsh(big.NewInt(1), 1074)

// units sets z to the float x (finite) in units of 2^-1074, exactly, and
// returns z.
func units(z *big.Int, x float64) *big.Int {
	m, sh := unitParts(x)
	z.SetUint64(m).Lsh(z, sh)
	if x < 0 {
		z.Neg(z)
	}
	return z
}

// mulUnits sets z to y times the float x (finite) in units of 2^-1074,
// using m, and returns z.
func mulUnits(z, y *big.Int, x float64, m *big.Int) *big.Int {
	mm, sh := unitParts(x)
	z.Mul(y, m.SetUint64(mm)).Lsh(z, sh)
	if x < 0 {
		z.Neg(z)
	}
	return z
}

// unitParts returns m and sh with |x| = m·2^sh units of 2^-1074.
func unitParts(x float64) (uint64, uint) {
	b := math.Float64bits(x)
	e, m := b>>52&0x7ff, b&(1<<52-1)
	if e == 0 {
		return m, 0 // subnormal or zero
	}
	return m | 1<<52, uint(e - 1)
}

// Compare checks that a and b, two samplers holding keys, agree item for
// item at the bound eps: the same ρ, λ within 2·RelLambda of each other,
// and for every u of us items with p > 0, the same item with p within a
// relative 1e-9, except where u lies within UDist of an edge of the exact
// interval of either item drawn (where rounding may pick either
// neighbour). It returns how many u were excused at an edge.
func Compare(a, b reweighted.Sampler, keys []float64, eps float64, us []float64) (edges int, err error) {
	ra, la, errA := a.Solve(eps)
	rb, lb, errB := b.Solve(eps)
	if err := errors.Join(errA, errB); err != nil {
		return 0, err
	}
	if ra != rb {
		return 0, fmt.Errorf("ρ = %d and %d at ε = %v", ra, rb, eps)
	}
	if !closeFloat(la, lb, 2*RelLambda) {
		return 0, fmt.Errorf("λ = %v and %v at ε = %v", la, lb, eps)
	}
	var ex *Exact
	for _, u := range us {
		i, pa, errA := a.Sample(eps, u)
		j, pb, errB := b.Sample(eps, u)
		if err := errors.Join(errA, errB); err != nil {
			return edges, err
		}
		if !(pa > 0 && pb > 0) {
			return edges, fmt.Errorf("at ε = %v, u = %v: items %d and %d with p = %v and %v", eps, u, i, j, pa, pb)
		}
		if i == j {
			if !closeFloat(pa, pb, 1e-9) {
				return edges, fmt.Errorf("at ε = %v, u = %v: item %d with p = %v and %v", eps, u, i, pa, pb)
			}
			continue
		}
		if ex == nil {
			ex = Oracle(keys, eps)
		}
		near := func(item int) bool {
			lo, hi := ex.Interval(item, ex.Rho)
			return min(Distance(u, lo, lo), Distance(u, hi, hi)) <= UDist
		}
		if !near(i) || !near(j) {
			return edges, fmt.Errorf("at ε = %v, u = %v: items %d and %d (ranks %d and %d), not at an interval's edge",
				eps, u, i, j, ex.Rank[i], ex.Rank[j])
		}
		edges++
	}
	return edges, nil
}

// closeFloat reports whether x and y agree to a relative rel, or lie within
// four subnormal steps of each other: each of two samplers may round a
// subnormal λ or p a step or two away from the exact value.
func closeFloat(x, y, rel float64) bool {
	return math.Abs(x-y) <= rel*math.Max(math.Abs(x), math.Abs(y))+4*math.SmallestNonzeroFloat64
}
