package levels

import (
	"fmt"
	"math"
	"math/bits"
	"slices"

	"github.com/reweighted/reweighted"
	"github.com/reweighted/reweighted/internal/check"
)

// sol is Lemma 1 solved for one ε: ρ, the sum s of the ρ largest keys, and
// the threshold θ that splits the head from the tail: a key is among the ρ
// largest exactly when it is ≥ θ. lvl is the level where the head ends (−1:
// every positive key is in the head) and grp its straddling group, the
// first from the top whose lower edge is below the cutoff t* (−1: all of
// lvl is in the head), of which h items are in the head.
type sol struct {
	n       int
	eps     float64
	uniform bool // ε == 1/float64(n), read as exactly 1/n
	zero    bool // every key is 0: p is uniform
	rho     int
	s       float64 // the sum of the ρ largest keys
	sSc     float64 // s in the top level's unit
	top     int     // the top level
	ts      int     // unitShift(top)
	theta   float64
	lvl     int
	grp     int
	sub     int // the straddling sub-bucket of a split grp, −1 if none
	h       int
}

// hint is where the last Solve found t*: its level, group and sub-bucket
// (−1: none straddles). The next Solve checks it with two tests per tier
// and starts there if it holds, else it walks from the top: keys that
// change a few at a time move t* little, and the walk and the binary
// searches down to it are most of a Solve. It is a guess, never trusted:
// a Solve's answer is the same whatever the hint.
type hint struct {
	l, j, k int32
	ok      bool
}

// c returns 1 − (n − ρ)ε, the mass of the head (ρ/n when uniform).
func (o *sol) c() float64 {
	if o.uniform {
		return float64(o.rho) / float64(o.n)
	}
	return math.FMA(-float64(o.n-o.rho), o.eps, 1)
}

// headProb returns p* of a head key a: a/s·c, a divided by s first so that
// a subnormal λ keeps its precision.
func (o *sol) headProb(a float64) float64 { return a / o.s * o.c() }

// inHead reports whether a key a is among the ρ largest (ties all in or
// all out).
func (o *sol) inHead(a float64) bool {
	if o.uniform {
		return a == o.theta
	}
	return a >= o.theta
}

// prob returns p* of a key a.
func (o *sol) prob(a float64) float64 {
	switch {
	case o.zero:
		return 1 / float64(o.n)
	case o.inHead(a):
		return o.headProb(a)
	}
	return o.eps
}

// probs is prob with its operands read once, for loops over many keys: the
// same operations, so the same p, bit for bit.
type probs struct {
	zero, uniform  bool
	z, theta, s, c float64
	eps            float64
}

func (o *sol) probs() probs {
	q := probs{zero: o.zero, uniform: o.uniform, z: 1 / float64(o.n), theta: o.theta, s: o.s, eps: o.eps}
	if !o.zero {
		q.c = o.c()
	}
	return q
}

// of returns p* of a key a, as prob.
func (q *probs) of(a float64) float64 {
	switch {
	case q.zero:
		return q.z
	case q.uniform:
		if a == q.theta {
			return a / q.s * q.c
		}
	case a >= q.theta:
		return a / q.s * q.c
	}
	return q.eps
}

// validate checks ε: ErrEmpty if n = 0, ErrEpsilon unless 0 ≤ ε ≤ 1/n.
func (s *Sampler) validate(eps float64) error {
	n := len(s.keys)
	if n == 0 {
		return reweighted.ErrEmpty
	}
	if !(eps >= 0 && eps <= 1/float64(n)) {
		return fmt.Errorf("%w: %v not in [0, 1/%d]", reweighted.ErrEpsilon, eps, n)
	}
	return nil
}

// solve solves Lemma 1 for a valid ε, with sc's memory for the straddling
// group.
func (s *Sampler) solve(eps float64, sc *scratch) sol {
	s.solves.Add(1)
	n := len(s.keys)
	o := sol{n: n, eps: eps, uniform: eps == 1/float64(n), lvl: -1, grp: -1, sub: -1}
	if len(s.zeros) == n {
		o.zero, o.rho = true, n
		return o
	}
	o.top = s.topLevel()
	o.ts = unitShift(o.top)
	o.theta = math.SmallestNonzeroFloat64 // every positive key, for ε > 0
	if eps == 0 {
		o.theta = 0 // every key, ε·λ being 0
	}
	if o.uniform {
		s.solveUniform(&o)
		return o
	}
	if eps == 0 {
		// Every key in the head: λ is the sum of all keys, rounded once
		// from their exact sum, which the kept solution keeps after one
		// Set by two exact additions, where a walk over the levels would
		// convert and add each level's sum.
		x := s.wideSum()
		o.rho = n
		o.sSc = x.float(o.ts, sumBits(o.top, n))
		o.s = scaleDown(o.sSc, o.ts-1074)
		return o
	}
	// Walk the levels down, then the groups of the first level whose lower
	// edge lies below the cutoff t*, keeping the exact count and the float
	// sum (exact within a level) of the keys above.
	var (
		above  int     // items in the levels walked
		sAbove float64 // their sum, in the top level's unit
		depth  int     // roundings in sAbove
	)
	start, h := o.top, sc.hint
	sc.hint.ok = false
	if eps > 0 && h.ok {
		if a, sA, d, ok := s.skipTo(&o, sc, int(h.l)); ok {
			start, above, sAbove, depth = int(h.l), a, sA, d
		} else {
			h.ok = false
		}
	}
	for l := start; l >= 0; l = s.nextLevel(l) {
		lv := s.lv[l-s.lo]
		f := unitShift(l) - o.ts
		st := &s.ls[l-s.lo]
		sl := sAbove + scaleDown(st.sum.float(), f)
		if eps == 0 || s.headAt(&o, sl, 1, l, int(int64(n)-int64(above)-st.n), depth+3, sc, l, st.sum) {
			above += int(st.n)
			sAbove = sl
			depth += 3
			continue
		}
		// t* lies above the level's lower edge: its groups, from the top.
		o.lvl = l
		o.theta = scale(1, l-1074) // all of the level, unless a group straddles
		// H at the lower edges of its occupied groups fails from some
		// group on, the straddling one.
		hj := -2
		if h.ok && l == int(h.l) {
			hj = int(h.j)
		}
		j, part, inLevel, _ := s.search(&o, sc, lv.occ, &lv.bc, &lv.bs, &lv.cnt, &lv.gsum, nG, l-bB, l, u128{}, sAbove, above, depth, hj)
		if j >= 0 {
			o.grp = j
			hk := -2
			if hj == j {
				hk = int(h.k)
			}
			part = s.resolve(&o, sc, lv, l, o.grp, part, sAbove, above+inLevel, depth, hk)
			inLevel += o.h
		}
		above += inLevel
		sAbove += scaleDown(part.float(), f)
		break
	}
	o.rho = above
	if eps > 0 {
		sc.hint = hint{l: int32(o.lvl), j: int32(o.grp), k: int32(o.sub), ok: o.lvl >= 0}
		// Zero keys are in the tail for ε > 0 (0 ≥ ε·S fails), and ε = 0
		// puts every key in the head.
	} else {
		o.rho = n
	}
	o.sSc = sAbove
	o.s = scaleDown(sAbove, o.ts-1074)
	return o
}

// skipTo returns the count, sum (in the top level's unit) and roundings
// of the levels above l, as solve's walk sums them, and true if l is
// occupied and the lowest occupied level above it passes at its lower edge
// (so do all above it, H being decreasing): solve's walk would reach l.
func (s *Sampler) skipTo(o *sol, sc *scratch, l int) (int, float64, int, bool) {
	if l < 0 || l >= o.top || s.occ[l>>6]>>(l&63)&1 == 0 {
		return 0, 0, 0, false
	}
	above, sAbove, depth, u := s.levelsAbove(o, l)
	if !s.headAt(o, sAbove, 1, u, o.n-above, depth, sc, u, s.ls[u-s.lo].sum) {
		return 0, 0, 0, false
	}
	return above, sAbove, depth, true
}

// levelsAbove returns the count of the keys of the levels above l, their
// sum in the top level's unit (o.top, o.ts) as solve's walk sums them, the
// roundings in that sum, and the lowest of those levels (−1 if none).
func (s *Sampler) levelsAbove(o *sol, l int) (above int, sAbove float64, depth, low int) {
	low = -1
	if o.top <= l {
		return above, sAbove, depth, low
	}
	// The occupied levels from the top down, as nextLevel walks them, a
	// word of the bitmap at a time: no call a level.
	w := o.top >> 6
	x := s.occ[w] & (^uint64(0) >> (63 - o.top&63))
	for {
		for ; x != 0; x &^= 1 << (bits.Len64(x) - 1) {
			m := w*64 + bits.Len64(x) - 1
			if m <= l {
				return above, sAbove, depth, low
			}
			st := &s.ls[m-s.lo]
			above += int(st.n)
			sAbove += scaleDown(st.sum.float(), unitShift(m)-o.ts)
			depth += 3
			low = m
		}
		ws := s.occW & (1<<w - 1)
		if ws == 0 {
			return above, sAbove, depth, low
		}
		w = bits.Len64(ws) - 1
		x = s.occ[w]
	}
}

// resolve finds the head of the straddling group j of level l: part is
// the exact sum of the level's groups above j, sAbove and above the sum and
// count of the keys above the group. It sets o.h and o.theta and returns
// part plus the sum of the group's head keys. A split group is searched by
// its sub-buckets, as the level by its groups, for the one that straddles
// t*.
func (s *Sampler) resolve(o *sol, sc *scratch, lv *level, l, j int, part u128, sAbove float64, above, depth, hk int) u128 {
	sb := lv.sub[j]
	if sb == nil {
		return s.bracket(o, sc, lv.ents[j], lv.gsum[j], uint64(nG+j), l-bB, hiEdge(l, j), l, j, -1, part, sAbove, above, depth, 0, -1)
	}
	// A sub-bucket's lower edge is tm(k) = base + k units of 2^(l−12).
	base := uint64(nG*nG + nG*j)
	k, sum, in, pass := s.search(o, sc, sb.occ, &sb.bc, &sb.bs, &sb.cnt, &sb.sum, base, l-2*bB, l, part, sAbove, above, depth, hk)
	o.sub = k
	part = part.plus(sum)
	if pass >= 0 {
		o.theta = scale(float64(base+uint64(pass)), l-2*bB-1074)
	}
	if k < 0 {
		o.h = in
		return part
	}
	tm := base + uint64(k)
	part = s.bracket(o, sc, sb.ents[k], sb.sum[k], tm, l-2*bB, scale(float64(tm+1), l-2*bB-1074), l, j, k, part, sAbove, above+in, depth, 0, -1)
	o.h += in
	return part
}

// search finds, among the 64 groups of a level (or sub-buckets of a split
// group) of level l, with bitmap occ, block counts bc and sums bs, counts
// cnt and sums sums, the highest occupied one whose lower edge (base + j)
// units of 2^te fails H: the straddling one, −1 if none. part is the exact
// sum of the level's keys above them, sAbove and above the sum and count of
// the keys above them. It returns the straddling index, the exact sum and
// the count of the occupied ones above it (all of them if none fails), and
// the lowest of those, −1 if none. A binary search over the occupied
// blocks of eight, with their suffix sums, then over the groups of one
// block: six tests and at most sixteen additions, not 64.
//
// hint is the group a previous Solve found (−1: none failed; −2: no
// hint): if it still holds — it fails and the next occupied group above
// it passes, or, for −1, the lowest occupied group passes — the answer
// costs two tests and the sums of the groups above it.
func (s *Sampler) search(o *sol, sc *scratch, occ uint64, bc *[nBlk]uint32, bs *[nBlk]u128, cnt *[nG]int32, sums *[nG]u128, base uint64, te, l int, part u128, sAbove float64, above, depth, hint int) (int, u128, int, int) {
	f := unitShift(l) - o.ts
	// fails reports whether H fails at the lower edge of group j, with S
	// and C the sum and count of the groups at or above it.
	fails := func(j int, S u128, C int) bool {
		ps := part.plus(S)
		return !s.headAt(o, sAbove+scaleDown(ps.float(), f), base+uint64(j), te, o.n-above-C, depth+3, sc, l, ps)
	}
	lowest := func(b int) int { return b*8 + bits.TrailingZeros64(occ>>(8*b)&0xff) }
	switch {
	case hint == -1 && occ != 0:
		var S u128
		C := 0
		for b := range nBlk {
			S = S.plus(bs[b])
			C += int(bc[b])
		}
		if low := bits.TrailingZeros64(occ); !fails(low, S, C) {
			return -1, S, C, low
		}
	case hint >= 0 && hint < nG && occ>>hint&1 != 0:
		S, C := sumAbove(occ, bc, bs, cnt, sums, hint)
		pass := -1
		if up := occ &^ (1<<(hint+1) - 1); up != 0 {
			pass = bits.TrailingZeros64(up)
		}
		if (pass < 0 || !fails(pass, S, C)) && fails(hint, S.plus(sums[hint]), C+int(cnt[hint])) {
			return hint, S, C, pass
		}
	}
	var (
		blk  [nBlk]int8
		bsum [nBlk]u128
		bcnt [nBlk]int
		acc  u128
		c, m int
	)
	for b := nBlk - 1; b >= 0; b-- {
		if occ>>(8*b)&0xff != 0 {
			acc = acc.plus(bs[b])
			c += int(bc[b])
			blk[m], bsum[m], bcnt[m] = int8(b), acc, c
			m++
		}
	}
	lo, hi := 0, m // blocks before lo pass at their lowest group
	for lo < hi {
		q := (lo + hi) / 2
		if fails(lowest(int(blk[q])), bsum[q], bcnt[q]) {
			hi = q
		} else {
			lo = q + 1
		}
	}
	if lo == m {
		if m == 0 {
			return -1, u128{}, 0, -1
		}
		return -1, bsum[m-1], bcnt[m-1], lowest(int(blk[m-1]))
	}
	var aS u128 // the blocks above
	aC, pass := 0, -1
	if lo > 0 {
		aS, aC, pass = bsum[lo-1], bcnt[lo-1], lowest(int(blk[lo-1]))
	}
	b := int(blk[lo])
	var (
		gs   [8]int8
		gsum [8]u128
		gcnt [8]int
	)
	acc, c, m = aS, aC, 0
	for x := occ >> (8 * b) & 0xff; x != 0; m++ {
		j := bits.Len64(x) - 1
		x &^= 1 << j
		acc = acc.plus(sums[8*b+j])
		c += int(cnt[8*b+j])
		gs[m], gsum[m], gcnt[m] = int8(8*b+j), acc, c
	}
	lo, hi = 0, m-1 // the block's lowest group fails
	for lo < hi {
		q := (lo + hi) / 2
		if fails(int(gs[q]), gsum[q], gcnt[q]) {
			hi = q
		} else {
			lo = q + 1
		}
	}
	if lo > 0 {
		return int(gs[lo]), gsum[lo-1], gcnt[lo-1], int(gs[lo-1])
	}
	return int(gs[lo]), aS, aC, pass
}

// bracket finds the head among the keys ents of the straddling group j of
// level l, or of its sub-bucket k (k = −1: the group is flat), of exact sum
// sig, whose keys lie in [lo, hi), lo = tm·2^te units: part is the exact
// sum of the level's keys above them, sAbove and above the sum and count of
// the keys above them. It sets o.h and o.theta and returns part plus the
// sum of their head keys.
//
// The unit's count c and exact sum Σ bracket t* before any key is read:
// with A the sum above and k the count below the unit, max(b, t) lies
// between b and b + (t − lo) for every key b of the unit, so
//
//	t_L = ε(A + Σ)/(1 − εk) ≤ t* ≤ ε(A + Σ − c·lo)/(1 − ε(k + c)) = t_U.
//
// The keys ≥ t_U are in the head and those < t_L in the tail; the unit's
// sorted keys (unitOf) give both counts by binary search, and the
// predicate is tested only at keys inside the bracket, by a binary search
// over them: O(log c) and, the bracket being about c/n of the unit's width,
// O(1) tests expected. With a guess (not 0), the bits of the threshold θ
// of the solution before one update (follow), the search tests first the
// keys on either side of it: keys that crowd t* put many inside the
// bracket, and an update moves the head's edge among them by a key or
// two, if at all; with gi ≥ 0, the count of the unit's keys in the head
// before that update, the two counts are searched for out from it.
func (s *Sampler) bracket(o *sol, sc *scratch, ents []entry, sig u128, tm uint64, te int, hi float64, l, j, k int, part u128, sAbove float64, above, depth int, guess uint64, gi int) u128 {
	c := len(ents)
	f := unitShift(l) - o.ts
	kb := o.n - above - c
	eps := o.eps
	loInt := tm << max(te-unitShift(l), 0) >> max(unitShift(l)-te, 0) // lo in level units
	var excess u128                                                   // Σ − c·lo ≥ 0, exactly
	clHi, clLo := bits.Mul64(uint64(c), loInt)
	var borrow uint64
	excess.lo, borrow = bits.Sub64(sig.lo, clLo, 0)
	excess.hi = sig.hi - clHi - borrow
	a := sAbove + scaleDown(part.float(), f)
	// The denominators by FMA, rounded once: 1 − εk may be tiny.
	tl := eps * (a + scaleDown(sig.float(), f)) / math.FMA(-eps, float64(kb), 1)
	tu := math.Inf(1)
	if d := math.FMA(-eps, float64(kb+c), 1); d > 0 {
		tu = eps * (a + scaleDown(excess.float(), f)) / d
	}
	// In level units, widened by far more than their roundings.
	delta := float64(depth+32) * 0x1p-52
	tl = scaleUp(tl, -f) * (1 - delta)
	tu = scaleUp(tu, -f) * (1 + delta)
	// Within one level a key's bits are its significand in the level's
	// unit plus a constant: a key is ≥ a whole number g of units exactly
	// when its bits are ≥ g + off.
	off := uint64(unitShift(l)) << 52
	tuB, tlB := bitsAtLeast(tu, off), bitsAtLeast(tl, off)
	// The unit's keys sorted (keys, and the sums of their prefixes from
	// u), or, when none is published, those of one pass: the keys above
	// the bracket counted (na) and summed (pre[0]), those inside it sorted
	// (pre).
	var (
		keys    []uint64
		pre     []u128
		na      int
		minHead uint64 = math.MaxUint64
	)
	u, shared := s.unitOf(l, j, k, ents, sc)
	if u != nil {
		if !shared {
			defer s.putUnit(u)
		}
		keys = u.keys
	} else {
		var head u128
		keys = sc.cand[:0]
		for _, e := range ents {
			// The head's keys are added by mask, not under a branch:
			// about half of a unit's keys are in the head, in no order,
			// and a branch on each would be mispredicted half the time.
			// Only the few keys inside the bracket take a branch.
			b := uint64(e.khi)<<32 | uint64(e.klo)
			var h uint64
			if b >= tuB {
				h = 1
			}
			m := -h
			var carry uint64
			head.lo, carry = bits.Add64(head.lo, (b-off)&m, 0)
			head.hi += carry
			na += int(h)
			minHead = min(minHead, b|^m)
			if h == 0 && b >= tlB {
				keys = append(keys, b)
			}
		}
		slices.Sort(keys)
		slices.Reverse(keys)
		pre = append(sc.pre[:0], head)
		for _, b := range keys {
			head.add(b - off)
			pre = append(pre, head)
		}
		sc.cand, sc.pre = keys, pre
	}
	// keys[:lo] are known head, keys[hi2:] known tail; a test at a key p
	// counts every key ≥ p, its ties included.
	var lo, hi2 int
	if u != nil && gi >= 0 {
		// The bracket holds about one key, and the head's edge moved by
		// a key or two, if at all: search out from where it was.
		lo = countAtLeastNear(keys, gi, tuB)
		hi2 = countAtLeastNear(keys, lo, tlB)
	} else {
		lo = countAtLeast(keys, 0, len(keys), tuB)
		hi2 = countAtLeast(keys, lo, len(keys), tlB)
	}
	if lo < hi2 {
		// Most brackets hold no key: the tests, and the closure, only
		// when one does.
		s.bracketTests(o, sc, keys, u, pre, &lo, &hi2, guess, off, f, l, part, sAbove, above+na, depth)
	}
	o.h = na + lo
	switch {
	case lo > 0:
		o.theta = math.Float64frombits(keys[lo-1])
	case na > 0:
		o.theta = math.Float64frombits(minHead)
	default:
		o.theta = hi
	}
	return part.plus(unitPrefix(u, pre, lo))
}

// unitPrefix returns the sum of the q largest keys of a unit: from its
// sorted unit u, or, with none, from the prefix sums pre of one pass.
func unitPrefix(u *unit, pre []u128, q int) u128 {
	if u != nil {
		return u.prefix(q)
	}
	return pre[q]
}

// bracketTests decides the keys inside the bracket, keys[*lo:*hi2], for
// bracket: the keys ≥ θ before (guess) first, then a binary search; the
// keys sorted (u, or pre with none), above the count of the keys above
// the bracket and the unit's.
func (s *Sampler) bracketTests(o *sol, sc *scratch, keys []uint64, u *unit, pre []u128, lo, hi2 *int, guess, off uint64, f, l int, part u128, sAbove float64, above, depth int) {
	// test decides the key at q, lo ≤ q < hi2, and its ties: all in the
	// head, or all in the tail.
	test := func(q int) {
		p := keys[q]
		first := countAbove(keys, *lo, q, p) // the ties of p: keys[first:end]
		end := countAtLeast(keys, q, *hi2, p)
		sum := part.plus(unitPrefix(u, pre, end))
		if s.headAt(o, sAbove+scaleDown(sum.float(), f), p-off, unitShift(l), o.n-above-end, depth+3, sc, l, sum) {
			*lo = end
		} else {
			*hi2 = first
		}
	}
	if guess != 0 && *hi2-*lo > 4 {
		g := countAtLeast(keys, *lo, *hi2, guess) // the keys ≥ θ before
		for _, q := range [2]int{g - 1, g} {
			if *lo <= q && q < *hi2 {
				test(q)
			}
		}
	}
	for *lo < *hi2 {
		test(int(uint(*lo+*hi2) >> 1))
	}
}

// bitsAtLeast returns the least bit pattern g + off over the whole numbers
// g ≥ x, x in a level's unit: a key of the level is ≥ x exactly when its
// bits are ≥ it. Past every key, math.MaxUint64.
func bitsAtLeast(x float64, off uint64) uint64 {
	switch {
	case !(x > 0):
		return off
	case x >= 0x1p53:
		return math.MaxUint64
	}
	return uint64(math.Ceil(x)) + off
}

// hiEdge returns the smallest float above every key of group j of level l
// (+Inf above the top group): the bits of the group's least key plus the
// group's width in bits, which carries into the next group or level.
func hiEdge(l, j int) float64 {
	return math.Float64frombits(loBits(l, j) + 1<<max(min(l, 52)-bB, 0))
}

// scaleDown returns x·2^k for k ≤ 1023, as scale does, inlined: the sums
// of a Solve are scaled to the top level's unit, k ≤ 0, and the weights
// of the proposal table by at most 2^46.
func scaleDown(x float64, k int) float64 {
	if k >= -1022 {
		return x * math.Float64frombits(uint64(k+1023)<<52)
	}
	return scale(x, k)
}

// scaleUp returns x·2^k for k ≥ −1022, as scale does, inlined: bracket
// scales its bounds from the top level's unit to a lower level's, k ≥ 0.
func scaleUp(x float64, k int) float64 {
	if k <= 1023 {
		return x * math.Float64frombits(uint64(k+1023)<<52)
	}
	return scale(x, k)
}

// scale returns x·2^k, by a multiplication where 2^k is a normal float.
func scale(x float64, k int) float64 {
	if k >= -1022 && k <= 1023 {
		return x * math.Float64frombits(uint64(k+1023)<<52)
	}
	return math.Ldexp(x, k)
}

// headAt reports whether ε·(S + t·k) ≤ t, that is H(t) ≤ 0: every key at
// or above t is in the head. t = tm·2^te units of 2^-1074, an integer; S
// is the sum of the keys ≥ t, sSc in the top level's unit with at most
// depth roundings; k is the number of keys < t. The float answer stands
// when the two sides differ by more than their error bound; else it is
// decided exactly from the level sums: the levels above l, plus part (in
// l's unit) for level l.
func (s *Sampler) headAt(o *sol, sSc float64, tm uint64, te, k, depth int, sc *scratch, l int, part u128) bool {
	sc.tests++
	tSc := scaleDown(float64(tm), te-o.ts)
	q := o.eps * (sSc + tSc*float64(k))
	// Relative errors below slack − 1, and absolute ones, from values
	// that underflowed, far below 2^-1000 (at most 2^32 of them, each
	// below 2^-1074).
	slack := 1 + float64(depth+8)*0x1p-52
	if q*slack+0x1p-1000 < tSc {
		return true
	}
	if q > tSc*slack+0x1p-1000 {
		return false
	}
	// Exactly, in units of 2^-1074: E·(S + T·k) ≤ T·2^1074.
	S := &sc.x
	S.SetUint64(0)
	for m := o.top; m > l; m = s.nextLevel(m) {
		S.Add(S, s.ls[m-s.lo].sum.bigInt(&sc.y, &sc.w, uint(unitShift(m))))
	}
	S.Add(S, part.bigInt(&sc.y, &sc.w, uint(unitShift(l))))
	T := sc.z.SetUint64(tm)
	if te >= 0 {
		T.Lsh(T, uint(te))
	} else {
		T.Rsh(T, uint(-te)) // exact: t is a whole number of units
	}
	sc.y.SetUint64(uint64(k))
	sc.y.Mul(&sc.y, T)
	S.Add(S, &sc.y)
	unitsInt(&sc.y, o.eps)
	S.Mul(S, &sc.y)
	T.Lsh(T, 1074)
	return S.Cmp(T) <= 0
}

// solveUniform is Solve at ε = 1/n: ρ is the number of keys equal to the
// largest, found in the top group (its top sub-bucket, if it is split).
func (s *Sampler) solveUniform(o *sol) {
	lv := s.lv[o.top-s.lo]
	j := bits.Len64(lv.occ) - 1
	es := lv.ents[j]
	if sb := lv.sub[j]; sb != nil {
		// A split group's largest keys lie in its top sub-bucket.
		es = sb.ents[bits.Len64(sb.occ)-1]
	}
	top, cnt := 0.0, 0
	for _, e := range es {
		switch {
		case e.key() > top:
			top, cnt = e.key(), 1
		case e.key() == top:
			cnt++
		}
	}
	o.theta, o.rho = top, cnt
	o.s = float64(cnt) * top
	o.sSc = scale(o.s, 1074-o.ts)
}

// Solve returns ρ and λ(ρ) of Lemma 1 for the bound eps: ρ exact, decided
// as for real numbers from the float keys and ε. With all keys 0 it
// returns ρ = n and λ = 0.
func (s *Sampler) Solve(eps float64) (rho int, lambda float64, err error) {
	if err := s.validate(eps); err != nil {
		return 0, 0, err
	}
	sc := s.getScratch()
	defer s.putScratch(sc)
	o := s.solved(eps, sc)
	if o.zero {
		return o.n, 0, nil
	}
	if o.uniform {
		return o.rho, o.s * float64(o.n) / float64(o.rho), nil
	}
	return o.rho, o.s / o.c(), nil
}

// Prob returns p*_i for the bound eps.
func (s *Sampler) Prob(i int, eps float64) (float64, error) {
	n := len(s.keys)
	if n == 0 {
		return 0, reweighted.ErrEmpty
	}
	if err := check.Index(i, n); err != nil {
		return 0, err
	}
	if err := s.validate(eps); err != nil {
		return 0, err
	}
	sc := s.getScratch()
	defer s.putScratch(sc)
	return s.solved(eps, sc).prob(s.keys[i]), nil
}

// Probs appends p*_i of every item i, in index order, to dst[:0] and
// returns it, in O(n): the values Prob returns, bit for bit.
func (s *Sampler) Probs(eps float64, dst []float64) ([]float64, error) {
	if err := s.validate(eps); err != nil {
		return dst, err
	}
	sc := s.getScratch()
	defer s.putScratch(sc)
	o := s.solved(eps, sc)
	dst = dst[:0]
	for _, a := range s.keys {
		dst = append(dst, o.prob(a))
	}
	return dst, nil
}

var (
	_ reweighted.LawSampler  = (*Sampler)(nil)
	_ reweighted.BatchSetter = (*Sampler)(nil)
)
