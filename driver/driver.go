// Package driver turns an index structure into a reweighted.Sampler. A
// backend is an Index — ranks, partial sums and one descent for ρ over keys
// kept in the canonical order — and the Driver, embedded in the backend's
// type, does everything else the contract asks: argument checks in the
// contract's order, the all-zero case, the exact MaxSum check, the exact ρ
// and λ of Lemma 1, Algorithm 4's map from a uniform number to a rank, and
// the rule that no item whose p* rounds to 0 is ever returned.
//
// # Writing a backend
//
// Implement Index (and Checker, if the structure has invariants worth
// checking), embed a Driver made by New, and the type is a Sampler:
//
//	type Sampler struct {
//		driver.Driver
//		ix myIndex
//	}
//
//	func NewSampler(n int) *Sampler {
//		s := &Sampler{ix: newMyIndex(n)}
//		s.Driver = driver.New(&s.ix)
//		return s
//	}
//
// The Driver validates every argument before it calls the Index, so an
// Index never sees a bad item, key or bound. What the Index must get right
// is the order, the ranks and the sums: every float sum it returns (Total,
// the partial sums behind SelectSum and Cut) must be formed by additions of
// non-negative keys, never by subtracting a key from a sum, through at most
// SumDepth() roundings per key. The exact ρ rests on that bound. Then
//
//	samplertest.Run(t, func(n int) reweighted.Sampler { return NewSampler(n) })
//
// checks the backend against the whole contract and an exact rational
// oracle, and packages fuzz and bench take the same constructor (see
// fuzz.Histories and bench.Run). The example of Index builds a sampler from a
// sorted slice in this way.
//
// The Driver saves and restores the keys (MarshalBinary, AppendBinary,
// UnmarshalBinary, in the format of reweighted.AppendState); an index that
// implements Resizer restores a saved state of any size, which the kit
// asks for. A backend's Clone copies its index and takes a copy of its
// Driver from Rebind.
//
// # Design
//
// The arithmetic of the paper lives here once, so a numerical fix lands in
// every backend at once. The exact reference of package samplertest shares
// none of this code. The sections below say how the Driver keeps the
// contract exactly.
//
// # Exact ρ
//
// ρ is the largest rank r with a_(r)·(1 − (n − r)ε) ≥ ε·S(r). A backend
// evaluates that predicate, through Cutoff.Holds, at the O(log n) ranks of
// one descent, with the partial sums S̃(r) its nodes hold. Every such sum is
// formed by additions of non-negative floats, through at most D roundings
// per key, D the depth of the tree of additions that forms it (the index's
// SumDepth: O(log n) for a balanced tree, and never more than n), so
// |S̃ − S| ≤ γ_D·S with γ_D = D·u/(1 − D·u), u = 2^-53, whatever the
// history of the structure. Holds compares the two sides in floating point
// and answers at once when they differ by more than that bound and the
// roundings of the products, a relative (D + 8)·2^-52; inside the bound it
// decides exactly, summing the r largest keys in an exact accumulator and
// comparing integers. The first exact decision of a descent walks the r
// keys of ranks up to its own in rank order; the next ones step that exact
// sum forward or back to their rank, so a descent walks O(n) keys in all
// (in practice about ρ), plus a few big.Int products of about 3000 bits per
// decision, and allocates. It happens only when a key lies within a
// relative (D + 8)·2^-52 of its cutoff ε·λ(r), about 10^-13 for a tree of
// 2^20 keys: for keys spread like gradient norms, where neighbouring keys
// differ by a relative 10^-6 or more, rarely (not once in 10^6 SRG steps of
// 2^20 |N(0, 1)| keys); but on every descent for keys placed on the cutoff
// on purpose (BenchmarkSampleCutoff: 0.12–0.26 ms per Sample at n = 2^14).
//
// With ε = 1/float64(n), read as exactly 1/n, the predicate at rank r is
// a_(r)·r ≥ S(r), which holds exactly when the r largest keys are equal, so
// Holds compares the key with the largest one. With ε = 0 it holds at every
// rank, and there is no descent.
//
// # Batches
//
// SampleBatch maps many uniform numbers with one Solve, and SetBatch
// applies many key changes, all or nothing, with one exact MaxSum check on
// the total after the batch. An Index may speed them up with two optional
// methods, which the Driver probes once, in New:
//
//   - BatchSelector: SelectSums answers, for targets in increasing order,
//     exactly what SelectSum answers for each, bit for bit (same item, rank
//     and key, −1 where SelectSum gives −1), and writes nothing. The
//     Driver then applies to each answer the same edge rules as Sample, so
//     a batch draws the items Sample draws.
//   - BatchUpdater: UpdateBatch applies distinct changes, in the order of
//     their last entries in the batch, each a valid key different from
//     the item's own, already checked against MaxSum. Afterwards the index must satisfy
//     everything Update one change at a time would leave it satisfying:
//     the same keys in the same canonical order, its sums formed by
//     additions within its SumDepth, its Check sound.
//
// Without them, SampleBatch calls SelectSum once per number in the head,
// and SetBatch calls Update once per change.
//
// # Exact MaxSum
//
// Set and SetBatch refuse a change when the exact sum of all keys after it
// would pass MaxSum. The float total after m changes is within
// (n + 3m + 4)·2^-53 of the exact one near MaxSum; only when it falls
// inside a band at least four times as wide are the keys summed exactly,
// in O(n).
package driver

import (
	"cmp"
	"fmt"
	"math"

	"github.com/reweighted/reweighted"
	"github.com/reweighted/reweighted/internal/check"
)

// Before reports whether item i with key a precedes item j with key b in
// the canonical order of the contract: larger keys first, equal keys by
// index.
func Before(a float64, i int32, b float64, j int32) bool {
	return a > b || (a == b && i < j)
}

// Index is what a backend implements: a set of n keys kept in canonical
// order (key descending, equal keys by index ascending; rank 1 first) with
// the partial sums of that order. The Driver validates every argument before
// calling it, so an Index never sees a bad index, key or bound.
//
// Every float sum an Index returns must be formed by additions of
// non-negative floats over the keys it covers, never by subtraction: that is
// what the error bound of Holds relies on.
type Index interface {
	// Len returns n.
	Len() int
	// Key returns the key of item i; it panics unless 0 ≤ i < n.
	Key(i int) float64
	// Total returns the sum of all keys.
	Total() float64
	// Update replaces the key of item i by a, a valid key different from
	// the current one.
	Update(i int, a float64)
	// Build replaces all keys at once by keys, valid and of length n.
	Build(keys []float64)
	// Rank returns the rank of item i, in [1, n].
	Rank(i int) int
	// Select returns the item of rank r, 1 ≤ r ≤ n.
	Select(r int) int
	// SelectSum returns the item of smallest rank whose partial sum (its
	// key and those of smaller ranks) times scale exceeds target, its rank
	// and its key (which the descent has at hand: a lookup by item may be
	// one more cache miss). Where rounding leaves no such item in the
	// subtree a descent entered, it returns item −1 and the rank after the
	// last one visited; where no partial sum at all exceeds the target, −1
	// and n + 1.
	SelectSum(target, scale float64) (item, rank int, key float64)
	// Cut returns the largest rank r at which c.Holds(a_(r), S(r), r) holds,
	// found by one descent (the predicate holds on a prefix of ranks), and
	// its partial sum S(r). The sum of all keys is positive when Cut is
	// called.
	Cut(c Cutoff) (rho int, sum float64)
	// Walk calls f with the item and key of ranks from, from + 1, …, to in
	// that order, 1 ≤ from, to ≤ n; nothing if from > to.
	Walk(from, to int, f func(item int, key float64))
	// SumDepth returns a bound D on the number of roundings any key goes
	// through in a sum the index returns (Total, and the partial sums of
	// SelectSum and Cut): the depth of the tree of additions that forms
	// it. Then |S̃ − S| ≤ γ_D·S, γ_D = D·u/(1 − D·u), u = 2^-53, which the
	// exact ρ relies on. A bound of n holds for sums added left to right; a
	// tree of height h gives O(h).
	SumDepth() int
}

// Checker is an Index that can verify its own invariants.
type Checker interface {
	Check() error
}

// Driver implements reweighted.Sampler over an Index: Len, Key, Set,
// Solve, Sample and Prob, with Load and Probs for whole vectors and Check
// for the invariants. Embed the Driver that New returns in the backend's
// type. Its read methods (Len, Key, Solve, Sample, SampleBatch, Prob,
// Probs) write nothing, so they may run concurrently with each other as
// long as the Index's reads write nothing either; Set, SetBatch and Load
// may not run concurrently with anything.
type Driver struct {
	ix    Index
	zeros int // the number of keys equal to 0
	// The index's optional fast paths, nil if it lacks them: asserted once
	// here, since a type assertion in a hot path may allocate when the
	// runtime fills its cache.
	sel BatchSelector
	upd BatchUpdater
}

// CheckSize panics, naming pkg, unless 0 ≤ n ≤ math.MaxInt32: New panics
// for n < 0 as make does, and the indexes link items by int32.
func CheckSize(pkg string, n int) {
	if n < 0 {
		panic(fmt.Sprintf("%s: New(%d): negative size", pkg, n))
	}
	if n > math.MaxInt32 {
		panic(fmt.Sprintf("%s: New(%d): more than %d items", pkg, n, math.MaxInt32))
	}
}

// New returns the Driver of the index ix, which it counts the zero keys
// of, in O(n). A backend embeds it as a value, so that its methods are the
// backend's:
//
//	type Sampler struct {
//		driver.Driver
//		ix myIndex
//	}
//
//	s := &Sampler{ix: ...}
//	s.Driver = driver.New(&s.ix)
func New(ix Index) Driver {
	d := Driver{ix: ix}
	d.sel, _ = ix.(BatchSelector)
	d.upd, _ = ix.(BatchUpdater)
	for i := range ix.Len() {
		if ix.Key(i) == 0 {
			d.zeros++
		}
	}
	return d
}

// Index returns the index the Driver was made from. Changing it other than
// through the Driver breaks the Driver: the index is for reading (tests,
// inspection).
func (d *Driver) Index() Index { return d.ix }

// Len returns the number of items; a zero Driver has none.
func (d *Driver) Len() int {
	if d.ix == nil {
		return 0
	}
	return d.ix.Len()
}

// Key returns the key of item i. It panics unless 0 ≤ i < Len().
func (d *Driver) Key(i int) float64 { return d.ix.Key(i) }

func checkU(u float64) error {
	if !(u >= 0 && u < 1) {
		return fmt.Errorf("%w: %v not in [0, 1)", reweighted.ErrUniform, u)
	}
	return nil
}

// Set replaces the key of item i by a. Errors, in this order: ErrEmpty if
// there are no items, ErrIndex, ErrKey.
func (d *Driver) Set(i int, a float64) error {
	n := d.Len()
	if n == 0 {
		return reweighted.ErrEmpty
	}
	if err := check.Index(i, n); err != nil {
		return err
	}
	a, err := check.Key(a)
	if err != nil {
		return err
	}
	old := d.ix.Key(i)
	if a == old {
		return nil
	}
	if a > old && !d.fits(old, a) {
		return fmt.Errorf("%w: key %v would make the sum of keys exceed MaxSum", reweighted.ErrKey, a)
	}
	if old == 0 {
		d.zeros--
	}
	if a == 0 {
		d.zeros++
	}
	d.ix.Update(i, a)
	return nil
}

// fits reports whether the exact sum of the keys, with a in place of one
// key old, is at most MaxSum.
func (d *Driver) fits(old, a float64) bool {
	return d.fitsBatch([]float64{old}, []float64{a})
}

// Load replaces all keys by keys, one per item, in O(n) plus the backend's
// build. It checks every key as Set does and the exact sum against MaxSum;
// a rejected call changes nothing. It returns ErrBatch (a length mismatch,
// as SetBatch does) unless there is one key per item, and ErrKey for a bad
// key or a sum above MaxSum.
func (d *Driver) Load(keys []float64) error {
	n := d.Len()
	if len(keys) != n || n == 0 {
		if n == 0 && len(keys) == 0 {
			return nil
		}
		return fmt.Errorf("%w: %d keys for %d items", reweighted.ErrBatch, len(keys), n)
	}
	clean := make([]float64, n)
	s := scratchPool.Get().(*scratch)
	defer scratchPool.Put(s)
	acc := &s.acc
	acc.Reset()
	zeros := 0
	for i, a := range keys {
		a, err := check.Key(a)
		if err != nil {
			return fmt.Errorf("key of item %d: %w", i, err)
		}
		clean[i] = a
		acc.Add(a)
		if a == 0 {
			zeros++
		}
	}
	if acc.Int(&s.t).Cmp(maxSumUnits) > 0 {
		return fmt.Errorf("%w: the keys sum to more than MaxSum", reweighted.ErrKey)
	}
	d.ix.Build(clean)
	d.zeros = zeros
	return nil
}

// bound is a validated lower bound ε for n ≥ 1 items.
type bound struct {
	n       int
	eps     float64
	uniform bool // ε == 1/float64(n), read as exactly 1/n
}

// bound validates ε: ErrEmpty if n = 0, ErrEpsilon unless 0 ≤ ε ≤ 1/n.
func (d *Driver) bound(eps float64) (bound, error) {
	n := d.Len()
	if n == 0 {
		return bound{}, reweighted.ErrEmpty
	}
	top := 1 / float64(n)
	if !(eps >= 0 && eps <= top) {
		return bound{}, fmt.Errorf("%w: ε = %v not in [0, 1/%d]", reweighted.ErrEpsilon, eps, n)
	}
	return bound{n: n, eps: eps, uniform: eps == top}, nil
}

// c returns 1 − (n − r)ε, the mass left to the r largest keys.
func (b bound) c(r int) float64 {
	if b.uniform {
		return float64(r) / float64(b.n)
	}
	// FMA rounds once, which matters when (n−r)ε is close to 1.
	return math.FMA(-float64(b.n-r), b.eps, 1)
}

// lambda returns λ(r) = s/(1 − (n − r)ε).
func (b bound) lambda(s float64, r int) float64 {
	if b.uniform {
		return s * float64(b.n) / float64(r)
	}
	return s / b.c(r)
}

// prob returns p* of a key a of rank at most ρ, s the sum of the ρ largest
// keys. Dividing a by s first keeps full precision when λ is subnormal.
func (b bound) prob(a, s float64, rho int) float64 {
	return a / s * b.c(rho)
}

// solve returns the exact ρ and the index's sum of the ρ largest keys; the
// keys are not all 0.
func (d *Driver) solve(b bound) (rho int, s float64) {
	if b.eps == 0 {
		// ε·λ = 0: the predicate holds at every rank.
		return b.n, d.ix.Total()
	}
	c := Cutoff{n: b.n, eps: b.eps, uniform: b.uniform, slack: slack(min(b.n, d.ix.SumDepth())), ix: d.ix}
	if b.uniform {
		c.top = d.ix.Key(d.ix.Select(1))
	}
	rho, s = d.ix.Cut(c)
	if rho < 1 || rho > b.n {
		panic(fmt.Sprintf("driver: index's Cut returned ρ = %d for n = %d", rho, b.n))
	}
	return rho, s
}

// slack returns 1 + (D + 8)·2^-52: the relative gap between the two float
// sides of the predicate beyond which neither the rounding of sums formed
// by at most D additions (γ_D ≤ (D + 1)·2^-53 for D·u ≪ 1) nor the roundings
// of the products (a few u) can change the answer.
func slack(depth int) float64 { return 1 + float64(depth+8)*0x1p-52 }

// Solve returns ρ and λ(ρ) of Lemma 1 for the bound eps.
func (d *Driver) Solve(eps float64) (rho int, lambda float64, err error) {
	b, err := d.bound(eps)
	if err != nil {
		return 0, 0, err
	}
	if d.zeros == b.n {
		return b.n, 0, nil
	}
	rho, s := d.solve(b)
	return rho, b.lambda(s, rho), nil
}

// Prob returns p*_i for the bound eps.
func (d *Driver) Prob(i int, eps float64) (float64, error) {
	n := d.Len()
	if n == 0 {
		return 0, reweighted.ErrEmpty
	}
	if err := check.Index(i, n); err != nil {
		return 0, err
	}
	b, err := d.bound(eps)
	if err != nil {
		return 0, err
	}
	if d.zeros == n {
		return 1 / float64(n), nil
	}
	rho, s := d.solve(b)
	if d.ix.Rank(i) <= rho {
		return b.prob(d.ix.Key(i), s, rho), nil
	}
	return b.eps, nil
}

// Probs appends p*_i of every item i, in index order, to dst[:0] and returns
// it, in O(n): the same values as Prob, bit for bit.
func (d *Driver) Probs(eps float64, dst []float64) ([]float64, error) {
	b, err := d.bound(eps)
	if err != nil {
		return dst, err
	}
	dst = append(dst[:0], make([]float64, b.n)...)
	if d.zeros == b.n {
		for i := range dst {
			dst[i] = 1 / float64(b.n)
		}
		return dst, nil
	}
	rho, s := d.solve(b)
	for i := range dst {
		dst[i] = b.eps
	}
	sc := scratchPool.Get().(*scratch)
	sc.dst, sc.b, sc.s, sc.rho = dst, b, s, rho
	d.ix.Walk(1, rho, sc.setProb)
	sc.dst = nil
	scratchPool.Put(sc)
	return dst, nil
}

// Sample maps u to an item as Algorithm 4 does and returns it with its
// probability.
func (d *Driver) Sample(eps, u float64) (int, float64, error) {
	b, err := d.bound(eps)
	if err != nil {
		return 0, 0, err
	}
	if err := checkU(u); err != nil {
		return 0, 0, err
	}
	n := b.n
	if d.zeros == n {
		i, p := d.uniformItem(u, n)
		return i, p, nil
	}
	rho, s := d.solve(b)
	c := b.c(rho)
	if u >= c {
		i, p := d.tailItem(b, rho, c, u)
		return i, p, nil
	}
	scale := 1.0
	if s < 0x1p-500 {
		scale = headScale(s)
	}
	item, r, a := d.ix.SelectSum(u/c*(s*scale), scale)
	if item >= 0 && r <= min(rho, n-d.zeros) {
		// The common case, which headItem leaves as it is, without its
		// call.
		if p := b.prob(a, s, rho); p > 0 {
			return item, p, nil
		}
	}
	item, p := d.headItem(b, rho, s, item, r, a)
	return item, p, nil
}

// uniformItem is Sample with all keys 0: rank ⌊un⌋ + 1.
func (d *Driver) uniformItem(u float64, n int) (int, float64) {
	return d.ix.Select(min(int(u*float64(n))+1, n)), 1 / float64(n)
}

// tailItem is Sample in the ε region, u ≥ c = 1 − (n − ρ)ε: slices of
// width ε for ranks n, n − 1, …, ρ + 1.
func (d *Driver) tailItem(b bound, rho int, c, u float64) (int, float64) {
	q := (u - c) / b.eps
	r := rho + 1
	if q < float64(b.n-rho-1) {
		r = b.n - int(q)
	}
	return d.ix.Select(r), b.eps
}

// headScale returns the power of two that the target and the partial sums
// of a descent are multiplied by, for the sum s of the ρ largest keys: 1,
// unless s is so small that the target would lose precision.
func headScale(s float64) float64 {
	if s >= 0x1p-500 {
		return 1
	}
	// Lift s to at least 2^-74, normal with room for n of them, so that
	// the target keeps full precision.
	_, e := math.Frexp(s)
	return math.Ldexp(1, min(-e, 1000))
}

// headItem finishes Sample in the head from the answer of SelectSum (item,
// rank r and key a) and returns the item and its p.
func (d *Driver) headItem(b bound, rho int, s float64, item, r int, a float64) (int, float64) {
	// Rounding at an edge may point past ρ, or past the last positive key
	// (never drawn: p = 0): the last positive key of the head owns that
	// edge.
	if last := min(rho, b.n-d.zeros); item < 0 || r > last {
		r = min(r, last)
		item = d.ix.Select(r)
		a = d.ix.Key(item)
	}
	p := b.prob(a, s, rho)
	if p == 0 {
		// A positive key so small against the sum (a subnormal one) that
		// its p* rounds to 0: its exact interval is narrower than 2^-1074,
		// and callers divide by p, so the last rank whose p rounds above 0
		// owns it.
		item, p = d.lastPositive(b, s, rho, r)
	}
	return item, p
}

// lastPositive returns the item of largest rank below r whose p* rounds
// above 0, and that p*, by a binary search over ranks: p* = a/s·c(ρ) is
// monotone in the key, so the ranks of the head whose p* rounds to 0 are
// its last ones; rank 1 is not among them (a/s ≥ 1/n and c(ρ) ≥ ρ/n).
func (d *Driver) lastPositive(b bound, s float64, rho, r int) (int, float64) {
	lo, hi := 1, r
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		if b.prob(d.ix.Key(d.ix.Select(mid)), s, rho) > 0 {
			lo = mid
		} else {
			hi = mid
		}
	}
	item := d.ix.Select(lo)
	return item, b.prob(d.ix.Key(item), s, rho)
}

// Check verifies the index's own invariants, if it has any to check, the
// driver's count of zero keys, and that the index's Walk agrees with its
// Rank and Key over all ranks and over ranges that start and end inside.
func (d *Driver) Check() error {
	if d.ix == nil {
		return nil
	}
	if ch, ok := d.ix.(Checker); ok {
		if err := ch.Check(); err != nil {
			return err
		}
	}
	n := d.ix.Len()
	zeros := 0
	for i := range n {
		if d.ix.Key(i) == 0 {
			zeros++
		}
	}
	if zeros != d.zeros {
		return fmt.Errorf("driver: %d zero keys counted, %d held", d.zeros, zeros)
	}
	order := make([]int, 0, n)
	var err error
	d.ix.Walk(1, n, func(i int, a float64) {
		if r := len(order) + 1; err == nil && (d.ix.Rank(i) != r || d.ix.Key(i) != a) {
			err = fmt.Errorf("driver: Walk gives item %d, key %v at rank %d; Rank %d, Key %v", i, a, r, d.ix.Rank(i), d.ix.Key(i))
		}
		order = append(order, i)
	})
	if err != nil || len(order) != n {
		return cmp.Or(err, fmt.Errorf("driver: Walk(1, %d) visits %d items", n, len(order)))
	}
	for _, w := range [][2]int{{2, n}, {n / 3, 2 * n / 3}, {n / 2, n / 2}, {n, n - 1}} {
		from, to := max(w[0], 1), w[1]
		k := from - 1
		d.ix.Walk(from, to, func(i int, _ float64) {
			if err == nil && (k >= to || order[k] != i) {
				err = fmt.Errorf("driver: Walk(%d, %d) gives item %d at rank %d", from, to, i, k+1)
			}
			k++
		})
		if err != nil || k != max(to, from-1) {
			return cmp.Or(err, fmt.Errorf("driver: Walk(%d, %d) visits %d items", from, to, k-from+1))
		}
	}
	return nil
}
