package levels

import (
	"fmt"
	"math"
	"math/bits"
	"slices"
	"sync/atomic"
)

// kept is the solution of Lemma 1 and the proposal table for the bound ε
// that the reads last asked for, kept up to date by the writers, so that a
// Draw after a Set pays neither a Solve nor a table.
//
// A read that finds no kept solution for its ε solves as before and
// records ε and that it read (asked); a read that finds one uses it and
// records that it read. A writer that changed keys, if a read came in
// the last keepFor writes, brings the solution up to date: after one
// Set, by following it (follow), when t* stays in the same straddling
// unit, else by a Solve from where it was; then the table. Otherwise it
// only drops it, so that a run of updates without reads pays nothing
// after the first keepFor. The kept
// solution is, bit for bit, what a Solve from the top returns (Check
// compares them), so every read returns the same answer with it or
// without it.
//
// Reads only read it; writers, which run alone, write it. A read may
// store asked, which is atomic.
type kept struct {
	ok  bool
	eps float64 // compared bit for bit
	o   sol
	tab table
	// The updates followed (and their tables updated in place), and those
	// that needed a Solve: for the tests.
	followed, retabled, solved int
	// The exact sum of the keys at version totVer (if totOK), which is λ
	// at ε = 0, kept after one Set by two exact additions.
	tot    wide
	totVer uint64
	totOK  bool
	above  levelsAboveMemo // for follow
	part   partMemo        // for follow
}

// keepFor bounds the writes after a read for which the writers keep the
// solution up to date, reads or none: those until keepFor writes after
// the count a read last recorded. A read records the count of writes it
// saw only when the one recorded is that old, so that a loop of one draw
// and one update makes an atomic store (which waits for every store
// before it to leave the core, and an update's are cache misses) every
// keepFor steps, not every step. The write after a read always keeps it;
// a run of updates with no read between them pays the upkeep of at most
// keepFor of them, then nothing.
const keepFor = 16

// keptFor returns the kept solution if it is for eps, or nil, and records
// that a read asked for eps.
func (s *Sampler) keptFor(eps float64) *kept {
	w := math.Float64bits(eps) + 1 // 0: no read yet
	if s.asked.eps.Load() != w {
		s.asked.eps.Store(w)
	}
	if v, old := s.ver+1, s.asked.ver.Load(); old == 0 || old+keepFor <= v {
		s.asked.ver.Store(v)
	}
	if k := &s.kept; k.ok && math.Float64bits(k.eps)+1 == w {
		return k
	}
	return nil
}

// solution returns the solution for a valid eps and its proposal table:
// the kept ones, or those sc holds from an earlier read of the same keys
// at eps, or new ones made with sc.
func (s *Sampler) solution(eps float64, sc *scratch) (*sol, *table) {
	if k := s.keptFor(eps); k != nil && !k.tab.rowsOld {
		return &k.o, &k.tab
	}
	return s.held(eps, sc)
}

// held returns the solution for a valid eps and its table that sc holds
// from an earlier read of the same keys at eps, or new ones made with sc.
func (s *Sampler) held(eps float64, sc *scratch) (*sol, *table) {
	if !sc.holds(s, eps, true) {
		sc.o = s.solve(eps, sc)
		s.build(&sc.o, &sc.tab)
		sc.memo = memo{id: s.id, ver: s.ver, eps: math.Float64bits(eps), tab: true}
	}
	return &sc.o, &sc.tab
}

// solved returns the solution for a valid eps: the kept one, or the one
// sc holds from an earlier read of the same keys at eps, or one made with
// sc.
func (s *Sampler) solved(eps float64, sc *scratch) *sol {
	if k := s.keptFor(eps); k != nil {
		return &k.o
	}
	if !sc.holds(s, eps, false) {
		sc.o = s.solve(eps, sc)
		sc.memo = memo{id: s.id, ver: s.ver, eps: math.Float64bits(eps)}
	}
	return &sc.o
}

// memo names what a scratch holds: the solution (sc.o), and with tab its
// table (sc.tab), of the sampler numbered id at version ver (its count of
// writes) and the bound of bits eps. A sampler's own scratch serves its
// next read, so that draws with no update between them, one at a time,
// pay one Solve, not one each; a scratch from the pool may hold another
// sampler's. A number, not a pointer, so that a pooled scratch does not
// keep a sampler alive.
type memo struct {
	id  uint64
	ver uint64
	eps uint64
	tab bool
}

// samplers numbers the samplers made, from 1 (0 names none).
var samplers atomic.Uint64

// holds reports whether sc holds the solution of s at eps, and its table
// if tab.
func (sc *scratch) holds(s *Sampler, eps float64, tab bool) bool {
	m := &sc.memo
	return m.id == s.id && m.ver == s.ver && m.eps == math.Float64bits(eps) && (m.tab || !tab)
}

// keep brings the kept solution up to date after a write that changed
// keys, with the writer's scratch sc if it holds one (nil: its own); one is
// the change of a single key (Set) from old to a, which it tries to follow.
func (s *Sampler) keep(one bool, old, a float64, sc *scratch) {
	k := &s.kept
	if v := s.asked.ver.Load(); v == 0 || v+keepFor <= s.ver {
		// No read in the last keepFor writes (each counts one before it
		// comes here).
		k.ok = false
		return
	}
	w := s.asked.eps.Load()
	if one && w == 1 && k.ok && math.Float64bits(k.eps) == 0 && k.tab.iz.ok && k.o.n == len(s.keys) && s.keepZero(old, a) {
		return
	}
	eps := math.Float64frombits(w - 1)
	// A bound kept for these n items is valid (the bound for which a read
	// asked may not be).
	same := k.ok && math.Float64bits(k.eps) == w-1 && k.o.n == len(s.keys)
	if w == 0 || !same && s.validate(eps) != nil {
		k.ok = false
		return
	}
	if sc == nil {
		// The sampler's own scratch, left in its slot: no read runs
		// beside a writer to take it, and taking it and giving it back
		// would be two atomic stores.
		if sc = s.spareSc.Load(); sc == nil {
			sc = s.getScratch()
			defer s.putScratch(sc)
		}
	}
	// The writer runs alone: after one Set, a unit it sorts may take the
	// slot of a published one. Not after a batch, whose next batch would
	// edit the units kept for a cutoff that, a batch at a time, has moved
	// on (1 to 2% more instructions a batch step).
	sc.writer = one
	s.upkeep(one && same, old, a, eps, sc)
	sc.writer = false
}

// keepZero is keep after one Set from old to a of a solution and table
// kept for ε = 0 (+0, asked for last) whose integer proposal is ok, when
// the proposal stays ok without being formed again and the exact sum
// kept is one Set old: what upkeep does then (followZero and keepInt), in
// a straight line. It reports false, having changed nothing, in every
// other case, which upkeep serves: every key 0, before or after; the
// proposal's lowest level emptied, or one below it or too far above it
// joined.
func (s *Sampler) keepZero(old, a float64) bool {
	k := &s.kept
	if k.o.zero || len(s.zeros) == len(s.keys) || !k.totOK || k.totVer+1 != s.ver {
		return false
	}
	var w uint64
	iz := &k.tab.iz
	b0, b1 := math.Float64bits(old), math.Float64bits(a)
	if e0, e1 := int(b0>>52), int(b1>>52); e0 > 0 && e1 > 0 && iz.ok {
		// Two normal keys, the common case, with no call: their levels
		// and groups as locate finds them, the new total as intMove
		// forms it, and intMove's tests (ln < base makes ln − base past
		// intShift as a uint).
		base, lo, ln := int(iz.base), e0+51, e1+51
		if uint(ln-base) > intShift || lo == base && s.ls[base-s.lo].n == 0 {
			return false
		}
		w = iz.w - uint64(nG+1+b0>>(52-bB)&(nG-1))<<((lo-base)&63) + uint64(nG+1+b1>>(52-bB)&(nG-1))<<((ln-base)&63)
	} else {
		lo, ln, jo, jn := -1, -1, 0, 0
		if old > 0 {
			lo, jo = locate(old)
		}
		if a > 0 {
			ln, jn = locate(a)
		}
		var ok bool
		if w, ok = s.intMove(iz, lo, jo, ln, jn); !ok {
			return false
		}
	}
	if w >= intLimit {
		return false
	}
	// The memos of follow (for ε > 0) are not carried over at ε = 0:
	// dropped, as upkeep's ageing drops them a Set later.
	k.above.ok, k.part.ok = false, false
	k.tab.iz.w, k.tab.rowsOld = w, true
	k.tot.swap(old, a)
	s.zeroSum(&k.o)
	k.followed++
	k.retabled++
	return true
}

// upkeep is keep's work for a valid eps with the writer's scratch sc:
// after one Set from old to a (one) of a solution kept for eps, it follows
// it; otherwise it solves.
func (s *Sampler) upkeep(one bool, old, a, eps float64, sc *scratch) {
	k := &s.kept
	if one {
		s.ageAbove(old, a)
		s.agePart(old, a)
	}
	if one && s.belowStraddle(&k.o, &k.tab, old, a) {
		k.followed++
		k.retabled++
		return
	}
	var aimed hint
	// The table's straddling unit: followNear changes k.o even when it
	// fails.
	pl, pj, pk := k.o.lvl, k.o.grp, k.o.sub
	// followZero serves ε = 0 only: not called at all otherwise.
	if one && (k.o.eps == 0 && s.followZero(&k.o, old, a) || s.followNear(&k.o, sc, old, a, &aimed)) {
		k.followed++
		if k.tab.iz.ok && s.keepInt(&k.o, &k.tab, old, a) || !k.tab.rowsOld && s.retable(&k.o, &k.tab, old, a, pl, pj) {
			k.retabled++
			return
		}
	} else {
		switch {
		case aimed.ok:
			// Where the estimate of the new t* lies.
			sc.hint = aimed
		case k.ok && pl >= 0:
			// t* left the kept unit, but not far, as a rule: start there.
			sc.hint = hint{l: int32(pl), j: int32(pj), k: int32(pk), ok: true}
		}
		k.ok = false
		k.o, k.eps = s.solve(eps, sc), eps
		k.solved++
	}
	if k.tab.rows == nil {
		// Room for the rows of 64 levels: the table grows past them only
		// when the keys reach more, and then keeps its capacity.
		k.tab.rows = make([]row, 0, 64)
		k.tab.heads = make([]int32, 0, 64)
	}
	s.build(&k.o, &k.tab)
	k.ok = true
}

// belowStraddle reports whether one key that changed from old to a lay
// below the straddling group of o, the solution before, and lies there
// still, and if so brings the table t up to date. Then o is the solution
// after, bit for bit: every key at or above the group's lower edge L is
// as it was, and H(x) = ε·Σ max(x, a_i) − x with them for every x ≥ L,
// so every test a Solve makes at L or above decides as before (the
// level's own lower edge, at or below L, fails as H(L) > 0 did), and every
// sum it forms is of the same keys. Of the table only what the groups of
// the straddling level below its group weigh can change: their count of
// tail items and their bound weight, where the partial row starts.
func (s *Sampler) belowStraddle(o *sol, t *table, old, a float64) bool {
	if o.eps == 0 || o.uniform || o.zero || o.lvl < 0 || o.grp < 0 || len(t.rows) == 0 {
		return false
	}
	l := o.lvl
	lb := loBits(l, o.grp)
	if math.Float64bits(old) >= lb || math.Float64bits(a) >= lb {
		return false
	}
	// Zero keys lie in no level; a key of level l lies at or above its
	// lower edge, 2^(l−1074) (bits of the float 2^(l−1074) compare as the
	// keys do).
	if lb0 := loBits(l, 0); math.Float64bits(old) >= lb0 || math.Float64bits(a) >= lb0 {
		lv := s.lv[l-s.lo]
		t.lvTail = int(prefixCount(&lv.bc, &lv.cnt, o.grp))
		t.partLo = lv.prefixBound(l, o.grp+1)
	}
	return true
}

// followZero updates o, the solution at ε = 0 before one key changed, to
// the solution after one key changed from old to a, and reports whether it
// could (not once every key is 0): every key is in the head, and λ is the
// sum of all keys, rounded once from their exact sum, as a Solve at ε = 0
// forms it; the exact sum kept changes by two exact additions.
func (s *Sampler) followZero(o *sol, old, a float64) bool {
	if o.eps != 0 || o.zero || len(s.zeros) == len(s.keys) {
		return false
	}
	k := &s.kept
	if k.totOK && k.totVer+1 == s.ver {
		k.tot.swap(old, a)
	} else {
		k.tot = s.wideSum()
	}
	s.zeroSum(o)
	return true
}

// zeroSum sets λ of o, a solution at ε = 0, from the exact sum of the keys
// kept, now that of the keys as they are: rounded once in the unit of the
// top level.
func (s *Sampler) zeroSum(o *sol) {
	k := &s.kept
	k.totOK, k.totVer = true, s.ver
	top := s.topLevel()
	ts := unitShift(top)
	o.top, o.ts = top, ts
	o.sSc = k.tot.float(ts, sumBits(top, o.n))
	o.s = scaleDown(o.sSc, ts-1074)
}

// follow updates o, the solution before one key changed, to the solution
// after, and reports whether it could: when t* is still straddled by o's
// unit (or, as followNear asks, by the unit o names). If not, dir is 1
// when t* lies above the unit, −1 when below, 0 when unknown, and o names
// the same unit but its head (h, θ) and top level may have changed: the
// caller's copy, not a solution kept, which in place saves two copies. It forms the sums above the unit as a Solve forms them and finds
// the head in the unit as a Solve does (bracket). A key of the unit that
// passes the predicate and one that fails decide the level, group and
// sub-bucket a Solve finds as well (every edge above the first lies above
// it, every edge below the second below it); with no key of the unit in
// the head, its upper edge must pass, and with all of them, its lower
// edge fail. So the answer is a Solve's, bit for bit, without the walk
// from the top and the searches.
func (s *Sampler) follow(o *sol, sc *scratch, la *levelsAboveMemo) (ok bool, dir int) {
	n := len(s.keys)
	l, j, k := o.lvl, o.grp, o.sub
	if o.zero || o.uniform || o.eps == 0 || l < 0 || j < 0 || len(s.zeros) == n {
		return false, 0
	}
	if s.occ[l>>6]>>(l&63)&1 == 0 {
		return false, 0
	}
	lv := s.lv[l-s.lo]
	sb := lv.sub[j]
	if (sb != nil) != (k >= 0) {
		return false, 0 // the group split or merged
	}
	o.top = s.topLevel()
	o.ts = unitShift(o.top)
	// The levels above, summed as Solve's walk sums them, then the
	// groups and sub-buckets above the unit, exactly.
	if !la.ok || la.l != l || la.ver != s.ver || la.top != o.top {
		s.memoAbove(la, o, l)
	}
	above, sAbove, depth := la.above, la.sAbove, la.depth
	pm := &s.kept.part
	if pm.ok && pm.ver == s.ver && pm.l == l && pm.j != j && pm.k < 0 && sb == nil {
		pm.shift(lv, j)
	}
	if !pm.ok || pm.ver != s.ver || pm.l != l || pm.j != j || pm.k != k {
		part, pc := sumAbove(lv.occ, &lv.bc, &lv.bs, &lv.cnt, &lv.gsum, j)
		inSub := 0
		if sb != nil {
			ps, qc := sumAbove(sb.occ, &sb.bc, &sb.bs, &sb.cnt, &sb.sum, k)
			part, pc, inSub = part.plus(ps), pc+qc, qc
		}
		*pm = partMemo{part: part, pc: pc, inSub: inSub, l: l, j: j, k: k, ver: s.ver, ok: true}
	}
	part, inSub := pm.part, pm.inSub
	above += pm.pc
	// The unit: its keys, count and sum, and its lower edge tm·2^te units.
	var (
		ents   []entry
		sum    u128
		tm     = uint64(nG + j)
		te     = l - bB
		unitHi = hiEdge(l, j)
	)
	if sb == nil {
		ents, sum = lv.ents[j], lv.gsum[j]
	} else {
		ents, sum = sb.ents[k], sb.sum[k]
		tm, te = uint64(nG*nG+nG*j)+uint64(k), l-2*bB
		unitHi = scale(float64(tm+1), l-2*bB-1074)
	}
	c := len(ents)
	if c == 0 {
		return false, 0
	}
	f := unitShift(l) - o.ts
	// The unit's keys in the head before the update, the keys of the
	// sub-buckets above it aside: within one or two of those after.
	in := s.bracket(o, sc, ents, sum, tm, te, unitHi, l, j, k, part, sAbove, above, depth, math.Float64bits(o.theta), o.h-inSub)
	switch o.h {
	case 0:
		// No key of the unit in the head: t* lies above them all. A Solve
		// finds this unit if the lower edge of the next occupied one above
		// (sub-bucket, group or level) passes; the keys at or above it are
		// those above this unit.
		if hm, he, ok := s.edgeAbove(lv, sb, l, j, k); ok && !s.headAt(o, sAbove+scaleDown(part.float(), f), hm, he, n-above, depth+3, sc, l, part) {
			return false, 1 // t* lies in a unit above
		}
	case c:
		// Every key of the unit in the head: a Solve finds this unit only
		// if its lower edge fails.
		all := part.plus(sum)
		if s.headAt(o, sAbove+scaleDown(all.float(), f), tm, te, n-above-c, depth+3, sc, l, all) {
			return false, -1 // t* lies in a unit below
		}
	}
	above -= inSub
	o.h += inSub
	o.rho = above + o.h
	o.sSc = sAbove + scaleDown(in.float(), f)
	o.s = scaleDown(o.sSc, o.ts-1074)
	return true, 0
}

// followNear is follow, and when t* left o's unit, follow from the next
// occupied units in its direction, two at most: on keys spread over many
// groups (lognormal keys at 2^10 put one or two in a group) t* leaves its
// unit after about every other update, mostly for a neighbour, where a
// Solve from there and a new table cost some 3,000 instructions. It starts
// from the unit where an estimate of the new t* lies (aim), when that is
// not o's, and sets *aimed to it, for a Solve to start from when these
// fail. follow's checks decide whether a unit is the one a Solve finds,
// whichever unit it is given, so the answer is a Solve's, bit for bit.
// It works on o in place: when it fails, o names the last unit it tried
// and is no solution, and the caller solves.
func (s *Sampler) followNear(o *sol, sc *scratch, old, a float64, aimed *hint) bool {
	if l, j, k, t := s.aim(o, old, a); l >= 0 {
		o.lvl, o.grp, o.sub, o.h, o.theta = l, j, k, 0, t
		*aimed = hint{l: int32(l), j: int32(j), k: int32(k), ok: true}
	}
	la := &s.kept.above
	for range 2 {
		ok, dir := s.follow(o, sc, la)
		if ok {
			sc.hop = false
			return true
		}
		if dir == 0 || !s.neighbour(o, dir) {
			sc.hop = false
			return false
		}
		sc.hop = true
	}
	sc.hop = false
	return false
}

// aim returns the unit (level l, group j, sub-bucket k) a Solve finds
// when t* lies where aim estimates it, o the solution before one key
// changed from old to a, and that estimate t: at εS'/(1 − ε(n − ρ')), S'
// and ρ' the sum and count of the head with old out of it if it was in
// and a in it if it lies at or above the old t*, the head otherwise
// unchanged. Only the keys between the old and the new t*, which
// ε = 1/(2n) makes few, change sides, so t lies near the new t* (on
// lognormal keys at 2^10, two or more units away from the old one in
// more than a third of the updates). l is −1 when that unit is o's, or
// no straddling unit follow can take (the level's groups, or the group's
// sub-buckets, lie wholly above t). A guess: follow decides.
func (s *Sampler) aim(o *sol, old, a float64) (l, j, k int, t float64) {
	if o.uniform || o.eps == 0 || o.lvl < 0 || o.grp < 0 {
		return -1, 0, 0, 0
	}
	c := math.FMA(-float64(o.n-o.rho), o.eps, 1)
	sum, rho := o.s, o.rho
	if old > 0 && old >= o.theta {
		sum, rho = sum-old, rho-1
	}
	if a > 0 && a*c >= o.eps*o.s { // a ≥ t*, t* = εs/c
		sum, rho = sum+a, rho+1
	}
	if rho != o.rho {
		c = math.FMA(-float64(o.n-rho), o.eps, 1)
	}
	t = o.eps * (sum / c)
	tb := math.Float64bits(t)
	switch lb := loBits(o.lvl, o.grp); {
	case o.sub < 0 && tb >= lb && tb < loBits(o.lvl, o.grp+1):
		return -1, 0, 0, 0 // in o's unit, a flat group
	case o.sub >= 0 && o.lvl >= 52 && tb-(lb+uint64(o.sub)<<(52-2*bB)) < 1<<(52-2*bB):
		// In o's unit, a sub-bucket of a normal level: the next six bits
		// of the significand name it (subOf).
		return -1, 0, 0, 0
	}
	if !(t > 0 && t <= math.MaxFloat64) {
		return -1, 0, 0, 0
	}
	l, j = locate(t)
	if l > o.top {
		return -1, 0, 0, 0
	}
	if s.occ[l>>6]>>(l&63)&1 == 0 {
		// t lies above every key of the next occupied level below.
		if l = s.nextLevel(l); l < 0 {
			return -1, 0, 0, 0
		}
		j = nG - 1
	}
	lv := s.lv[l-s.lo]
	down := lv.occ & (^uint64(0) >> (63 - j))
	if down == 0 {
		return -1, 0, 0, 0
	}
	g := bits.Len64(down) - 1
	k = -1
	if sb := lv.sub[g]; sb != nil {
		q := nG - 1
		if g == j {
			q = subOf(t, l)
		}
		d := sb.occ & (^uint64(0) >> (63 - q))
		if d == 0 {
			return -1, 0, 0, 0
		}
		k = bits.Len64(d) - 1
	}
	if l == o.lvl && g == o.grp && k == o.sub {
		return -1, 0, 0, 0
	}
	return l, g, k, t
}

// levelsAboveMemo is what levelsAbove returns for level l and the top
// level top at version ver: the keys of the levels above l. With nv > 0
// it also holds those levels from the top down (m) and each one's sum in
// the top level's unit as levelsAbove converts it (v), so that a Set that
// changes the sums of one or two of them converts those two again and
// adds the nv terms, as levelsAbove adds them (ageAbove); nv = 0 when
// they are more than memoLevels.
type levelsAboveMemo struct {
	above, depth, l, top int
	sAbove               float64
	ver                  uint64
	ok                   bool
	nv                   int
	m                    [memoLevels]int16
	v                    [memoLevels]float64
}

// memoLevels bounds the levels above t*'s that levelsAboveMemo lists.
const memoLevels = 48

// memoAbove fills la with the levels above l, for o's top level: the sums
// of levelsAbove, formed as it forms them.
func (s *Sampler) memoAbove(la *levelsAboveMemo, o *sol, l int) {
	*la = levelsAboveMemo{l: l, top: o.top, ver: s.ver, ok: true}
	for m := o.top; m > l; m = s.nextLevel(m) {
		if la.nv == memoLevels {
			la.above, la.sAbove, la.depth, _ = s.levelsAbove(o, l)
			la.nv = 0
			return
		}
		st := &s.ls[m-s.lo]
		v := scaleDown(st.sum.float(), unitShift(m)-o.ts)
		la.above += int(st.n)
		la.sAbove += v
		la.depth += 3
		la.m[la.nv], la.v[la.nv] = int16(m), v
		la.nv++
	}
}

// partMemo is the exact sum and the count of the keys of level l in the
// groups above j and, j split, in its sub-buckets above k (inSub of
// them), as follow forms them, at version ver.
type partMemo struct {
	part      u128
	pc, inSub int
	l, j, k   int
	ver       uint64
	ok        bool
}

// shift moves pm, the part above a flat group of level lv, to the flat
// group j of the same level: it adds the groups between them (t* moved
// down) or takes them away (up), exactly, so the sum is the one sumAbove
// forms. Only when at most four groups lie between: else it leaves pm as
// it was, for sumAbove.
func (pm *partMemo) shift(lv *level, j int) {
	lo, hi := min(j, pm.j), max(j, pm.j)
	between := lv.occ &^ (1<<(lo+1) - 1) & (1<<(hi+1) - 1) // the groups in (lo, hi]
	if bits.OnesCount64(between) > 4 {
		return
	}
	for x := between; x != 0; x &= x - 1 {
		g := bits.TrailingZeros64(x)
		if j < pm.j {
			pm.part, pm.pc = pm.part.plus(lv.gsum[g]), pm.pc+int(lv.cnt[g])
		} else {
			pm.part, pm.pc = pm.part.minus(lv.gsum[g]), pm.pc-int(lv.cnt[g])
		}
	}
	pm.j = j
}

// agePart carries the memo of the part above the unit over one Set from
// old to a: the sum is exact, so a key that left it or joined it changes
// it by its significand, and the result is the sum formed afresh.
func (s *Sampler) agePart(old, a float64) {
	pm := &s.kept.part
	if !pm.ok || pm.ver+1 != s.ver {
		pm.ok = false
		return
	}
	if i := pm.l - s.lo; i < 0 || i >= len(s.lv) || s.lv[i] == nil || s.lv[i].sub[pm.j] != nil != (pm.k >= 0) {
		pm.ok = false // the level went, or the group split or merged
		return
	}
	for q, x := range [2]float64{old, a} {
		if x <= 0 {
			continue
		}
		l, j := locate(x)
		if l != pm.l || j < pm.j {
			continue
		}
		in := j > pm.j
		if j == pm.j && pm.k >= 0 && subOf(x, l) > pm.k {
			in = true
			if q == 0 {
				pm.inSub--
			} else {
				pm.inSub++
			}
		}
		if !in {
			continue
		}
		if q == 0 {
			pm.part = pm.part.minus(u128{lo: sig64(x)})
			pm.pc--
		} else {
			pm.part = pm.part.plus(u128{lo: sig64(x)})
			pm.pc++
		}
	}
	pm.ver = s.ver
}

// ageAbove carries the memo of the levels above over one Set from old to
// a: as it was if neither key lies above its level; else, with its levels
// listed and still the occupied ones, the sums of the levels of old and a
// converted again, and sAbove added up again.
func (s *Sampler) ageAbove(old, a float64) {
	la := &s.kept.above
	if !la.ok || la.ver+1 != s.ver {
		la.ok = false
		return
	}
	done := -1 // the index of the level converted
	for q, x := range [2]float64{old, a} {
		if x <= 0 {
			continue
		}
		m, _ := locate(x)
		if m <= la.l {
			continue
		}
		// The levels run top down, so level m is at most the (top − m)th:
		// search from there.
		i := min(la.top-m, la.nv-1)
		for i > 0 && int(la.m[i]) < m {
			i--
		}
		if i < 0 || int(la.m[i]) != m || s.ls[m-s.lo].n == 0 {
			la.ok = false // not listed, a level filled or emptied
			return
		}
		if i != done { // old and a in one level: converted once
			la.v[i] = scaleDown(s.ls[m-s.lo].sum.float(), unitShift(m)-unitShift(la.top))
			done = i
		}
		if q == 0 {
			la.above--
		} else {
			la.above++
		}
	}
	if done >= 0 {
		acc := 0.0
		for _, v := range la.v[:la.nv] {
			acc += v
		}
		la.sAbove = acc
	}
	la.ver = s.ver
}

// neighbour moves o's unit (level, group, sub-bucket) to the next occupied
// one above (dir 1) or below (−1), and its guess of the head in it to all
// of it or none, as t* comes into it from below or from above; false if
// there is none.
func (s *Sampler) neighbour(o *sol, dir int) bool {
	l, j, k := o.lvl, o.grp, o.sub
	lv := s.lv[l-s.lo]
	// edge returns the sub-bucket of group j of lv at the edge t* comes
	// in by, −1 if the group is flat.
	edge := func(lv *level, j int) int {
		sb := lv.sub[j]
		switch {
		case sb == nil:
			return -1
		case dir > 0:
			return bits.TrailingZeros64(sb.occ)
		default:
			return bits.Len64(sb.occ) - 1
		}
	}
	if dir > 0 {
		o.h = o.n
		if sb := lv.sub[j]; k >= 0 && sb != nil {
			if up := sb.occ &^ (1<<(k+1) - 1); up != 0 {
				o.sub = bits.TrailingZeros64(up)
				return true
			}
		}
		if up := lv.occ &^ (1<<(j+1) - 1); up != 0 {
			o.grp = bits.TrailingZeros64(up)
			o.sub = edge(lv, o.grp)
			return true
		}
		_, m, ok := s.edgeAbove(lv, nil, l, nG-1, -1)
		if !ok {
			return false
		}
		lv = s.lv[m-s.lo]
		o.lvl, o.grp = m, bits.TrailingZeros64(lv.occ)
		o.sub = edge(lv, o.grp)
		return true
	}
	o.h = 0
	if sb := lv.sub[j]; k >= 0 && sb != nil {
		if down := sb.occ & (1<<k - 1); down != 0 {
			o.sub = bits.Len64(down) - 1
			return true
		}
	}
	if down := lv.occ & (1<<j - 1); down != 0 {
		o.grp = bits.Len64(down) - 1
		o.sub = edge(lv, o.grp)
		return true
	}
	m := s.nextLevel(l)
	if m < 0 {
		return false
	}
	lv = s.lv[m-s.lo]
	o.lvl, o.grp = m, bits.Len64(lv.occ)-1
	o.sub = edge(lv, o.grp)
	return true
}

// edgeAbove returns the lower edge, hm·2^he units, of the next occupied
// sub-bucket, group or level above sub-bucket k of group j of level l (lv;
// k < 0 or sb nil: the flat group), as Solve tests them; false if there is
// none.
func (s *Sampler) edgeAbove(lv *level, sb *sub, l, j, k int) (uint64, int, bool) {
	if sb != nil {
		if up := sb.occ &^ (1<<(k+1) - 1); up != 0 {
			return uint64(nG*nG+nG*j) + uint64(bits.TrailingZeros64(up)), l - 2*bB, true
		}
	}
	if up := lv.occ &^ (1<<(j+1) - 1); up != 0 {
		return uint64(nG + bits.TrailingZeros64(up)), l - bB, true
	}
	// The lowest occupied level above l: in l's word, then the words above.
	w := (l + 1) >> 6
	if l+1 < nLevels {
		if x := s.occ[w] &^ (1<<((l+1)&63) - 1); x != 0 {
			return 1, w*64 + bits.TrailingZeros64(x), true
		}
	}
	if ws := s.occW &^ (1<<(w+1) - 1); ws != 0 {
		w = bits.TrailingZeros64(ws)
		return 1, w*64 + bits.TrailingZeros64(s.occ[w]), true
	}
	return 0, 0, false
}

// retable brings t, the table of the kept solution before one key
// changed from old to a, up to date for o, the solution after, which
// follow found (t* in the same unit), and reports whether it could: when
// the top level and the levels wholly in the head are the same, and so
// are the rows of the tail and of the straddling level that have weight.
// Those rows and the rows of the levels of old and a are formed as build
// forms them, the others are unchanged, and the sums are formed afresh:
// the table is build's, bit for bit (Check compares them). The table was
// built for the straddling group pj of level pl: the counts and bounds
// below it are kept when the group is the same and neither key lies in
// its level at or below it.
func (s *Sampler) retable(o *sol, t *table, old, a float64, pl, pj int) bool {
	if len(t.rows) == 0 || t.ts != o.ts && !(o.lvl < 0 && t.rescale(o.ts)) {
		return false
	}
	// The rows before q0 keep their weights and cumulative sums.
	q0 := len(t.rows)
	lo, ln, jo, jn := -1, -1, 0, 0
	if old > 0 {
		lo, jo = locate(old)
	}
	if a > 0 {
		ln, jn = locate(a)
	}
	emptied := lo > o.lvl && s.ls[lo-s.lo].n == 0
	filled := ln > o.lvl && s.ls[ln-s.lo].n == 1 && lo != ln
	l := o.lvl
	if l < 0 {
		// ε = 0: a row for each level, and none in front; none either for
		// a level whose weight, scaled to the top's unit, is 0. A level
		// that emptied loses its row, one that filled gains one, as build
		// would leave them out or put them in.
		if t.front != 0 || len(t.rows) != len(t.heads) {
			return false
		}
		if emptied {
			k := slices.Index(t.heads, int32(lo))
			if k < 0 {
				return false
			}
			q := len(t.heads) - 1 - k
			t.heads = slices.Delete(t.heads, k, k+1)
			t.rows = slices.Delete(t.rows, q, q+1)
			q0 = min(q0, q)
		}
		if filled {
			w := scaleDown(float64(s.ls[ln-s.lo].wb), ln-bB-o.ts)
			if w == 0 {
				return false // build would leave its row out: build
			}
			k := 0
			for k < len(t.heads) && int(t.heads[k]) > ln {
				k++
			}
			t.heads = slices.Insert(t.heads, k, int32(ln))
			q := len(t.heads) - 1 - k
			t.rows = slices.Insert(t.rows, q, row{w: w, l: int32(ln), kind: rowLevel})
			q0 = min(q0, q)
		}
		if len(t.rows) == 0 {
			return false
		}
		s.reInt(&t.iz, o.top, lo, jo, ln, jn)
	} else if emptied || filled {
		return false // a level of the head emptied or filled
	}
	if o.top > o.lvl && (len(t.heads) == 0 || int(t.heads[0]) != o.top) {
		return false
	}
	var (
		tstar, strB   float64
		partLo        uint64
		nTail, lvTail int
	)
	if l >= 0 {
		lv := s.lv[l-s.lo]
		tstar = o.eps * (o.sSc / o.c())
		c := int(lv.cnt[o.grp])
		strB = max(tstar, scaleDown(float64(bnd(l, o.grp)), l-bB-o.ts))
		if l == pl && o.grp == pj && !(lo == l && jo <= pj) && !(ln == l && jn <= pj) {
			partLo, lvTail = t.partLo, t.lvTail
		} else {
			partLo = lv.prefixBound(l, o.grp+1)
			lvTail = int(prefixCount(&lv.bc, &lv.cnt, o.grp))
		}
		nTail = o.n - o.rho - (c - o.h)
		// The front rows, those of weight > 0 in this order, must be the
		// table's; rewritten in place (build forms the table again when
		// they are not).
		rows := t.rows[:t.front]
		wt, ws, wp := float64(nTail)*tstar, float64(c)*strB, scaleDown(float64(s.ls[l-s.lo].wb-partLo), l-bB-o.ts)
		if len(rows) == 3 && wt > 0 && ws > 0 && wp > 0 {
			// The three, as a rule.
			if rows[0].kind != rowTail || rows[1].kind != rowStraddle || int(rows[1].l) != l || rows[2].kind != rowPartial || int(rows[2].l) != l {
				return false
			}
			rows[0].w, rows[1].w, rows[2].w = wt, ws, wp
		} else {
			q := 0
			for k, kind := range [3]uint8{rowTail, rowStraddle, rowPartial} {
				if w := [3]float64{wt, ws, wp}[k]; w > 0 {
					if q == len(rows) || rows[q].kind != kind || kind != rowTail && int(rows[q].l) != l {
						return false
					}
					rows[q].w = w
					q++
				}
			}
			if q != len(rows) {
				return false
			}
		}
	}
	if l >= 0 {
		q0 = 0
	}
	for q, m := range [2]int{lo, ln} {
		if m > l && (q == 0 || m != lo) { // one level's row once
			// The heads run top down, so level m's row is the
			// (top − m)th from the top at most: search from there.
			for k := min(o.top-m, len(t.heads)-1); k >= 0; k-- {
				if int(t.heads[k]) == m {
					w := scaleDown(float64(s.ls[m-s.lo].wb), m-bB-o.ts)
					if w == 0 {
						return false // build would leave its row out: build
					}
					q := t.front + len(t.heads) - 1 - k
					t.rows[q].w = w
					q0 = min(q0, q)
					break
				}
			}
		}
	}
	w := 0.0
	if q0 > 0 {
		w = t.rows[q0-1].cum
	}
	for k, rows := 0, t.rows[q0:]; k < len(rows); k++ {
		w += rows[k].w
		rows[k].cum = w
	}
	t.total, t.tstar, t.strB, t.partLo, t.nTail = w, tstar, strB, partLo, nTail
	t.lvTail = lvTail
	if l >= 0 {
		// The straddling group may be another of the same level (t*
		// followed into a neighbour): its lower edge bounds the direct
		// tail draws, as build sets it.
		t.direct, t.tailBits = nTail > 0 && 2*nTail >= o.n, 0
		if t.direct {
			t.tailBits = loBits(l, o.grp)
		}
	}
	return true
}

// keepInt brings the integer proposal of t, the table of the kept
// solution at ε = 0 before one key changed from old to a, up to date for
// o, the solution after, and reports whether it could: when it stays ok.
// The rows are left as they were (rowsOld), for Draw reads only iz; a
// table whose proposal leaves ok is built again.
func (s *Sampler) keepInt(o *sol, t *table, old, a float64) bool {
	if o.eps != 0 {
		return false
	}
	lo, ln, jo, jn := -1, -1, 0, 0
	if old > 0 {
		lo, jo = locate(old)
	}
	if a > 0 {
		ln, jn = locate(a)
	}
	if s.reInt(&t.iz, o.top, lo, jo, ln, jn); !t.iz.ok {
		return false // then built again, as intProp makes it
	}
	t.rowsOld = true
	return true
}

// reInt brings the integer proposal iz at ε = 0 up to date after one key
// moved from group jo of level lo to group jn of level ln (a level −1 for
// a zero key), as intProp forms it: each level's bound weight changed by
// its group's bound, so the total by two exact additions while the lowest
// level stays; else formed again.
func (s *Sampler) reInt(iz *intProp, top, lo, jo, ln, jn int) {
	switch w, ok := s.intMove(iz, lo, jo, ln, jn); {
	case !ok:
		*iz = s.intProp(top)
	case w >= intLimit:
		*iz = intProp{}
	default:
		iz.w = w
	}
}

// intMove returns the total weight of the integer proposal iz at ε = 0
// after one key moved from group jo of level lo to group jn of level ln
// (a level −1 for a zero key), by two exact additions, and whether they
// give it: not when iz is not ok, or its lowest level emptied, or a level
// below it or more than intShift above it joined, which intProp serves.
// The total may reach intLimit, where no proposal serves.
func (s *Sampler) intMove(iz *intProp, lo, jo, ln, jn int) (uint64, bool) {
	base, w := int(iz.base), iz.w
	// ln < base makes ln − base past intShift as a uint.
	if !iz.ok || ln >= 0 && uint(ln-base) > intShift || lo == base && s.ls[base-s.lo].n == 0 {
		return 0, false
	}
	if lo >= 0 {
		w -= bnd(lo, jo) << ((lo - base) & 63) // its term lay in w, below 2^62
	}
	if ln >= 0 {
		// w < 2^62 and a bound below 2^8 shifted by at most 54: no overflow.
		w += bnd(ln, jn) << ((ln - base) & 63)
	}
	return w, true
}

// rescale puts the weights of t, an ε = 0 table, in the unit 2^ts of a
// new top level, and reports whether it could: when every weight and
// cumulative weight is a normal float before and after, so that a power
// of two scales them exactly, the sums included (a rounding does not
// depend on the scale but through underflow); such are the weights build
// forms in the new unit. At ε = 0 the largest keys are drawn the most and
// so set the most: on lognormal keys at 2^10 the top level changed in
// half of the single steps.
func (t *table) rescale(ts int) bool {
	d := t.ts - ts
	if d < -1000 || d > 1000 || len(t.rows) == 0 {
		return false
	}
	f := scale(1, d)
	lo := t.rows[0].w
	for k := range t.rows {
		lo = min(lo, t.rows[k].w)
	}
	if lo < 0x1p-1022 || lo*f < 0x1p-1022 || t.total*f > 0x1p1000 {
		return false
	}
	for k := range t.rows {
		t.rows[k].w *= f
		t.rows[k].cum *= f
	}
	t.total *= f
	t.ts = ts
	return true
}

// sumAbove returns the exact sum and the count of the groups (or
// sub-buckets) above j, from the bitmap occ, the block counts bc and sums
// bs and the counts cnt and sums sums: the blocks above j's, then the
// groups above j in its block.
func sumAbove(occ uint64, bc *[nBlk]uint32, bs *[nBlk]u128, cnt *[nG]int32, sums *[nG]u128, j int) (u128, int) {
	var S u128
	C := 0
	b := j / 8
	for q := nBlk - 1; q > b; q-- {
		S = S.plus(bs[q])
		C += int(bc[q])
	}
	for x := occ >> (8 * b) & 0xff &^ (1<<(j%8+1) - 1); x != 0; x &= x - 1 {
		g := 8*b + bits.TrailingZeros64(x)
		S = S.plus(sums[g])
		C += int(cnt[g])
	}
	return S, C
}

// checkKept compares the kept solution and table, if any, with those a
// Solve from the top and a new table give.
func (s *Sampler) checkKept() error {
	k := &s.kept
	if k.totOK && k.totVer == s.ver && k.tot != s.wideSum() {
		return fmt.Errorf("levels: the sum of the keys kept differs from the levels' sums")
	}
	if !k.ok {
		return nil
	}
	if s.validate(k.eps) != nil {
		return fmt.Errorf("levels: a solution kept for ε = %v, not a valid bound", k.eps)
	}
	sc := &scratch{quiet: true} // a Solve that leaves the published units as they are
	o := s.solve(k.eps, sc)
	if o != k.o {
		return fmt.Errorf("levels: the solution kept for ε = %v is %+v, a Solve gives %+v", k.eps, k.o, o)
	}
	t := s.build(&o, &sc.tab)
	kt := &k.tab
	if kt.rowsOld {
		if kt.iz != t.iz || !t.iz.ok {
			return fmt.Errorf("levels: the integer proposal kept for ε = %v differs from a new one", k.eps)
		}
		return nil
	}
	if !slices.Equal(kt.rows, t.rows) || !slices.Equal(kt.heads, t.heads) || kt.front != t.front || kt.ts != t.ts ||
		kt.total != t.total || kt.tstar != t.tstar || kt.strB != t.strB || kt.partLo != t.partLo ||
		kt.nTail != t.nTail || kt.lvTail != t.lvTail || kt.direct != t.direct || kt.tailBits != t.tailBits ||
		kt.iz != t.iz {
		return fmt.Errorf("levels: the table kept for ε = %v differs from a new one", k.eps)
	}
	return nil
}

// wide is a whole number of units of 2^-1074 below 2^2048, in words from
// the least significant: the exact sum of any keys whose sum is at most
// MaxSum (below 2^(831+1074)).
type wide [32]uint64

// keyWords returns the key a, in units of 2^-1074, as p0·2^(64w) +
// p1·2^(64(w+1)): its 53 bits in the two words from w. The key is at most
// MaxSum, so w + 1 is below the last word.
func keyWords(a float64) (w, p0, p1 uint64) {
	b := math.Float64bits(a)
	m, sh := b&(1<<52-1), uint64(0)
	if e := b >> 52; e > 0 {
		m, sh = m|1<<52, e-1
	}
	w, off := sh>>6&31, sh&63
	// Two shifts below 64 each, for off = 0 too, with no test of a shift
	// by 64.
	return w, m << off, m >> (63 - off) >> 1
}

// swap replaces the key old by a in x, the exact sum of keys with old
// among them (a key 0 in place of one absent: swap(0, a) adds a, swap(a,
// 0) takes it away). Two keys in the same two words, as a rule (the words
// hold 64 binades), change them by their difference, one signed addition:
// the words above change by the carry out less the difference's sign,
// which is 0 but rarely. Else old's two words are subtracted and a's
// added, each with its carry past them only when there is one.
func (x *wide) swap(old, a float64) {
	w0, p0, p1 := keyWords(old)
	w1, q0, q1 := keyWords(a)
	var c uint64
	if w0 == w1 {
		// d = a − old as d1·2^64 + d0 − b·2^128: b is its sign.
		d0, b := bits.Sub64(q0, p0, 0)
		d1, b := bits.Sub64(q1, p1, b)
		x[w0], c = bits.Add64(x[w0], d0, 0)
		x[w0+1&31], c = bits.Add64(x[w0+1&31], d1, c)
		if c != b {
			x.carry(w0+2, c)
		}
		return
	}
	x[w0], c = bits.Sub64(x[w0], p0, 0)
	x[w0+1&31], c = bits.Sub64(x[w0+1&31], p1, c)
	if c != 0 {
		x.carry(w0+2, 0)
	}
	x[w1], c = bits.Add64(x[w1], q0, 0)
	x[w1+1&31], c = bits.Add64(x[w1+1&31], q1, c)
	if c != 0 {
		x.carry(w1+2, 1)
	}
}

// carry adds 1 to x from word q on (add 1), or subtracts 1 (add 0): the
// carry or borrow out of the words below q.
func (x *wide) carry(q, add uint64) {
	var c uint64 = 1
	if add == 1 {
		for ; c != 0 && q < uint64(len(x)); q++ {
			x[q], c = bits.Add64(x[q], 0, c)
		}
		return
	}
	for ; c != 0 && q < uint64(len(x)); q++ {
		x[q], c = bits.Sub64(x[q], 0, c)
	}
}

// addAt adds v·2^sh to x, exactly, for sh below 1920 (a level's sum,
// whose keys are at most MaxSum, at its unit): its three words, then the
// carry.
func (x *wide) addAt(v u128, sh uint) {
	w, off := sh>>6, sh&63
	// v·2^off in three words; a shift by 64 gives 0.
	p0, p1, p2 := v.lo<<off, v.hi<<off|v.lo>>(64-off), v.hi>>(64-off)
	if off == 0 {
		p2 = 0
	}
	y := x[w : w+3 : w+3]
	var c uint64
	y[0], c = bits.Add64(y[0], p0, 0)
	y[1], c = bits.Add64(y[1], p1, c)
	y[2], c = bits.Add64(y[2], p2, c)
	for q := w + 3; c != 0 && q < uint(len(x)); q++ {
		x[q], c = bits.Add64(x[q], 0, c)
	}
}

// float returns x·2^-ts, x rounded to the nearest float first (ties to
// even), for ts ≥ 0 and x ≥ 2^(ts+52) or ts = 0, and x below 2^nbits: the
// sum of the keys in the top level's unit, rounded once.
func (x *wide) float(ts, nbits int) float64 {
	t := min(nbits>>6, len(x)-1)
	for t > 0 && x[t] == 0 {
		t--
	}
	if t == 0 {
		return scale(u64float(x[0]), -ts)
	}
	hi, lo := x[t], x[t-1]
	lz := uint(bits.LeadingZeros64(hi)) & 63 // hi is not 0: the mask only tells the compiler
	top := hi<<lz | lo>>1>>(63-lz)           // the 64 bits from the leading one
	// Below the 53 bits kept and the two that round them, a one stands
	// for every bit under it: the rounding is the same. The bits under
	// top decide it only when top lies exactly halfway between two
	// floats (a tie), which the sum rarely does; else the scan of the
	// words under it, most of them zero, is skipped.
	if top&(1<<11-1) == 1<<10 {
		sticky := lo<<lz != 0
		for q := t - 2; q >= 0 && !sticky; q-- {
			sticky = x[q] != 0
		}
		if sticky {
			top |= 1
		}
	}
	// top ≥ 2^63: its half, the last bit kept as a sticky one, rounds as
	// top does, by the signed conversion; the result, x·2^-ts, lies in
	// [2^52, 2^(nbits−ts)] for t > 0, so the factor 2^k is a normal float
	// and the product exact (scale's range test not needed).
	k := 64*t - int(lz) - ts + 1
	return float64(int64(top>>1|top&1)) * math.Float64frombits(uint64(k+1023)<<52)
}

// wideSum returns the exact sum of the keys, from the levels' sums.
func (s *Sampler) wideSum() wide {
	var x wide
	for m := range s.ls {
		if st := &s.ls[m]; st.n > 0 {
			x.addAt(st.sum, uint(unitShift(m+s.lo)))
		}
	}
	return x
}

// sumBits returns a bound on the bit length of the sum of n keys below
// level top + 1: n·2^(top+1) ≤ 2^(top+1+len(n)).
func sumBits(top, n int) int { return top + 1 + bits.Len(uint(n)) }
