package levels

import (
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"slices"

	"github.com/reweighted/reweighted"
	"github.com/reweighted/reweighted/internal/check"
)

// The kinds of a row of the proposal table.
const (
	rowLevel    = iota // a level wholly in the head
	rowPartial         // the groups of the straddling level above its straddling group
	rowStraddle        // the straddling group, head and tail items together
	rowTail            // the other items of the tail
)

// row is one choice of the first stage of a proposal: a kind, its level,
// its weight and the cumulative weight up to and including it.
type row struct {
	w, cum float64
	l      int32
	kind   uint8
}

// table is the proposal of one Solve. Every item i has a mass m_i, a_i in
// the head and t* = ε·λ in the tail, and a bound b_i ≥ m_i; one attempt
// proposes i with probability b_i/W and accepts it with probability
// m_i/b_i, so it returns i with probability m_i/W, and m ∝ p*. The bound
// of an item of a head group g is g's upper edge; of an item of the
// straddling group g, max(t*, upper edge of g), its mass tested against
// θ; of another tail item, t* itself: accepted at once. Weights are in the
// top level's unit.
//
// The rows run from the tail and the lowest head level up, so that a row
// of tiny weight (keys far below the largest) comes before the large ones
// and keeps its precision in the cumulative sums, and a uniform number
// with full relative precision near 0 (fineUniform) reaches it.
type table struct {
	rows   []row
	total  float64
	tstar  float64 // t* = ε·λ
	strB   float64 // the bound of the straddling group's items
	partLo uint64  // rowPartial: the range [partLo, wb) of its level's bound weight
	// The tail but the straddling group, in the order a tail draw counts
	// it: the groups of the straddling level below it, the levels below
	// (tails), the zero keys.
	nTail  int
	lvTail int
	// With direct, a tail draw takes a uniform item of all n until its
	// key's bits are below tailBits, the straddling group's lower edge
	// (of its level if none straddles, 1 if only zero keys are in the
	// tail): when half the items or more are tail items, a try or two,
	// each a compare, where tailLoc searches the levels and groups below
	// and reads an entry (the tail rows were a third of SRG's attempts,
	// and tailLoc a fifth of their cost).
	tailBits uint64
	direct   bool
	heads    []int32 // the levels wholly in the head, top down
	front    int     // the rows of the tail and the straddling level, before the heads'
	ts       int     // the unit of the weights, the top level's
	iz       intProp // at ε = 0, Draw's proposal of a level by exact integer weights
	// The kept table at ε = 0 with iz ok: the rest (rows, heads, total,
	// ts) is an earlier solution's, which only Draw reads, through iz;
	// solution serves the others a new table.
	rowsOld bool
}

// intProp is Draw's choice of a level at ε = 0 when the levels' bound
// weights, shifted to the unit of the lowest, base, sum below 2^62: one
// uniform integer r below their exact sum w chooses the level (a walk
// down from the top, where the mass of keys drawn in proportion to
// themselves lies) and, r shifted to the level's unit, the group, slot
// and acceptance as headChoice's number does. One number of src an
// attempt where the rows take two (the row by a float, then the number
// within it), and the writer keeps w by two exact additions a Set where
// the rows' cumulative weights are formed again.
type intProp struct {
	ok   bool
	base int32
	w    uint64
}

// intLimit bounds intProp's total weight: below it, a weight plus a
// group's bound shifted by at most intShift cannot overflow.
const (
	intLimit = 1 << 62
	intShift = 54
)

// intProp returns the integer proposal of the levels up to top at ε = 0:
// its weights from the lowest occupied level, not ok if they reach
// intLimit.
func (s *Sampler) intProp(top int) intProp {
	if top < 0 {
		return intProp{}
	}
	w := bits.TrailingZeros64(s.occW)
	base := w*64 + bits.TrailingZeros64(s.occ[w])
	if top-base > intShift {
		return intProp{} // a weight of at least 2^(top−base)
	}
	var tot uint64
	for m := base; m <= top; m++ {
		// wb is 0 for an empty level; past 62 bits, wb<<(m−base) ≥ 2^62.
		wb := s.ls[m-s.lo].wb
		if bits.Len64(wb)+m-base > 62 {
			return intProp{}
		}
		if tot += wb << (m - base); tot >= intLimit {
			return intProp{}
		}
	}
	return intProp{ok: true, base: int32(base), w: tot}
}

// attemptInt makes one attempt at ε = 0 through the integer proposal of
// t (ok) and returns the item and its p, or −1 if it rejected: r uniform
// below the total by Lemire's multiply (a second number once in 2^62/w at
// most), the level whose range holds it, then r's part in that level,
// shifted to its unit, uniform over its bound weight, chooses the group,
// slot and acceptance (headSlot); decide's tests follow, with no proposal
// between them.
func (s *Sampler) attemptInt(o *sol, t *table, src rand.Source) (int, float64) {
	w := t.iz.w
	r, lo := bits.Mul64(src.Uint64(), w)
	if lo < w {
		for th := -w % w; lo < th; {
			r, lo = bits.Mul64(src.Uint64(), w)
		}
	}
	// The levels from base to the top, by their shift d to base's unit
	// (at most intShift: the masks drop the checks of a shift past 63).
	ls := s.ls[int(t.iz.base)-s.lo : o.top-s.lo+1]
	d := len(ls) - 1
	for d >= 3 {
		// Four levels at a time with no branch on r, from the top: the
		// mass of keys drawn in proportion to themselves lies in the
		// first four, as a rule, and a walk that stops where r falls is
		// mispredicted about once a draw. c[k] is the weight of the k
		// levels from d down in units of the fourth's, 2^h, so that r <
		// c[k]·2^h exactly when r>>h < c[k]; those at or below r>>h are
		// passed (c − q − 1 negative: the weights lie below 2^62).
		h := (d - 3) & 63
		var c [4]uint64
		c[1] = ls[d].wb << 3
		c[2] = c[1] + ls[d-1].wb<<2
		c[3] = c[2] + ls[d-2].wb<<1
		c4 := c[3] + ls[d-3].wb
		if q := r >> h; q < c4 {
			k := (c[1]-q-1)>>63 + (c[2]-q-1)>>63 + (c[3]-q-1)>>63
			r -= c[k&3] << h
			d -= int(k)
			goto found
		}
		r -= c4 << h
		d -= 4
	}
	for ; d > 0; d-- {
		x := ls[d].wb << (d & 63)
		if r < x {
			break
		}
		r -= x
	}
found:
	r >>= d & 63
	l := int(t.iz.base) + d
	lv := s.lv[l-s.lo]
	j, pre := lv.findBound(l, r)
	slot, sure := headSlot(l, j, r-pre)
	e := lv.at(j, slot)
	if !sure && uniform(src) >= headFrac(l, j, e.key()) {
		return -1, 0
	}
	if q := o.prob(e.key()); q != 0 {
		return int(e.item), q
	}
	return -1, 0
}

// tails is the levels below the straddling level and their cumulative
// counts, for the tail draws of one call: built when the first tail item
// is proposed (most keys can lie below t*, in levels that only a tail
// proposal reads), then searched. A call without one (a Draw with the
// kept table, which reads may not write) walks the levels instead.
type tails struct {
	tlv   []int32
	tcum  []int
	ready bool
}

// build fills t for the solution o and returns it.
func (s *Sampler) build(o *sol, t *table) *table {
	// The slices in locals, stored back once: t may live in the heap,
	// where storing a slice header costs a write barrier's check.
	rows, heads := t.rows[:0], t.heads[:0]
	*t = table{}
	defer func() { t.rows, t.heads = rows, heads }()
	if o.zero || o.uniform {
		return t // every item is drawn uniformly
	}
	add := func(x float64, l int, kind uint8) {
		if x > 0 {
			rows = append(rows, row{w: x, l: int32(l), kind: kind})
		}
	}
	if o.eps > 0 {
		t.tstar = o.eps * (o.sSc / o.c())
		t.nTail = o.n - o.rho
	}
	for l := o.top; l >= 0 && l > o.lvl; l = s.nextLevel(l) {
		heads = append(heads, int32(l))
	}
	var strad, part float64
	if l := o.lvl; l >= 0 {
		lv := s.lv[l-s.lo]
		if o.grp < 0 {
			heads = append(heads, int32(l))
		} else {
			c := int(lv.cnt[o.grp])
			t.strB = max(t.tstar, scaleDown(float64(bnd(l, o.grp)), l-bB-o.ts))
			strad = float64(c) * t.strB
			t.partLo = lv.prefixBound(l, o.grp+1)
			part = scaleDown(float64(s.ls[l-s.lo].wb-t.partLo), l-bB-o.ts)
			t.nTail -= c - o.h
			t.lvTail = int(prefixCount(&lv.bc, &lv.cnt, o.grp))
		}
	}
	add(float64(t.nTail)*t.tstar, -1, rowTail)
	if t.nTail > 0 && 2*t.nTail >= o.n {
		t.direct = true
		switch {
		case o.lvl < 0:
			t.tailBits = 1
		case o.grp < 0: // the level's edge: its keys lie above t*, so above its group 0
			t.tailBits = loBits(o.lvl, 0)
		default:
			t.tailBits = loBits(o.lvl, o.grp)
		}
	}
	add(strad, o.lvl, rowStraddle)
	add(part, o.lvl, rowPartial)
	t.front, t.ts = len(rows), o.ts
	for k := len(heads) - 1; k >= 0; k-- {
		l := int(heads[k])
		add(scaleDown(float64(s.ls[l-s.lo].wb), l-bB-o.ts), l, rowLevel)
	}
	w := 0.0
	for k := range rows {
		w += rows[k].w
		rows[k].cum = w
	}
	t.total = w
	if o.eps == 0 {
		t.iz = s.intProp(o.top)
	}
	return t
}

// tailLevels fills tl for the solution o and its table t, once.
func (s *Sampler) tailLevels(o *sol, t *table, tl *tails) {
	if tl.ready {
		return
	}
	tl.ready = true
	tlv, tcum := tl.tlv[:0], tl.tcum[:0]
	if o.lvl >= 0 {
		c := t.lvTail
		for m := s.nextLevel(o.lvl); m >= 0; m = s.nextLevel(m) {
			c += int(s.ls[m-s.lo].n)
			tlv, tcum = append(tlv, int32(m)), append(tcum, c)
		}
	}
	tl.tlv, tl.tcum = tlv, tcum
}

// pick returns the row that x in [0, total) falls in.
func (t *table) pick(x float64) int {
	// The first of the rows but the last whose cumulative weight exceeds
	// x, else the last: a search whose steps move base by arithmetic, not
	// a branch, which would be mispredicted half the time. The weights
	// and x are positive or +0, so their bits, below 2^63, compare as they
	// do, and xb − cb wraps past 2^63 exactly when cb > xb.
	n := len(t.rows) - 1
	if n <= 0 {
		return 0
	}
	xb := math.Float64bits(x)
	base := 0
	for n > 1 {
		half := n / 2
		in := (xb-math.Float64bits(t.rows[base+half].cum))>>63 ^ 1
		base += half * int(in)
		n -= half
	}
	in := (xb-math.Float64bits(t.rows[base].cum))>>63 ^ 1
	return base + int(in)
}

// guide is where the search of a row starts for a number in each of
// nGuide equal parts of [0, total) of a table: first[b] is the number of
// rows but the last whose cumulative weight lies in a bucket below b, as
// bucket maps them. DrawBatch builds one per call, for its m draws; a
// Draw, which makes one or two, searches.
type guide struct {
	gs    float64 // nGuide/total, or 0
	first [nGuide]int32
}

// nGuide is the number of buckets of a guide.
const nGuide = 64

// build makes g the guide of t.
func (g *guide) build(t *table) {
	rows := t.rows
	g.gs = 0
	if x := nGuide / t.total; x < math.Inf(1) {
		g.gs = x
	}
	k := 0
	for b := range g.first {
		for k < len(rows)-1 && g.bucket(rows[k].cum) < b {
			k++
		}
		g.first[b] = int32(k)
	}
}

// bucket returns the bucket that x in [0, total] falls in: a function of x
// that never decreases, which is all the guide needs.
func (g *guide) bucket(x float64) int { return min(int(x*g.gs), nGuide-1) }

// pickGuided returns pick(x), starting from the guide g of t: at or below
// the answer, since a row before it has its sum in a lower bucket than x,
// so below x, and mostly at it or a row or two before. A binary search
// makes a branch on x at each of its steps, mispredicted every other
// time, a few each draw.
func (t *table) pickGuided(g *guide, x float64) int {
	k, last := int(g.first[g.bucket(x)]), len(t.rows)-1
	for k < last && t.rows[k].cum <= x {
		k++
	}
	return k
}

// below returns a uniform integer in [0, m) from one number of src.
func below(src rand.Source, m uint64) uint64 {
	hi, _ := bits.Mul64(src.Uint64(), m)
	return hi
}

// uniform returns a number in [0, 1) from one number of src.
func uniform(src rand.Source) float64 { return float64(src.Uint64()>>11) * 0x1p-53 }

// fineUniform returns a uniform number in [0, 1) with 53 significant bits
// wherever it lies, however close to 0: the bits of src below its leading
// one, as many words as that takes. A row of the table whose share is
// 10^-200 is drawn with that probability, not 0.
func fineUniform(src rand.Source) float64 {
	x := src.Uint64()
	if u, ok := fineFirst(x); ok {
		return u
	}
	return fineRest(src, x)
}

// fineFirst returns fineUniform for a first word x whose leading one lies
// in its top 11 bits, and true (all but one word in 2,048): 53 bits times
// 2^(−64−k), a normal power of two, exact, as Ldexp. Inlined in
// fineUniform, which calls out only for the rare continuation.
func fineFirst(x uint64) (float64, bool) {
	k := bits.LeadingZeros64(x) - 11
	// uint(−k): a shift, not a panic, when k > 0 (the result unused).
	return float64(x>>uint(-k)) * math.Float64frombits(uint64(1023-64-k)<<52), k <= 0
}

// fineRest returns fineUniform for a first word x that fineFirst refuses,
// reading the words of src that follow.
func fineRest(src rand.Source, x uint64) float64 {
	e := 0
	for x == 0 {
		if e -= 64; e < -1152 {
			return 0
		}
		x = src.Uint64()
	}
	// x·2^(e−64), its leading bit lz below bit 63: keep 53 bits from it,
	// taking k more from the next word if x has too few.
	k := bits.LeadingZeros64(x) - 11
	if k <= 0 {
		return math.Ldexp(float64(x>>-k), e-64-k)
	}
	m := x<<k | src.Uint64()>>(64-k)
	return math.Ldexp(float64(m), e-64-k)
}

// straddleAccept returns the mass m of an item of the straddling group
// with key a and the bound b it was proposed with, in the top level's
// unit: an attempt accepts it with probability m/b, the mass a or t* as a
// is in the head or not. Draw and AttemptProbs both use it; a head
// group's attempts accept by headSlot and headFrac.
func straddleAccept(o *sol, t *table, a float64) (m, b float64) {
	if o.inHead(a) {
		return scaleDown(float64(sig64(a)), unitShift(o.lvl)-o.ts), t.strB
	}
	return t.tstar, t.strB
}

// headSlot splits the number x in [0, cnt·bnd) that chose group j of
// level l, a head group proposed by bound weight, into the slot x/bnd (each
// slot spans bnd of the numbers) and whether the attempt accepts at once:
// an item of the group has a key of at least edge units of 2^(l−6) of the
// bound's bnd (edge = bnd − 1, or bnd when the group holds one value), so
// the numbers x mod bnd below edge accept, and the last, x mod bnd = edge,
// accepts with probability headFrac: in all, (edge + headFrac)/bnd = m/b.
// An attempt draws the number of its acceptance test only then, once in
// 65 at most: two numbers of src an attempt, not four.
func headSlot(l, j int, x uint64) (slot int, sure bool) {
	bd, edge := bnd(l, j), uint64(nG+j) // headEdge, inlined
	q, _ := bits.Mul64(x, recip[bd&(2*nG-1)])
	return int(q), x-q*bd < edge
}

// recip[d & 127] is ⌈2^64/d⌉ for a bound d of a group, 64 ≤ d ≤ 128 (the
// mask, which puts 128 at 0, drops the bounds check), so that the high word of x·recip[d] is
// ⌊x/d⌋ for every x < 2^38, which a group's numbers are (its count times
// d): recip[d]·d = 2^64 + e with e < d, so x·recip[d]/2^64 exceeds x/d by
// x·e/(d·2^64) < 2^-19/d, less than the least distance, 1/d, from x/d up
// to the next integer. A multiply, where the division of doubles it
// replaces, on the path from an attempt's number to its entry, took some
// 15 cycles more.
var recip = func() (r [2 * nG]uint64) {
	for d := nG; d <= 2*nG; d++ {
		r[d&(2*nG-1)] = (1<<64-1)/uint64(d) + 1
	}
	return r
}()

// headEdge returns the edge of group j of level l in units of 2^(l−6): the
// least key of the group, bnd − 1, or for a level of fewer than 6 bits,
// whose groups hold one value, that value, the bound itself.
func headEdge(l, j int) uint64 {
	if l >= bB {
		return bnd(l, j) - 1
	}
	return bnd(l, j)
}

// headFrac returns the probability that an attempt at the last number of
// a slot of head group j of level l accepts the key a: the part of a unit
// of 2^(l−6) by which a exceeds the edge, exactly (a multiple of 2^-46).
func headFrac(l, j int, a float64) float64 {
	step := bndLevel(l, j) / float64(bnd(l, j)) // 2^(l−6) in the level's unit
	return (float64(sig64(a)) - float64(headEdge(l, j))*step) / step
}

// attempt makes one attempt of a draw and returns the item and its p, or
// −1 if it rejected: propose, read the entry, decide, as DrawBatch's
// chunks do.
func (s *Sampler) attempt(o *sol, t *table, tl *tails, src rand.Source) (int, float64) {
	if t.iz.ok {
		return s.attemptInt(o, t, src)
	}
	var p proposal
	s.propose(o, t, tl, nil, src, &p)
	return s.decideAt(o, t, &p, src)
}

// decide returns the item of an attempt whose proposal is p and entry e
// (read from p's slot, unless p names its item), and its p*, or −1 if the
// attempt rejects: an item with probability 1 − m/b (headSlot and
// headFrac for a head group, straddleAccept for the straddling group), or
// whose p rounds to 0 (its exact p* is below 2^-1074, and callers divide
// by p). A tail item outside the straddling group has m = b = t*; drawn
// directly, it is the proposal's first try if that lies below the
// straddling group, else the tries of tailItem, with numbers of src.
func (s *Sampler) decide(o *sol, t *table, p *proposal, e entry, src rand.Source) (int, float64) {
	switch {
	case p.tail:
		if p.direct && !t.belowStraddle(p.u) {
			return int(s.tailItem(t, src)), o.eps // the tries after the first
		}
		if p.lv == nil {
			return int(p.item), o.eps
		}
		return int(e.item), o.eps
	case p.lv == nil:
		i := int(p.item)
		return i, o.prob(s.keys[i])
	case p.test:
		if p.u >= headFrac(int(p.l), int(p.j), e.key()) {
			return -1, 0
		}
	case !p.sure: // the straddling group
		m, b := straddleAccept(o, t, e.key())
		if m != b && p.u*b >= m {
			return -1, 0
		}
	}
	q := o.prob(e.key())
	if q == 0 {
		return -1, 0
	}
	return int(e.item), q
}

// draw makes attempts until one accepts.
func (s *Sampler) draw(o *sol, t *table, tl *tails, src rand.Source) (int, float64) {
	if t.iz.ok {
		for {
			if i, p := s.attemptInt(o, t, src); i >= 0 {
				return i, p
			}
		}
	}
	for {
		if i, p := s.attempt(o, t, tl, src); i >= 0 {
			return i, p
		}
	}
}

// Draw draws one item with probability p*_i (Lemma 1) for the bound eps
// and returns it with p*_i, as Prob returns it: one Solve, then attempts
// of O(1) each, every one accepted with probability at least 64/65 (less
// only by the share, below 10^-300, of items whose p rounds to 0), each
// using a few numbers of src. An invalid call (ErrEmpty, ErrEpsilon) uses
// no randomness.
func (s *Sampler) Draw(eps float64, src rand.Source) (i int, p float64, err error) {
	if err := s.validate(eps); err != nil {
		return 0, 0, err
	}
	i, p = s.drawValid(eps, src)
	return i, p, nil
}

// drawValid is Draw for a valid eps.
func (s *Sampler) drawValid(eps float64, src rand.Source) (int, float64) {
	if k := s.keptFor(eps); k != nil {
		return s.draw(&k.o, &k.tab, nil, src)
	}
	sc := s.getScratch()
	defer s.putScratch(sc)
	o, t := s.held(eps, sc) // keptFor has recorded the read
	sc.tails.ready = false
	return s.draw(o, t, &sc.tails, src)
}

// rejectionBudget returns the number of draws of items already in a batch
// without replacement, at n items, after which DrawBatch draws the rest of
// the batch from the explicit conditional distribution (drawRest): about
// the cost of building drawRest's tree, so that no key set makes a batch
// cost more than about twice the better of the two ways.
func rejectionBudget(n int) int { return 64 + n/16 }

// DrawBatch fills items and probs (same length m) with m draws for the
// bound eps, with one Solve. With replace the draws are independent;
// without, they are ordered successive sampling, the first m distinct
// items of an i.i.d. stream from p*: a draw of an item already in the
// batch is rejected, and after 64 + n/16 rejections in the batch the rest
// of it is drawn from the explicit conditional distribution
// p*_i/Σ_{j left} p*_j given the draws before, from a tree of sums built
// once in O(n), O(log n) a draw (so that keys whose mass sits in a few
// items cannot blow a batch up); if every item left has p* = 0 (possible
// only at ε = 0), uniformly among them, with probs[k] = 0. probs[k] is the
// unconditional p* of items[k].
//
// Errors, checked before any randomness is used and leaving items and
// probs unchanged: ErrEmpty, ErrEpsilon, then ErrBatch if the lengths
// differ or m > n without replacement.
func (s *Sampler) DrawBatch(eps float64, src rand.Source, replace bool, items []int, probs []float64) error {
	if err := s.validate(eps); err != nil {
		return err
	}
	m, n := len(items), len(s.keys)
	if len(probs) != m {
		return fmt.Errorf("%w: %d items but %d probabilities", reweighted.ErrBatch, m, len(probs))
	}
	if !replace && m > n {
		return fmt.Errorf("%w: %d items without replacement from %d", reweighted.ErrBatch, m, n)
	}
	if m == 0 {
		return nil
	}
	sc := s.getScratch()
	defer s.putScratch(sc)
	o, t := s.solution(eps, sc)
	sc.tails.ready = false
	st := &sc.st
	st.reset()
	sc.flat.ok = false
	if !o.zero && !o.uniform {
		if s.buildFlat(o, t, &sc.flat); !sc.flat.ok {
			sc.guide.build(t)
		}
	}
	if !s.far {
		if sc.flat.ok {
			s.drawFlat(o, t, src, sc, replace, items, probs)
		} else {
			s.drawNear(o, t, src, sc, replace, items, probs)
		}
		return nil
	}
	if replace {
		for k := range items {
			if st.at == st.n {
				s.refill(o, t, src, sc, m-k)
			}
			items[k], probs[k] = st.next()
		}
		return nil
	}
	seen := sc.seenBits(n)
	budget := rejectionBudget(n)
	for k := 0; k < m; {
		if budget == 0 {
			s.drawRest(o, sc, seen, src, items[k:], probs[k:])
			break
		}
		if st.at == st.n {
			s.refill(o, t, src, sc, m-k)
		}
		i, p := st.next()
		if !seen.claim(i) {
			budget--
			continue
		}
		items[k], probs[k] = i, p
		k++
	}
	clearSeen(seen, len(s.keys), items)
	return nil
}

// clearSeen takes the items of a batch out of seen, a bit set of n items:
// by zeroing its words when they are few beside the items (mushrooms' 8,124
// items are 127 words for a batch of 128: a few vector stores, where each
// item takes a load, a store and its index), else item by item.
func clearSeen(seen bitset, n int, items []int) {
	if w := (n + 63) / 64; w <= 4*len(items) {
		clear(seen[:w])
		return
	}
	seen.clear(items)
}

// chunk is the number of attempts DrawBatch makes at once.
const chunk = 32

// proposal is an attempt's choice before its entry is read: the slot r of
// group j of level l, or an item directly (lv nil), with the uniform
// number of its acceptance test; for a head group chosen by bound weight,
// sure if it accepts at once, test if it takes the test of headFrac.
type proposal struct {
	lv         *level
	l, j       int32
	r          int32
	item       int32
	tail       bool
	direct     bool // a first try of tailItem: item, its key in u once read
	sure, test bool
	u          float64
}

// stream is the accepted draws of a chunk of attempts, handed out in
// order: the attempts are independent, so the accepted ones, in order,
// are independent draws from p*.
type stream struct {
	props [chunk]proposal
	ents  [chunk]entry
	items [chunk]int32
	probs [chunk]float64
	n, at int
}

func (st *stream) reset() { st.n, st.at = 0, 0 }

// next returns the next draw of the stream st, refilled when it runs out
// (refill, a call once a chunk; the rest inlined).
func (st *stream) next() (int, float64) {
	st.at++
	return int(st.items[st.at-1]), st.probs[st.at-1]
}

// refill fills the stream with the accepted attempts of chunks, until one
// accepts: as many attempts as the need draws the caller still has to
// make, at most chunk, their choices first, from the tables, then the
// reads of their entries, independent loads whose cache misses overlap,
// then their acceptance tests, those of a head group that accept at once
// made here (decide makes the others). Attempts beyond the need would be
// thrown away with the batch: with chunks of 32 whatever the need, a batch
// of 128 without replacement in SRG on mushrooms made 1.48 attempts a
// draw; 1.05 now, and 1.21 on the other three data sets, the rest the
// draws of items already in the batch. Below touchMin items (far unset)
// DrawBatch makes each attempt whole before the next (drawNear): the same
// attempts, their numbers of src taken in another order.
func (s *Sampler) refill(o *sol, t *table, src rand.Source, sc *scratch, need int) {
	st := &sc.st
	for st.at, st.n = 0, 0; st.n == 0; {
		props := st.props[:min(need, chunk)]
		if fl := &sc.flat; fl.ok {
			for k := range props {
				s.proposeFlat(o, t, fl, &sc.tails, src, &props[k])
			}
		} else {
			for k := range props {
				s.propose(o, t, &sc.tails, &sc.guide, src, &props[k])
			}
		}
		// A split group's sub-bucket, found from its counts in a pass of
		// its own: the lines of the counts and then of the entries are
		// each read by independent loads.
		var sub [chunk]int32
		for k := range props {
			sub[k] = -1
			if p := &props[k]; p.lv != nil {
				if sb := p.lv.sub[p.j]; sb != nil {
					q, b := findCount(&sb.bc, &sb.cnt, uint32(p.r))
					sub[k], p.r = int32(q), p.r-int32(b)
				}
			}
		}
		for k := range props {
			if p := &props[k]; p.lv != nil {
				if q := sub[k]; q >= 0 {
					st.ents[k] = p.lv.sub[p.j].ents[q][p.r]
				} else {
					st.ents[k] = p.lv.ents[p.j][p.r]
				}
			} else if p.direct {
				p.u = s.keys[p.item]
			}
		}
		for k := range props {
			p, e := &props[k], st.ents[k]
			if p.sure {
				if q := o.prob(e.key()); q != 0 {
					st.items[st.n], st.probs[st.n] = e.item, q
					st.n++
				}
				continue
			}
			if i, q := s.decide(o, t, p, e, src); i >= 0 {
				st.items[st.n], st.probs[st.n] = int32(i), q
				st.n++
			}
		}
	}
}

// drawNear is DrawBatch below touchMin items (far unset), where the
// sampler stays in the last-level cache: each attempt is made whole, as
// Draw's attempt makes it, with its numbers of src in the same order, and
// an accepted one goes into items at once (without replacement, unless
// the batch holds its item already). refill's passes, which overlap the
// cache misses of a chunk's attempts, overlap few here, and their stores
// and loads of the proposals and of the stream cost 4% of an SRG epoch on
// mushrooms (40 instructions an attempt).
func (s *Sampler) drawNear(o *sol, t *table, src rand.Source, sc *scratch, replace bool, items []int, probs []float64) {
	var seen bitset
	if !replace {
		seen = sc.seenBits(len(s.keys))
	}
	// Read once: as far as the compiler knows, the calls below could
	// change what o and t point to, and it would read them again for
	// every attempt.
	usual, g, rows, direct, eps := !o.zero && !o.uniform, &sc.guide, t.rows, t.direct, o.eps
	// o.prob for the usual rows, its operands read once: the same
	// operations, so the same p, bit for bit.
	theta, sum, c := o.theta, o.s, 0.0
	if usual {
		c = o.c()
	}
	budget := rejectionBudget(len(s.keys))
	for k := 0; k < len(items); {
		var i int
		var p float64
		switch {
		case !replace && budget == 0:
			s.drawRest(o, sc, seen, src, items[k:], probs[k:])
			k = len(items)
			continue
		case usual:
			// The attempts of the usual rows made here, as propose and
			// decide make them, with their numbers of src in the same
			// order: without the proposal's stores and loads and the
			// calls, a third of an attempt's instructions.
			q := t.choose(g, src)
			switch r := &rows[q]; {
			case r.kind == rowTail && direct:
				x := int32(below(src, uint64(o.n)))
				if !t.belowStraddle(s.keys[x]) {
					x = s.tailItem(t, src)
				}
				i, p = int(x), eps
			case r.kind == rowLevel || r.kind == rowPartial:
				lv, l, j, slot, sure := s.headChoice(t, r, src)
				var u float64
				if !sure {
					u = uniform(src)
				}
				e := lv.at(j, slot)
				if !sure && u >= headFrac(l, j, e.key()) {
					continue
				}
				a := e.key()
				if p = eps; a >= theta {
					p = a / sum * c
				}
				if p == 0 {
					continue
				}
				i = int(e.item)
			default:
				var pr proposal
				s.proposeRow(o, t, &sc.tails, src, &pr, q)
				if i, p = s.decideAt(o, t, &pr, src); i < 0 {
					continue
				}
			}
		default:
			var pr proposal
			s.propose(o, t, &sc.tails, &sc.guide, src, &pr)
			if i, p = s.decideAt(o, t, &pr, src); i < 0 {
				continue
			}
		}
		if !replace {
			if !seen.claim(i) {
				budget--
				continue
			}
		}
		items[k], probs[k] = i, p
		k++
	}
	if !replace {
		clearSeen(seen, len(s.keys), items)
	}
}

// drawFlat is drawNear with a flat proposal (buildFlat): each attempt's
// first word goes to the head's groups (at or above x0), to a direct
// tail row's first try (from 2^52 to x1), or, read as fineUniform reads
// it, to a front row, made as drawNear makes it (frontTry). A loop of
// its own, so that drawNear, for the tables flat cannot serve, is as it
// was.
func (s *Sampler) drawFlat(o *sol, t *table, src rand.Source, sc *scratch, replace bool, items []int, probs []float64) {
	var seen bitset
	if !replace {
		seen = sc.seenBits(len(s.keys))
	}
	fl := &sc.flat
	// Only the head's operands read once, into registers: the tail's are
	// read from fl where a tail attempt needs them, so that they are not
	// held, spilled and reloaded through every head attempt.
	x0 := fl.x0
	theta, sum, c, eps := o.theta, o.s, o.c(), o.eps
	budget := rejectionBudget(len(s.keys))
	probs = probs[:len(items)]
	// The attempts' first words from a *rand.PCG (SRG's source) by a call
	// the compiler inlines, not through the interface: the same numbers,
	// some 10 instructions fewer each.
	pcg, _ := src.(*rand.PCG)
	for k := 0; k < len(items); {
		if !replace && budget == 0 {
			s.drawRest(o, sc, seen, src, items[k:], probs[k:])
			break // seen holds the batch: cleared below
		}
		var i int
		var p float64
		var r uint64
		var x uint64
		if pcg != nil {
			var got bool
			if k, x, i, p, got = s.flatHeads(fl, t, pcg, seen, &budget, theta, sum, c, eps, items, probs, k); got {
				goto got
			}
			if k == len(items) {
				break
			}
		} else {
			x = src.Uint64()
		}
		switch {
		case x >= x0:
			if y := x - x0; y <= fl.lim {
				r = modBy(y, fl.w, fl.rec)
			} else {
				r = fl.fresh(src)
			}
		case fl.tail && x-1<<52 < fl.x1-1<<52:
			i, p = int(s.flatTail(fl, t, src, x)), eps
			goto got
		default:
			v, ok := fineFirst(x)
			if !ok {
				v = fineRest(src, x)
			}
			if v *= t.total; v < fl.cumF {
				q := 0
				if fl.front == 2 && v >= t.rows[0].cum {
					q = 1
				}
				if i, p = s.frontTry(o, t, sc, src, q); i < 0 {
					continue
				}
				goto got
			}
			r = fl.fresh(src) // below 2^52: fineRest reached the head
		}
		{
			lv, j, rl := fl.at(r)
			l := int(lv.l)
			slot, sure := headSlot(l, j, rl)
			var u float64
			if !sure {
				u = uniform(src)
			}
			e := lv.lv.at(j, slot)
			if !sure && u >= headFrac(l, j, e.key()) {
				continue
			}
			a := e.key()
			if p = eps; a >= theta {
				p = a / sum * c
			}
			if p == 0 {
				continue
			}
			i = int(e.item)
		}
	got:
		if !replace {
			if !seen.claim(i) {
				// With no front rows (ε = 0), once the items drawn
				// hold as much of the mass as the rejections say, the
				// rest through a proposal their mass has left.
				if budget--; s.leftNow(fl, len(items), budget, k) {
					k += s.drawLeft(o, sc, seen, src, items[:k], items[k:], probs[k:])
					if k < len(items) {
						s.drawRest(o, sc, seen, src, items[k:], probs[k:])
					}
					break
				}
				continue
			}
		}
		items[k], probs[k] = i, p
		k++
	}
	if !replace {
		clearSeen(seen, len(s.keys), items)
	}
}

// flatHeads makes drawFlat's attempts from a *rand.PCG, from the k-th
// item of the batch, as long as each word goes to the head or the tail's
// first try, in a loop of its own, whose few operands stay in registers
// through its attempts: drawFlat's loop, with its calls and its rarer
// cases, reloads them all each attempt. It returns the items filled, and
// when it stops before the batch is full either the word x that it drew
// and left (got false: a front row's, a fresh head number's) or the item i,
// with its p, of an attempt that drew an item already in the batch (got
// true; seen holds it still) where drawFlat then ends the batch otherwise
// (drawLeft, drawRest). The draws of items already in the batch that only
// take one from the budget of rejections, it makes itself (on lognormal
// keys at 2^10, most batches have dozens). seen is nil with replacement.
func (s *Sampler) flatHeads(fl *flat, t *table, pcg *rand.PCG, seen bitset, budget *int, theta, sum, c, eps float64, items []int, probs []float64, k int) (_ int, x uint64, i int, p float64, got bool) {
	x0 := fl.x0
	probs = probs[:len(items)] // one bounds check a store, not two
	for k < len(items) {
		x = pcg.Uint64()
		if y := x - x0; x >= x0 && y <= fl.lim {
			lv, j, rl := fl.at(modBy(y, fl.w, fl.rec))
			l := int(lv.l)
			slot, sure := headSlot(l, j, rl)
			var u float64
			if !sure {
				u = uniform(pcg)
			}
			e := lv.lv.at(j, slot)
			if !sure && u >= headFrac(l, j, e.key()) {
				continue
			}
			a := e.key()
			if p = eps; a >= theta {
				p = a / sum * c
			}
			if p == 0 {
				continue
			}
			i = int(e.item)
		} else if fl.tail && x < x0 && x-1<<52 < fl.x1-1<<52 {
			// The first try from x alone, inline (two tail attempts in
			// three); flatTail repeats it where it takes more words.
			it, ok := s.tailWord(fl, x)
			if !ok || !t.belowStraddle(s.keys[it]) {
				it = s.flatTail(fl, t, pcg, x)
			}
			i, p = int(it), eps
		} else {
			return k, x, 0, 0, false
		}
		if seen != nil && !seen.claim(i) {
			if b := *budget - 1; b > 0 && !s.leftNow(fl, len(items), b, k) {
				*budget = b
				continue
			}
			return k, x, i, p, true
		}
		items[k], probs[k] = i, p
		k++
	}
	return k, 0, 0, 0, false
}

// leftNow reports whether drawFlat, having drawn k items of a batch of m
// without replacement with budget rejections left, draws the rest of it
// through drawLeft: with no front rows, once the draws of items already in
// the batch are at least leftMin and at least the draws accepted.
func (s *Sampler) leftNow(fl *flat, m, budget, k int) bool {
	rej := rejectionBudget(len(s.keys)) - budget
	return fl.front == 0 && m <= leftMax && rej >= leftMin && rej >= k
}

// leftMin is the least number of draws of items already in a batch after
// which drawFlat, with no front rows, draws the rest of the batch through
// drawLeft, when they are also at least the draws accepted: then half the
// attempts or more draw an item already drawn, and the items drawn hold
// about half the mass or more.
const leftMin = 8

// leftMax is the largest batch drawLeft serves: its table of slots moved
// holds three to six entries an item of the batch, 12 bytes each (24 kB
// at most).
const leftMax = 1 << 9

// drawLeft fills items and probs with draws without replacement through
// the flat proposal fl of a table with no front rows, the items of drawn
// (all in seen) drawn already, and returns how many it drew: all, unless
// the items left all have p = 0 (only keys 0 are left, or keys whose p
// rounds to 0) or its attempts reject too often, where drawRest draws the
// rest. Each item drawn leaves the proposal: a Fenwick tree over the
// flat groups, of their weights (count − drawn)·bound shifted to base,
// exact integers, chooses the group from one uniform integer below their
// total, and the slot is one of the count − drawn left, the slots drawn
// swapped out as in a Fisher–Yates shuffle (a slot v past the end of the
// slots left takes the last one's place, kept in a small hash table), so
// that an attempt proposes item i of the items left with probability
// b_i/W and accepts it with m_i/b_i (headSlot, headFrac), exactly.
// O(groups) once, O(log groups) a draw: where drawRest sums all n items'
// p* once.
func (s *Sampler) drawLeft(o *sol, sc *scratch, seen bitset, src rand.Source, drawn, items []int, probs []float64) int {
	fl := &sc.flat
	ng := fl.ng
	if cap(sc.fen) < ng+1 {
		sc.fen = make([]uint64, cap(fl.ends))
		sc.gone = make([]int32, cap(fl.ends))
	}
	fen, gone, ends := sc.fen[:ng+1], sc.gone[:ng], fl.ends[:ng+1]
	// A node i of the tree sums the weights of groups i − lowbit(i) to
	// i − 1: the difference of two cumulative weights.
	fen[0] = 0
	for i := 1; i <= ng; i++ {
		fen[i] = ends[i] - ends[i-i&-i]
	}
	w := ends[ng]
	top := 1 << (bits.Len(uint(ng)) - 1) // the tree's largest power of two
	sw := &sc.swap
	sw.reset(len(drawn) + len(items))
	// take removes slot v, of the c left, of flat group g from the
	// proposal: the last slot left takes its place.
	take := func(g, v, c int) {
		last := c - 1
		sw.set(swFwd(g, v), sw.get(swFwd(g, last), last))
		gone[g]++
		x := fl.index(g)
		lv := &fl.lvls[(x>>bB)&(maxFlat-1)]
		b := bnd(int(lv.l), int(x&(nG-1))) << lv.d
		for i := g + 1; i <= ng; i += i & -i {
			fen[i] -= b
		}
		w -= b
	}
	// The items drawn already: their slots from their keys and places,
	// found again as virtual slots through the inverse of the swaps.
	for _, i := range drawn {
		a := s.keys[i]
		l, j := locate(a)
		k := 0
		for k < fl.nl-1 && int(fl.lvls[k].l) != l {
			k++
		}
		lv := fl.lvls[k].lv
		slot := int(s.pos[i])
		if sb := lv.sub[j]; sb != nil {
			slot += int(prefixCount(&sb.bc, &sb.cnt, subOf(a, l)))
		}
		g := fl.group(k, j)
		c := int(lv.cnt[j] - gone[g])
		v := sw.get(swInv(g, slot), slot)
		last := sw.get(swFwd(g, c-1), c-1)
		sw.set(swInv(g, last), v)
		take(g, v, c)
	}
	theta, sum, c, eps := o.theta, o.s, o.c(), o.eps
	k, rej := 0, 0
	for ; k < len(items) && w > 0 && rej < 64+len(items); rej++ {
		// r uniform below w: Lemire's multiply, exactly.
		r, lo := bits.Mul64(src.Uint64(), w)
		if lo < w && lo < -w%w {
			continue
		}
		g := 0
		for step := top; step > 0; step >>= 1 {
			if h := g + step; h <= ng && fen[h] <= r {
				g, r = h, r-fen[h]
			}
		}
		x := fl.index(g)
		lv := &fl.lvls[(x>>bB)&(maxFlat-1)]
		j, l := int(x&(nG-1)), int(lv.l)
		v, sure := headSlot(l, j, r>>(lv.d&63))
		var u float64
		if !sure {
			u = uniform(src)
		}
		e := lv.lv.at(j, sw.get(swFwd(g, v), v))
		if !sure && u >= headFrac(l, j, e.key()) {
			continue
		}
		a := e.key()
		p := eps
		if a >= theta {
			p = a / sum * c
		}
		if p == 0 {
			continue
		}
		take(g, v, int(lv.lv.cnt[j]-gone[g]))
		seen.add(int(e.item))
		items[k], probs[k] = int(e.item), p
		k++
	}
	clear(gone)
	sw.clear()
	return k
}

// swTab maps the keys of drawLeft's swaps (swFwd, swInv) to slots: open
// addressing, linear probing, key 0 free.
type swTab struct {
	keys []uint64
	vals []int32
	sh   uint
}

// swFwd is the key of virtual slot v of flat group g: the slot it stands
// for, if not v itself.
func swFwd(g, v int) uint64 { return 1<<63 | uint64(g)<<32 | uint64(v) }

// swInv is the key of slot a of flat group g: the virtual slot that stands
// for it, if not a itself.
func swInv(g, a int) uint64 { return 1<<62 | uint64(g)<<32 | uint64(a) }

// reset makes the table room for the swaps of a batch of m items, at most
// 2m keys (a slot's for each item drawn, a virtual slot's for each item
// drawn before drawLeft), at a load of at most 2/3.
func (t *swTab) reset(m int) {
	nb := max(bits.Len(uint(3*m)), 6)
	if len(t.keys) < 1<<nb {
		t.keys, t.vals = make([]uint64, 1<<nb), make([]int32, 1<<nb)
	}
	t.sh = uint(64 - nb)
}

// get returns the value of key, or def if it has none.
func (t *swTab) get(key uint64, def int) int {
	mask := uint64(1)<<(64-t.sh) - 1
	for h := (key * 0x9e3779b97f4a7c15) >> t.sh; ; h = (h + 1) & mask {
		switch t.keys[h] {
		case key:
			return int(t.vals[h])
		case 0:
			return def
		}
	}
}

// set gives key the value v.
func (t *swTab) set(key uint64, v int) {
	mask := uint64(1)<<(64-t.sh) - 1
	h := (key * 0x9e3779b97f4a7c15) >> t.sh
	for t.keys[h] != key && t.keys[h] != 0 {
		h = (h + 1) & mask
	}
	t.keys[h], t.vals[h] = key, int32(v)
}

// clear empties the table.
func (t *swTab) clear() { clear(t.keys[:1<<(64-t.sh)]) }

// flatTail returns the item of a tail attempt whose first word x, from
// 2^52 to fl.x1, makes its first try: (x − 2^52) mod n, or, for the words
// past the last whole multiple of n, a fresh number; then the tries of
// tailItem if the first lies in the straddling group or above.
func (s *Sampler) flatTail(fl *flat, t *table, src rand.Source, x uint64) int32 {
	it, ok := s.tailWord(fl, x)
	if !ok {
		it = int32(below(src, uint64(len(s.keys))))
	}
	if !t.belowStraddle(s.keys[it]) {
		it = s.tailItem(t, src)
	}
	return it
}

// tailWord returns (x − 2^52) mod n, the first try of a tail attempt
// whose first word is x, and whether x names it exactly: false for the
// words past the last whole multiple of n, which take a fresh number.
func (s *Sampler) tailWord(fl *flat, x uint64) (int32, bool) {
	y := x - 1<<52
	return int32(modBy(y, uint64(len(s.keys)), fl.recN)), y <= fl.limT
}

// frontTry makes the rest of an attempt whose first number chose the
// front row q of t (the tail's or the straddling group's), as drawNear
// makes it, and returns its item and p, or −1 if it rejects.
func (s *Sampler) frontTry(o *sol, t *table, sc *scratch, src rand.Source, q int) (int, float64) {
	if t.rows[q].kind == rowTail && t.direct {
		x := int32(below(src, uint64(o.n)))
		if !t.belowStraddle(s.keys[x]) {
			x = s.tailItem(t, src)
		}
		return int(x), o.eps
	}
	var pr proposal
	s.proposeRow(o, t, &sc.tails, src, &pr, q)
	return s.decideAt(o, t, &pr, src)
}

// decideAt reads the entry of proposal p, if it names a slot, or the key
// of its item, if a direct tail try, and decides the attempt.
func (s *Sampler) decideAt(o *sol, t *table, p *proposal, src rand.Source) (int, float64) {
	var e entry
	if p.lv != nil {
		e = p.lv.at(int(p.j), int(p.r))
	} else if p.direct {
		p.u = s.keys[p.item]
	}
	return s.decide(o, t, p, e, src)
}

// propose makes the choices of one attempt, as attempt does, into p; with
// a guide of t, it picks the row from it.
func (s *Sampler) propose(o *sol, t *table, tl *tails, g *guide, src rand.Source, p *proposal) {
	*p = proposal{}
	if o.zero || o.uniform {
		p.item = int32(below(src, uint64(o.n)))
		return
	}
	s.proposeRow(o, t, tl, src, p, t.choose(g, src))
}

// proposeFlat makes the choices of one attempt into p through the flat
// proposal fl, with its numbers of src in the order drawFlat takes them:
// the first word to the head's groups, to a direct tail row's first try,
// or to a front row.
func (s *Sampler) proposeFlat(o *sol, t *table, fl *flat, tl *tails, src rand.Source, p *proposal) {
	*p = proposal{}
	var r uint64
	switch x := src.Uint64(); {
	case x >= fl.x0:
		if y := x - fl.x0; y <= fl.lim {
			r = fl.mod(y)
		} else {
			r = fl.fresh(src)
		}
	case fl.tail && x-1<<52 < fl.x1-1<<52:
		p.tail, p.direct = true, true
		if y := x - 1<<52; y <= fl.limT {
			p.item = int32(modBy(y, uint64(o.n), fl.recN))
		} else {
			p.item = int32(below(src, uint64(o.n)))
		}
		return
	default:
		v, ok := fineFirst(x)
		if !ok {
			v = fineRest(src, x)
		}
		if v *= t.total; v < fl.cumF {
			q := 0
			if fl.front == 2 && v >= t.rows[0].cum {
				q = 1
			}
			s.proposeRow(o, t, tl, src, p, q)
			return
		}
		r = fl.fresh(src) // below 2^52: fineRest reached the head
	}
	lv, j, rl := fl.at(r)
	l := int(lv.l)
	slot, sure := headSlot(l, j, rl)
	p.lv, p.l, p.j, p.r, p.sure, p.test = lv.lv, int32(l), int32(j), int32(slot), sure, !sure
	if !sure {
		p.u = uniform(src)
	}
}

// choose returns the row of t of one attempt, from a fine uniform number
// of src, through the guide g if not nil.
func (t *table) choose(g *guide, src rand.Source) int {
	x := fineUniform(src) * t.total
	if g != nil {
		return t.pickGuided(g, x)
	}
	return t.pick(x)
}

// proposeRow makes the choices of an attempt after its row q, into p,
// clear.
func (s *Sampler) proposeRow(o *sol, t *table, tl *tails, src rand.Source, p *proposal, q int) {
	r := t.rows[q]
	if r.kind == rowTail {
		p.tail = true
		if t.direct {
			// The first try: its key is read with the chunk's entries,
			// so that their cache misses overlap, and tested in decide.
			p.item, p.direct = int32(below(src, uint64(o.n))), true
			return
		}
		s.tailLoc(o, t, tl, below(src, uint64(t.nTail)), p)
		return
	}
	if r.kind != rowStraddle {
		lv, l, j, slot, sure := s.headChoice(t, &r, src)
		p.lv, p.l, p.j, p.r, p.sure, p.test = lv, int32(l), int32(j), int32(slot), sure, !sure
		if !sure {
			p.u = uniform(src)
		}
		return
	}
	l := int(r.l)
	lv := s.lv[l-s.lo]
	j := o.grp
	p.lv, p.l, p.j = lv, int32(l), int32(j)
	p.r = int32(below(src, uint64(lv.cnt[j])))
	p.u = uniform(src)
}

// headChoice returns the group j and the slot of an attempt on row r of
// level l (lv), a level of the head or the straddling level's part above
// its straddling group, chosen by one number of src over the row's bound
// weight, and whether the attempt accepts at once (headSlot).
func (s *Sampler) headChoice(t *table, r *row, src rand.Source) (lv *level, l, j, slot int, sure bool) {
	l = int(r.l)
	lv = s.lv[l-s.lo]
	lo := uint64(0)
	if r.kind == rowPartial {
		lo = t.partLo
	}
	x := lo + below(src, s.ls[l-s.lo].wb-lo)
	j, pre := lv.findBound(l, x)
	slot, sure = headSlot(l, j, x-pre)
	return lv, l, j, slot, sure
}

// tailItem returns a uniform tail item outside the straddling group, for a
// table with direct: a uniform item of all n, again until its key lies
// below the straddling group.
func (s *Sampler) tailItem(t *table, src rand.Source) int32 {
	n := uint64(len(s.keys))
	for {
		i := below(src, n)
		if t.belowStraddle(s.keys[i]) {
			return int32(i)
		}
	}
}

// belowStraddle reports whether the key a lies below the straddling group
// of a table with direct: a tail item that the tail row draws.
func (t *table) belowStraddle(a float64) bool { return math.Float64bits(a) < t.tailBits }

// tailLoc sets p to the tail item of index r in the table's order: a slot
// of a group, or a zero key's item; with tl, by binary search over the
// levels' cumulative counts, without, by a walk down the levels.
func (s *Sampler) tailLoc(o *sol, t *table, tl *tails, r uint64, p *proposal) {
	x := int(r)
	if x < t.lvTail {
		lv := s.lv[o.lvl-s.lo]
		j, b := findCount(&lv.bc, &lv.cnt, uint32(x))
		p.lv, p.l, p.j, p.r = lv, int32(o.lvl), int32(j), int32(x-int(b))
		return
	}
	prev := t.lvTail
	if tl == nil {
		if o.lvl >= 0 {
			for m := s.nextLevel(o.lvl); m >= 0; m = s.nextLevel(m) {
				c := prev + int(s.ls[m-s.lo].n)
				if x < c {
					lv := s.lv[m-s.lo]
					j, b := findCount(&lv.bc, &lv.cnt, uint32(x-prev))
					p.lv, p.l, p.j, p.r = lv, int32(m), int32(j), int32(x-prev-int(b))
					return
				}
				prev = c
			}
		}
		p.item = s.zeros[x-prev]
		return
	}
	s.tailLevels(o, t, tl)
	c := tl.tcum
	if len(c) > 0 && x < c[len(c)-1] {
		lo, hi := 0, len(c)-1
		for lo < hi {
			mid := (lo + hi) / 2
			if x < c[mid] {
				hi = mid
			} else {
				lo = mid + 1
			}
		}
		if lo > 0 {
			prev = c[lo-1]
		}
		lv := s.lv[int(tl.tlv[lo])-s.lo]
		j, b := findCount(&lv.bc, &lv.cnt, uint32(x-prev))
		p.lv, p.l, p.j, p.r = lv, tl.tlv[lo], int32(j), int32(x-prev-int(b))
		return
	}
	if len(c) > 0 {
		prev = c[len(c)-1]
	}
	p.item = s.zeros[x-prev]
}

// restBlock is the number of items whose probabilities drawRest's tree sums in
// one leaf: 4 bytes an item of tree, where one float per item would be 16.
// Of 2, 4 and 8, 4 made the fewest instructions a batch step on
// concentrated keys at ε = 0, where drawRest draws most of the batch: 2
// deepens the tree, 8 lengthens the scan of a leaf's items each draw.
const restBlock = 4

// drawRest fills items and probs, the rest of a batch without replacement
// of which the items in seen are drawn, each from the explicit conditional
// distribution p*_i/Σ_{j left} p*_j given the draws before it: a tree of
// the sums of p* over the items left, in blocks of restBlock, built once
// in O(n), then a descent and the blocks' sums above the drawn item formed
// again (each sum formed afresh from the p* of its items or from its two
// children, never adjusted by a difference, so nothing drifts) for each
// draw. Once every item left has p* = 0 (possible only at ε = 0), the
// draws are uniform among them, with p = 0.
//
// Once the p* of the items left sum to less than restSmall, the tree is
// built again (once a batch) on their p* times restScale (rest), so that
// the law stays exact at any scale: the p* of such items may be
// subnormal, rounded far more coarsely than a normal float, or 0, and u
// times their total falls on the grid of subnormals. Each item's p is
// still its p* as Prob returns it; an item whose p* rounds to 0 is drawn
// only by the uniform draws, as the attempts one by one never return it.
func (s *Sampler) drawRest(o *sol, sc *scratch, seen bitset, src rand.Source, items []int, probs []float64) {
	n := len(s.keys)
	nb := (n + restBlock - 1) / restBlock
	if cap(sc.probs) < 2*nb {
		sc.probs = make([]float64, 2*nb)
	}
	t, q := sc.probs[:2*nb], o.probs()
	scaled := false
	build := func() {
		s.restLeaves(&q, seen, t[nb:], scaled)
		for j := nb - 1; j >= 1; j-- {
			t[j] = t[2*j] + t[2*j+1]
		}
	}
	build()
	for k := range items {
		if !scaled && t[1] < restSmall {
			scaled = true
			build()
		}
		if t[1] == 0 {
			s.drawRestUniform(sc, seen, src, items[k:], probs[k:])
			return
		}
		// A node with a positive sum has a child with one: the left when
		// x falls in it or the right is empty, else the right.
		x, j := uniform(src)*t[1], 1
		for j < nb {
			if l, r := t[2*j], t[2*j+1]; x < l || r == 0 {
				j = 2 * j
			} else {
				x, j = x-l, 2*j+1
			}
		}
		// The weights of the block's items left, read once for the choice
		// and for the block's new sum: 0 for an item drawn, which adds
		// nothing to a sum, so the sum is restSum's, bit for bit.
		b := j - nb
		lo, hi := b*restBlock, min(b*restBlock+restBlock, n)
		var w [restBlock]float64
		for c := lo; c < hi; c++ {
			if !seen.has(c) {
				w[c-lo] = q.rest(s.keys[c], scaled)
			}
		}
		// Rounding may leave x at or past the block's last partial sum: the
		// last item with positive probability owns the end.
		acc, i := 0.0, -1
		for c := lo; c < hi; c++ {
			if wc := w[c-lo]; wc > 0 {
				acc += wc
				i = c
				if x < acc {
					break
				}
			}
		}
		seen.add(i)
		items[k], probs[k] = i, q.of(s.keys[i])
		sum := 0.0
		for c := lo; c < hi; c++ {
			if c != i {
				sum += w[c-lo]
			}
		}
		t[j] = sum
		for j >>= 1; j >= 1; j >>= 1 {
			t[j] = t[2*j] + t[2*j+1]
		}
	}
}

// restSmall is the total p* of the items left below which drawRest draws
// from their p* times restScale. Above it, an item's p* rounded on the
// grid of subnormals (an error of at most 2^-1075) is off by at most
// 2^-106 of the total, and u times the total is a normal float unless u
// is below 2^-53.
const restSmall = 0x1p-969

// restScale is the factor of the p* of drawRest's items once their total
// is below restSmall: the least p* of a positive key, 2^-1074/MaxSum at
// ε = 0, becomes a normal float, and a total below restSmall stays below
// 2^53.
const restScale = 0x1p1022

// rest returns the weight of a key a in drawRest: its p* as of returns it,
// or if scaled its p* times restScale, formed from the key itself for a
// head key (scaled before it is divided: exact, as a head key left with
// p* below restSmall has a/s below 2^-969·n ≤ 2^-938, so a is below
// 2^-107) and from ε for a tail key, so that the weight is a normal float
// with a relative error of at most 2^-52, however small p* is. A key whose p* rounds to 0 has
// weight 0 either way: Draw never returns it, so the attempts one by one
// never draw it while an item of positive p is left.
func (q *probs) rest(a float64, scaled bool) float64 {
	p := q.of(a)
	if !scaled || p == 0 {
		return p
	}
	// Scaled only when the items left have a total below restSmall: never
	// for zero or uniform, where every p* is 1/n.
	if a >= q.theta {
		return a * restScale / q.s * q.c
	}
	return q.eps * restScale
}

// restSum returns the sum of the weights (rest) over the items of block b
// not in seen, in index order.
func (s *Sampler) restSum(q *probs, seen bitset, b int, scaled bool) float64 {
	sum := 0.0
	for c := b * restBlock; c < min(b*restBlock+restBlock, len(s.keys)); c++ {
		if !seen.has(c) {
			sum += q.rest(s.keys[c], scaled)
		}
	}
	return sum
}

// restLeaves sets leaves[b] to restSum(q, seen, b, scaled) for every
// block b, bit for bit: the same weights added in the same order, a
// weight of 0 standing for an item drawn (adding +0 leaves a sum of
// nonnegative weights as it was).
func (s *Sampler) restLeaves(q *probs, seen bitset, leaves []float64, scaled bool) {
	keys := s.keys
	if scaled || q.zero || q.uniform {
		for b := range leaves {
			leaves[b] = s.restSum(q, seen, b, scaled)
		}
		return
	}
	// The usual p* (probs.of), its operands read once: the one sum a
	// batch over all n keys, half of drawRest's instructions through
	// restSum on concentrated keys at ε = 0.
	theta, sum, c, eps := q.theta, q.s, q.c, q.eps
	for b := range leaves {
		lo := b * restBlock
		acc := 0.0
		for k, a := range keys[lo:min(lo+restBlock, len(keys))] {
			w := eps
			if a >= theta {
				w = a / sum * c
			}
			if i := lo + k; seen.has(i) {
				w = 0
			}
			acc += w
		}
		leaves[b] = acc
	}
}

// drawRestUniform fills items and probs with draws without replacement,
// uniform among the items not in seen, each with p = 0: the items left,
// listed once, then taken at random.
func (s *Sampler) drawRestUniform(sc *scratch, seen bitset, src rand.Source, items []int, probs []float64) {
	left := sc.left[:0]
	for i := range s.keys {
		if !seen.has(i) {
			left = append(left, int32(i))
		}
	}
	sc.left = left
	for k := range items {
		r := int(below(src, uint64(len(left))))
		i := int(left[r])
		left[r] = left[len(left)-1]
		left = left[:len(left)-1]
		seen.add(i)
		items[k], probs[k] = i, 0
	}
}

// least returns the least x in [lo, hi) with f(x), for f false then true
// over the range, or hi.
func least(lo, hi uint64, f func(uint64) bool) uint64 {
	for lo < hi {
		m := lo + (hi-lo)/2
		if f(m) {
			hi = m
		} else {
			lo = m + 1
		}
	}
	return lo
}

// AttemptProbs appends, for every item i in index order, the exact
// probability that one attempt of Draw(eps, ·) proposes item i and accepts
// it, computed from the proposal table and the acceptance function Draw
// uses, to dst[:0]. Their sum is the acceptance rate, and each divided by
// the sum is the law of Draw. For tests.
func (s *Sampler) AttemptProbs(eps float64, dst []float64) ([]float64, error) {
	if err := s.validate(eps); err != nil {
		return dst, err
	}
	n := len(s.keys)
	dst = append(dst[:0], make([]float64, n)...)
	sc := s.getScratch()
	defer s.putScratch(sc)
	o, t := s.solution(eps, sc)
	if o.zero || o.uniform {
		for i := range dst {
			dst[i] = 1 / float64(n)
		}
		return dst, nil
	}
	// groups spreads a row's share pr over the groups j in [from, to) of
	// level l, chosen by bound weight, by count, or alone (the straddling
	// group), whose range total is total, and each group's share over its
	// slots. A group's weight is the measure of the numbers r that the
	// choice (findBound, findCount) maps to it, found by binary search over
	// r: the weights the draws use, whatever the block sums hold.
	const byBound, byCount, alone = 0, 1, 2
	groups := func(l int, by int, total float64, from, to int, pr float64, tail bool) {
		lv := s.lv[l-s.lo]
		var end uint64 // the range of r
		var choose func(r uint64) int
		switch by {
		case byBound:
			end = s.ls[l-s.lo].wb
			choose = func(r uint64) int { j, _ := lv.findBound(l, r); return j }
		case byCount:
			end = uint64(s.ls[l-s.lo].n)
			choose = func(r uint64) int { j, _ := findCount(&lv.bc, &lv.cnt, uint32(r)); return j }
		}
		first := func(j int) uint64 { // the least r mapped to j or above
			return least(0, end, func(r uint64) bool { return choose(r) >= j })
		}
		for j := from; j < to; j++ {
			c := int(lv.cnt[j])
			if c == 0 {
				continue
			}
			if by == byBound {
				// The numbers of the group, less the prefix the draw
				// takes from findBound, are split by headSlot into
				// slots and acceptance classes; the measure of each,
				// found by binary search over its monotone key
				// 2·slot + (0 sure, 1 tested), weighs its item.
				lo := first(j) // a group's edge: the partial row's partLo or past it
				_, pre := lv.findBound(l, lo)
				x0, x1 := lo-pre, first(j+1)-pre
				key := func(x uint64) int {
					k, sure := headSlot(l, j, x)
					if sure {
						return 2 * k
					}
					return 2*k + 1
				}
				at := func(v int) float64 { // the least x with key(x) ≥ v
					return float64(least(x0, x1, func(x uint64) bool { return key(x) >= v }))
				}
				slot := 0
				lv.each(j, func(e entry) {
					k := slot
					slot++
					if o.prob(e.key()) == 0 {
						return
					}
					sure, test := at(2*k+1)-at(2*k), at(2*k+2)-at(2*k+1)
					dst[e.item] += pr / total * (sure + test*headFrac(l, j, e.key()))
				})
				continue
			}
			w := 1.0 // the straddling group, alone in its row
			if by == byCount {
				w = float64(first(j+1)) - float64(first(j))
			}
			pe := pr * w / total / float64(c)
			lv.each(j, func(e entry) {
				if tail {
					dst[e.item] += pe
					return
				}
				if o.prob(e.key()) == 0 {
					return
				}
				m, b := straddleAccept(o, t, e.key()) // alone: the straddling group
				dst[e.item] += pe * (m / b)
			})
		}
	}
	for _, r := range t.rows {
		pr := r.w / t.total
		l := int(r.l)
		switch r.kind {
		case rowLevel:
			if t.iz.ok { // Draw's proposal by integer weights
				pr = float64(s.ls[l-s.lo].wb<<(l-int(t.iz.base))) / float64(t.iz.w)
			}
			groups(l, byBound, float64(s.ls[l-s.lo].wb), 0, nG, pr, false)
		case rowPartial:
			groups(l, byBound, float64(s.ls[l-s.lo].wb-t.partLo), o.grp+1, nG, pr, false)
		case rowStraddle:
			groups(l, alone, 1, o.grp, o.grp+1, pr, false)
		case rowTail:
			if t.direct { // tailItem: uniform over the keys below the straddling group
				c := 0
				for _, a := range s.keys {
					if t.belowStraddle(a) {
						c++
					}
				}
				for i, a := range s.keys {
					if t.belowStraddle(a) {
						dst[i] += pr / float64(c)
					}
				}
				continue
			}
			tl := &sc.tails
			tl.ready = false
			s.tailLevels(o, t, tl)
			if t.lvTail > 0 {
				groups(o.lvl, byCount, float64(t.nTail), 0, o.grp, pr, true)
			}
			prev := t.lvTail
			for q, m := range tl.tlv {
				groups(int(m), byCount, float64(t.nTail), 0, nG, pr, true)
				prev = tl.tcum[q]
			}
			pe := pr / float64(t.nTail)
			if t.nTail > prev {
				for _, i := range s.zeros {
					dst[i] += pe
				}
			}
		}
	}
	return dst, nil
}

// Step sets the key of item i to a, then draws an item at bound eps: what
// Set(i, a) then Draw(eps, src) do, bit for bit, the bound checked before
// anything changes (reweighted.Step's errors and order).
func (s *Sampler) Step(eps float64, i int, a float64, src rand.Source) (next int, p float64, err error) {
	// A valid call's checks as three tests (ε = 0, plain proportional
	// sampling, needs no division), the errors below in their order.
	if n := len(s.keys); uint(i) < uint(n) && a >= 0 && a <= reweighted.MaxSum && (eps == 0 || eps > 0 && eps <= 1/float64(n)) {
		if err := s.set(i, a+0); err != nil { // a + 0 turns −0 into +0, as check.Key
			return 0, 0, err
		}
		if k := s.keptFor(eps); k != nil { // drawValid's first case, one call less
			// draw's attempts at ε = 0 through the integer proposal,
			// with no call between (a frame of draw's, 20 instructions
			// of a step of 1,500).
			for k.tab.iz.ok {
				if next, p = s.attemptInt(&k.o, &k.tab, src); next >= 0 {
					return next, p, nil
				}
			}
			next, p = s.draw(&k.o, &k.tab, nil, src)
			return next, p, nil
		}
		next, p = s.drawValid(eps, src)
		return next, p, nil
	}
	if len(s.keys) == 0 {
		return 0, 0, reweighted.ErrEmpty
	}
	if err := check.Index(i, len(s.keys)); err != nil {
		return 0, 0, err
	}
	a, err = check.Key(a)
	if err != nil {
		return 0, 0, err
	}
	if err := s.validate(eps); err != nil {
		return 0, 0, err
	}
	if err := s.set(i, a); err != nil {
		return 0, 0, err
	}
	next, p = s.drawValid(eps, src)
	return next, p, nil
}

// flat is DrawBatch's proposal over the head's groups, built once a call
// from the table: every group of the rows wholly or partly in the head
// (rowLevel, rowPartial; 64 a level, empty or below the straddling group
// weighing 0), each weighing its count times its bound in the unit of the
// lowest of those levels, base, so that one uniform integer r below their
// exact total w chooses the group, the slot and the acceptance, as
// headChoice's number does within one level: no float row, no block sums.
// A number of src picks the head or a front row (the tail's, the
// straddling group's) from the table's cumulative weights, as Draw's
// first number picks its row. Built only when the levels' weights fit
// below 2^62 shifted to base (keys over some 40 binades of the head do
// not; the table's rows serve them).
type flat struct {
	ok     bool
	front  int     // the table's rows before the head's: the tail's and the straddling group's
	cumF   float64 // the cumulative weight of the front rows: the head's numbers lie at or above it
	w      uint64  // the total weight, in units of 2^(base−6)
	x0     uint64  // the least first word of an attempt whose number, as fineUniform reads it, reaches cumF
	lim    uint64  // the largest y = x − x0 taken as it is: lim + 1 is a multiple of w
	rec    uint64  // ⌊(2^64 − 1)/w⌋, for y mod w
	thresh uint64  // 2^64 mod w: Lemire's least low word taken
	// A direct tail row first (tail): its words from 2^52 on are those
	// below x1, and y = x − 2^52 mod n, up to limT, is the first try's
	// item, exactly uniform; recN is ⌊(2^64 − 1)/n⌋.
	tail           bool
	x1, limT, recN uint64
	// The groups of the head, in the order of the levels then of the
	// groups, all or the occupied ones (dense): ends[g] is the cumulative
	// weight below the g-th, of index id[g] = k·64 + j (group j of the
	// k-th level), ends[ng] = w;
	// gd[r >> gs] is the one that holds the least number of r's bucket:
	// r's own is that one or one of the next few (guide).
	ends  []uint64
	id    []uint16
	ng    int
	dense bool // the groups are all the levels' groups: id[g] = g, not read
	force int8 // for tests: dense whatever the groups occupied if 1, not if −1
	gd    []uint16
	gs    uint
	nl    int             // the levels
	lvls  [maxFlat]fLevel // the levels, in the order of ends
}

// maxFlat is the most levels a flat proposal spans: more take the table's
// rows (keys over more than 32 binades of the head).
const maxFlat = 32

// fLevel is a level of flat: the level, its index in the sampler's lv,
// its own index and the shift of its groups' weights to base.
type fLevel struct {
	lv    *level
	lk, l int32
	d     uint32
}

// buildFlat makes fl the flat proposal of the table t for the solution o,
// or leaves fl.ok false when the table has no head row or the head's
// weights do not fit.
func (s *Sampler) buildFlat(o *sol, t *table, fl *flat) {
	fl.ok = false
	rows := t.rows
	f := 0
	for f < len(rows) && (rows[f].kind == rowTail || rows[f].kind == rowStraddle) {
		f++
	}
	if f == len(rows) {
		return
	}
	fl.front, fl.cumF = f, 0
	if f > 0 {
		fl.cumF = rows[f-1].cum
	}
	base := int(rows[f].l)
	nl := len(rows) - f
	if nl > maxFlat {
		return
	}
	// Room for eight levels more (650 bytes each with their indices and
	// buckets, 21 kB at most): the arrays grow rarely.
	if cap(fl.ends) < nl*nG+1 {
		m := min(nl+8, maxFlat) * nG
		fl.ends, fl.id, fl.gd = make([]uint64, m+1), make([]uint16, m), make([]uint16, m)
	}
	// The levels' weights, which must fit, and their occupied groups.
	var w uint64
	occ := 0
	for k := range nl {
		r := &rows[f+k]
		l := int(r.l)
		d := l - base
		lk := l - s.lo
		wb, from := s.ls[lk].wb, 0
		if r.kind == rowPartial {
			wb, from = wb-t.partLo, o.grp+1
		}
		if d >= 62 || wb>>(62-d) != 0 || w+wb<<d >= 1<<62 {
			return
		}
		w += wb << d
		lv := s.lv[lk]
		occ += bits.OnesCount64(lv.occ >> from << from)
		fl.lvls[k] = fLevel{lv: lv, lk: int32(lk), l: int32(l), d: uint32(d)}
	}
	// With the levels' groups mostly occupied, all of them, g = k·64 + j;
	// else the occupied ones only (keys spread over many binades leave
	// most groups of their levels empty).
	if fl.dense = 2*occ >= nl*nG; fl.force != 0 {
		fl.dense = fl.force > 0
	}
	ends := fl.ends
	g := 0
	w = 0
	if !fl.dense {
		for k := range nl {
			lv := &fl.lvls[k]
			from := 0
			if rows[f+k].kind == rowPartial {
				from = o.grp + 1
			}
			g, w = flatLevel(ends, fl.id, g, w, &lv.lv.cnt, lv.lv.occ>>from<<from, bnd(int(lv.l), 0), uint(lv.d), k<<bB)
		}
	}
	for k := range nl {
		if !fl.dense {
			break
		}
		lv := &fl.lvls[k]
		l, d := int(lv.l), int(lv.d)
		from := 0
		if rows[f+k].kind == rowPartial {
			from = o.grp + 1
		}
		es := (*[nG]uint64)(ends[k*nG : k*nG+nG])
		cnt := &lv.lv.cnt
		for j := range from {
			es[j] = w
		}
		b, step := bnd(l, from)<<d, uint64(1)<<d // group j's bound, shifted
		j := from
		for ; j&3 != 0; j++ {
			es[j] = w
			w += uint64(cnt[j]) * b
			b += step
		}
		// Four groups a step: the loop's own count and bounds checks
		// cost as much as a group.
		// An unsigned index below nG−3 needs no bounds check (the four
		// groups as arrays cut from the slices took six instructions
		// more a step).
		for u := uint(j); u < nG-3; u += 4 {
			es[u] = w
			w += uint64(cnt[u]) * b
			es[u+1] = w
			w += uint64(cnt[u+1]) * (b + step)
			es[u+2] = w
			w += uint64(cnt[u+2]) * (b + 2*step)
			es[u+3] = w
			w += uint64(cnt[u+3]) * (b + 3*step)
			b += 4 * step
		}
		g += nG
	}
	ends[g] = w
	fl.ng = g
	fl.guide(ends[:g+1], w)
	// The first word x of an attempt goes to the head exactly when
	// fineUniform(x)·total ≥ cumF, as Draw's first number goes to the
	// head's rows: from 2^52 on, fineUniform reads x alone, and
	// monotonically, so a bisection finds the least such x, x0; the words
	// below 2^52 read more of src and are decided one by one (drawNear).
	// Above x0, y = x − x0 is uniform over [0, 2^64 − x0): its value mod w
	// is the head's number when y lies below the largest multiple of w
	// that fits, else fresh numbers are (Lemire's): either way exactly
	// uniform, and a head attempt takes one number of src, not two.
	x0 := uint64(0)
	if f > 0 {
		var ok bool
		if x0, ok = firstWord(fl.cumF, t.total); !ok {
			return // a head of less than 2^-53 of the weight: the rows serve it
		}
	}
	fl.thresh = -w % w
	fl.lim = math.MaxUint64 - fl.thresh // x0 = 0: 2^64 words, less 2^64 mod w
	if x0 > 0 {
		m := -x0 // the words at or above x0
		if m < w {
			return
		}
		fl.lim = m - m%w - 1
	}
	fl.x0, fl.rec = x0, math.MaxUint64/w
	fl.tail = false
	if f > 0 && rows[0].kind == rowTail && t.direct {
		n := uint64(o.n)
		if x1, ok := firstWord(rows[0].cum, t.total); ok && x1-1<<52 >= n {
			m := x1 - 1<<52
			fl.tail, fl.x1, fl.limT, fl.recN = true, x1, m-m%n-1, math.MaxUint64/n
		}
	}
	fl.nl, fl.w, fl.ok = nl, w, true
}

// flatLevel appends to ends and id, from g on, the occupied groups of a
// level in the set m, of counts cnt, bounds b + j and weights shifted by
// d, indexed tag + j, from the cumulative weight w; it returns the next g
// and w. A function of its own, so that its loop holds its few values in
// registers (not inlined: inlined, they share the caller's).
//
//go:noinline
func flatLevel(ends []uint64, id []uint16, g int, w uint64, cnt *[nG]int32, m, b uint64, d uint, tag int) (int, uint64) {
	// Multiplies, not shifts by d, which the compiler gives one register
	// it then spills around.
	bs, step := b<<(d&63), uint64(1)<<(d&63)
	for ; m != 0; m &= m - 1 {
		j := bits.TrailingZeros64(m)
		ends[g], id[g] = w, uint16(tag|j)
		w += uint64(cnt[j&(nG-1)]) * (bs + uint64(j)*step)
		g++
	}
	return g, w
}

// firstWord returns the least word x ≥ 2^52 with fineUniform(x)·total ≥
// cumF, for 0 < cumF ≤ total, and false if there is none. From 2^52 on
// fineUniform reads x alone: a word with lz leading zeros (at most 11)
// gives m·2^(−53−lz), m its 53 bits from the leading one, every float of
// [2^-12, 1) once, from the least word m<<(11−lz) that gives it. So x is
// that word for the least such float u with u·total ≥ cumF, found from
// cumF/total by a step or two, a product being monotone in u.
func firstWord(cumF, total float64) (uint64, bool) {
	u := min(cumF/total, 1)
	for u > 0 && u*total >= cumF {
		u = math.Nextafter(u, 0)
	}
	for u < 1 && u*total < cumF {
		u = math.Nextafter(u, 1)
	}
	switch {
	case u >= 1:
		return 0, false
	case u < 0x1p-12:
		return 1 << 52, true
	}
	frac, exp := math.Frexp(u) // u = frac·2^exp, frac in [1/2, 1), exp in [−11, 0]
	m := uint64(frac * 0x1p53)
	return m << (11 + exp), true
}

// mod returns y mod w, for y ≤ lim.
func (fl *flat) mod(y uint64) uint64 { return modBy(y, fl.w, fl.rec) }

// modBy returns y mod d, rec being ⌊(2^64 − 1)/d⌋: by a multiply, not a
// division (some 30 to 90 cycles). q = ⌊y·rec/2^64⌋ is ⌊y/d⌋ or one less,
// as y·rec/2^64 > y/d − y/2^64 > y/d − 1, so one correction.
func modBy(y, d, rec uint64) uint64 {
	q, _ := bits.Mul64(y, rec)
	r := y - q*d
	if r >= d {
		r -= d
	}
	return r
}

// fresh returns a uniform number in [0, w) from fresh numbers of src,
// exactly: Lemire's multiply, a number whose low word falls below 2^64
// mod w drawn again.
func (fl *flat) fresh(src rand.Source) uint64 {
	for {
		if r, lo := bits.Mul64(src.Uint64(), fl.w); lo >= fl.thresh {
			return r
		}
	}
}

// guide fills gd and gs for the ends of a flat proposal of total w: the
// numbers [0, w) cut into buckets of 2^gs, more than a quarter as many as
// the groups and at most half as many, each mapped to the group that
// holds its least number. Fewer buckets make longer steps of at, more a
// longer fill here: of 128 to 512 buckets for 320 groups, this made the
// fewest instructions.
func (fl *flat) guide(ends []uint64, w uint64) {
	nb := max(bits.Len(uint(len(ends)-1))-2, 0)
	gs := uint(max(bits.Len64(w-1)-nb, 0))
	gd := fl.gd[:1<<nb]
	b, lo, span := 0, uint64(0), uint64(1)<<gs // bucket b's least number is lo
	fl.gs = gs
	for g, e := range ends[1:] {
		if lo >= e {
			continue // most groups start no bucket: one test each
		}
		for {
			gd[b] = uint16(g)
			if b++; b == len(gd) {
				return // the groups left start no bucket
			}
			if lo += span; lo >= e {
				break
			}
		}
	}
}

// index returns id[g], k·64 + j for the g-th group of fl, group j of its
// k-th level.
func (fl *flat) index(g int) uint16 {
	if fl.dense {
		return uint16(g)
	}
	return fl.id[g]
}

// group returns the place g in fl of group j of its k-th level, which
// holds items.
func (fl *flat) group(k, j int) int {
	if fl.dense {
		return k<<bB | j
	}
	g, _ := slices.BinarySearch(fl.id[:fl.ng], uint16(k<<bB|j))
	return g
}

// at returns the level (its entry in lvls) and the group of the head that
// its number r in [0, w) chooses, and the number in [0, count·bound) in
// the level's unit that chooses the slot and the acceptance (headSlot):
// the last group whose start is at or below r, found from the group of
// r's bucket by a step or two, where a binary search over the levels,
// then the groups, takes nine to eleven.
func (fl *flat) at(r uint64) (lv *fLevel, j int, rl uint64) {
	g := uint(fl.gd[r>>(fl.gs&63)])
	ends := fl.ends
	for ends[g+1] <= r {
		g++
	}
	x := fl.index(int(g))
	lv = &fl.lvls[(x>>bB)&(maxFlat-1)]
	return lv, int(x & (nG - 1)), (r - ends[g]) >> (lv.d & 63)
}
