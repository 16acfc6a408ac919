package levels

import (
	"math"
	"math/bits"
	"slices"
	"sync"
	"unsafe"
)

// unit is the straddling group or sub-bucket of a Solve with its keys
// sorted: their bit patterns in decreasing order (within one level the
// order of the keys) and the exact prefix sums of their significands. With
// it, finding the head of the straddling unit costs two binary searches and
// the predicate tests inside t*'s bracket, not a pass over the unit's keys.
//
// The sampler keeps the last two units built behind atomic pointers (two,
// so that a cutoff that moves back and forth across the edge of two units
// finds both): a unit is immutable to the reads (Solve, Prob, Draw, …),
// which share it and may run concurrently. A writer, which runs alone,
// edits the units whose keys it changes (editUnit), and drops those of a
// group that splits or merges, so a published unit always holds its keys
// as they are. A unit the writer sorts to follow the cutoff after one Set
// (at its first need) takes a free slot or the oldest one: keys over many
// binades move the cutoff out of its unit every twenty updates or so, and
// among three units or more. A read that needs another unit builds its
// own, publishes it in a free slot, and if there is none marks the slots
// stale, for the next writer to empty: another read may hold the unit it
// would drop; so does the writer after a batch, whose next batch would
// edit units the cutoff has left. Units go back to a pool (a writer is
// never concurrent with a read, so the units it drops are no longer
// read), and the steady state allocates nothing.
type unit struct {
	l, j, k int32    // level, group, sub-bucket (−1: the flat group)
	keys    []uint64 // the keys' bit patterns, decreasing
	// The sums of the prefixes that end a block of 32 keys, in the level's
	// unit (a key's bits less off), on two tiers: sup[S], the sum of the
	// 1024·S largest keys, and blk[x], the sum of the keys from the start
	// of block x's super-block of 32 blocks to the start of x (0 where a
	// super-block starts). The sum of any prefix is a super-block's, a
	// block's and at most 31 keys'. An insertion or removal, which shifts
	// every key after it, changes every block sum after it, as one sum a
	// key would change every sum after it: 1/32 of the moves. A key moved
	// within the unit (Set to a key of the same group) shifts only the
	// keys between its two places and changes the later prefixes all by
	// the same difference: the blocks in between, up to 31 of its
	// super-block and one sum per super-block after, not a sum per
	// block after (a unit of keys that cannot split holds thousands).
	blk []u128
	sup []u128
	off uint64
}

// bytes returns the memory u holds: the struct and its arrays.
func (u *unit) bytes() int {
	return int(unsafe.Sizeof(*u)) + 8*cap(u.keys) + int(unsafe.Sizeof(u128{}))*(cap(u.blk)+cap(u.sup))
}

// blkBits is the log of the keys per block of a unit's sums, supBits that
// of the blocks per super-block.
const (
	blkBits = 5
	supBits = 5
	supMask = 1<<supBits - 1
)

// blockPrefix returns the sum of the keys before block x of u.
func (u *unit) blockPrefix(x int) u128 { return u.sup[x>>supBits].plus(u.blk[x]) }

// prefix returns the sum of the q largest keys of u: from the sum that
// ends the block of q or, when q lies in the upper half of its block and
// the next block starts within the keys, from the next block's sum less
// the keys in between (at most 16 of them, not 31).
func (u *unit) prefix(q int) u128 {
	b := q >> blkBits
	if q&(1<<blkBits-1) > 1<<(blkBits-1) && b+1 < len(u.blk) {
		s := u.blockPrefix(b + 1)
		for _, x := range u.keys[q : (b+1)<<blkBits] {
			s.sub(x - u.off)
		}
		return s
	}
	s := u.blockPrefix(b)
	for _, x := range u.keys[b<<blkBits : q] {
		s.add(x - u.off)
	}
	return s
}

// addPrefixes adds d(x) to the sums before the blocks x ≥ x0 up to hi,
// and delta to those after hi (in whole super-blocks past hi's, one sum
// each). A super-block that starts below x0 keeps its sum.
func (u *unit) addPrefixes(x0, hi int, d func(x int) u128, delta u128) {
	var dS u128 // the difference at the start of x's super-block
	for x := x0; x < len(u.blk); x++ {
		if x > hi && x&supMask == 0 {
			for S := x >> supBits; S < len(u.sup); S++ {
				u.sup[S] = u.sup[S].plus(delta)
			}
			return
		}
		dx := delta
		if x <= hi {
			dx = d(x)
		}
		if x&supMask == 0 {
			u.sup[x>>supBits] = u.sup[x>>supBits].plus(dx)
			dS = dx
			continue
		}
		u.blk[x] = u.blk[x].plus(dx).minus(dS)
	}
}

// setSums sets the sums of u from its keys.
func (u *unit) setSums() {
	keys := u.keys
	blk, sup := u.blk[:0], u.sup[:0]
	var acc u128
	for x := 0; x <= len(keys)>>blkBits; x++ {
		if x&supMask == 0 {
			sup = append(sup, acc)
		}
		blk = append(blk, acc.minus(sup[len(sup)-1]))
		for _, k := range keys[x<<blkBits : min((x+1)<<blkBits, len(keys))] {
			acc.add(k - u.off)
		}
	}
	u.blk, u.sup = blk, sup
}

var unitPool = sync.Pool{New: func() any { return new(unit) }}

// getUnit returns a unit to build, from the sampler's spare ones if any:
// a sync.Pool loses its contents when the collector runs or GOMAXPROCS
// changes, and a unit is a few allocations, so the sampler keeps a few
// units of its own, behind atomic pointers, which reads and writes take
// and give back.
func (s *Sampler) getUnit() *unit {
	for q := range s.spareU {
		if u := s.spareU[q].Swap(nil); u != nil {
			return u
		}
	}
	return unitPool.Get().(*unit)
}

// putUnit gives back a unit that is no longer read.
func (s *Sampler) putUnit(u *unit) {
	for q := range s.spareU {
		if s.spareU[q].CompareAndSwap(nil, u) {
			return
		}
	}
	unitPool.Put(u)
}

// hopPass is the largest unit that the writer, trying a neighbour of
// the unit t* left, passes over rather than sorts.
const hopPass = 64

// tinyPass is the largest unit that is always passed over, never sorted:
// on lognormal keys at 2^10, whose groups hold a key or two, the writer
// following t* into a new unit sorted it, published it and evicted
// another for it, some 500 instructions, where a pass costs a few dozen.
const tinyPass = 4

// unitID returns a nonzero number naming sub-bucket k of group j of level
// l (k = −1: the flat group).
func unitID(l, j, k int) uint64 { return uint64(l)<<16 | uint64(j)<<8 | uint64(k+2) }

// unitOf returns the sorted unit of the entries ents, sub-bucket k of group
// j of level l (k = −1: the flat group), none for a quiet scratch (sc's
// call must not change what is published), a published one if it is that
// unit; unless shared, the caller gives it back (putUnit) when it has
// finished with it. A read, or the writer after a batch, sorts a unit only
// when it needs it a second time with no write to it in between: nil the
// first time, when the caller makes one pass over the keys instead (a batch
// of updates usually writes to the straddling unit, and the next Solve
// would sort it for one use). The writer after one Set sorts it at once.
func (s *Sampler) unitOf(l, j, k int, ents []entry, sc *scratch) (u *unit, shared bool) {
	if sc.quiet {
		return nil, false
	}
	for q := range s.cur {
		if u := s.cur[q].Load(); u != nil && int(u.l) == l && int(u.j) == j && int(u.k) == k {
			return u, true
		}
	}
	if sc.hop && len(ents) <= hopPass || len(ents) <= tinyPass {
		// A small unit the writer tries as t* leaves its own: one pass,
		// not a sort that would take a published unit's slot from one the
		// cutoff comes back to (on lognormal keys at 2^10, where groups
		// hold a key or two, a sort nearly every update).
		return nil, false
	}
	// The writer sorts at the first need after one Set: the cutoff it
	// follows comes back to its units, where a pass that reads the group
	// first was followed by a sort nearly every time (3,573 passes and
	// 3,564 sorts in 100,000 single steps on lognormal keys at 2^16).
	if sc.writer {
		s.unitLv.Or(unitBit(l)) // before the unit is published
	} else if id := unitID(l, j, k); s.want.Load() != id {
		s.unitLv.Or(unitBit(l)) // before the unit is named: a writer reads them alone
		s.want.Store(id)
		return nil, false
	}
	u = s.getUnit()
	u.l, u.j, u.k = int32(l), int32(j), int32(k)
	// Room for a quarter more keys, edits to come, rounded up to a power of
	// two, and for 1024 at least (or n), which holds any group that can
	// split (kSplit): units are reused for groups of any size in turn, and
	// one that had to grow each time a larger group came would allocate
	// in steady state. Grown, not made, so that the capacities include the
	// allocator's rounding up to a size class, which Bytes then counts.
	if c := max(1<<bits.Len(uint(len(ents)+len(ents)/4)), min(1024, 1<<bits.Len(uint(len(s.keys))))); cap(u.keys) < c || cap(u.blk) < c>>blkBits+1 || cap(u.sup) < c>>(blkBits+supBits)+1 {
		u.keys = slices.Grow([]uint64(nil), c)
		u.blk = slices.Grow([]u128(nil), c>>blkBits+1)
		u.sup = slices.Grow([]u128(nil), c>>(blkBits+supBits)+1)
	}
	u.keys, u.off = sortKeys(u.keys, ents, &sc.bkt), uint64(unitShift(l))<<52
	u.setSums()
	// unitLv has l's bit: it was set above, or with want, which names this
	// unit, and only writers, which recompute it from want and cur, clear
	// it.
	for q := range s.cur {
		if s.cur[q].CompareAndSwap(nil, u) {
			return u, true
		}
	}
	if sc.writer && !s.stale.Load() {
		// No read runs: the oldest published unit gives its slot up, where
		// a read would mark them all stale, and a cutoff that moves among
		// three units or more would sort each again every time.
		q := s.evict % len(s.cur)
		s.evict++
		if old := s.cur[q].Swap(u); old != nil {
			s.putUnit(old)
		}
		s.remask()
		return u, true
	}
	if !s.stale.Load() {
		s.unitLv.Store(^uint64(0))
		s.stale.Store(true)
	}
	return u, false
}

// unitsOfGroup reports whether the units are stale, or a unit of group j
// of level l is published or wanted: what editUnit and moveUnit look at
// before they touch any unit.
func (s *Sampler) unitsOfGroup(l, j int) bool {
	if s.stale.Load() {
		return true
	}
	for q := range s.cur {
		if u := s.cur[q].Load(); u != nil && int(u.l) == l && int(u.j) == j {
			return true
		}
	}
	return s.want.Load()>>8 == uint64(l)<<8|uint64(j)
}

// unitsAt reports whether a unit of level l may be published, wanted or
// stale: most updates touch no such level, and say so in one load, where
// a call of editUnit, which is not inlined, costs more than the test.
func (s *Sampler) unitsAt(l int) bool { return s.unitLv.Load()>>(uint(l)&63)&1 != 0 }

// unitBit returns the bit of level l in the mask unitLv.
func unitBit(l int) uint64 { return 1 << (l & 63) }

// remask sets unitLv to the levels of the units in cur and want, all of
// them if stale: after a writer dropped some. Writers only.
func (s *Sampler) remask() {
	m := uint64(0)
	if s.stale.Load() {
		m = ^uint64(0)
	}
	for q := range s.cur {
		if u := s.cur[q].Load(); u != nil {
			m |= unitBit(int(u.l))
		}
	}
	if w := s.want.Load(); w != 0 {
		m |= unitBit(int(w >> 16))
	}
	if s.unitLv.Load() != m {
		// Stored only when changed: an atomic store waits for the
		// writer's stores before it.
		s.unitLv.Store(m)
	}
}

// dropUnit drops the published units of sub-bucket k of group j of level l
// (k = −1: the flat group), whose keys are about to change, or with group,
// every unit of the group, which is about to split or merge; or all of
// them if they are stale, and with staleOnly only then. Writers only.
func (s *Sampler) dropUnit(l, j, k int, group, staleOnly bool) {
	if w := s.want.Load(); w>>8 == uint64(l)<<8|uint64(j) && (group || w == unitID(l, j, k)) {
		s.want.Store(0)
	}
	defer s.remask()
	stale := s.stale.Load()
	if staleOnly && !stale {
		return
	}
	for q := range s.cur {
		u := s.cur[q].Load()
		if u != nil && (stale || !staleOnly && int(u.l) == l && int(u.j) == j && (group || int(u.k) == k)) {
			s.cur[q].Store(nil)
			s.putUnit(u)
		}
	}
	if stale {
		s.stale.Store(false)
	}
}

// editUnit inserts the key of bit pattern b into the published units of
// sub-bucket k of group j of level l (k = −1: the flat group), or removes
// it, keeping their order and prefix sums: a few hundred words moved where
// a new sort would cost c log c comparisons. A unit without room for one
// more key is dropped instead, so that editing never allocates; stale
// units are dropped. Writers only: no read runs concurrently, and the
// units are immutable to the reads that follow.
// The writers call it only if unitsAt(l).
func (s *Sampler) editUnit(l, j, k int, b uint64, insert bool) {
	if !s.unitsOfGroup(l, j) {
		return
	}
	s.dropUnit(l, j, k, false, true)
	g := b - uint64(unitShift(l))<<52
	for q := range s.cur {
		u := s.cur[q].Load()
		if u == nil || int(u.l) != l || int(u.j) != j || int(u.k) != k {
			continue
		}
		keys := u.keys
		p := countAbove(keys, 0, len(keys), b) // the first key ≤ b
		const mask = 1<<blkBits - 1
		if insert {
			if len(keys) == cap(keys) || len(u.blk) == cap(u.blk) || len(u.sup) == cap(u.sup) {
				s.cur[q].Store(nil)
				s.putUnit(u)
				s.remask()
				continue
			}
			keys = append(keys, 0)
			copy(keys[p+1:], keys[p:])
			keys[p] = b
			u.keys = keys
			// A block past p gains b and loses the key pushed past it.
			u.addPrefixes(p>>blkBits+1, len(u.blk), func(x int) u128 {
				return u128{lo: g}.minus(u128{lo: keys[x<<blkBits] - u.off})
			}, u128{})
			if len(keys)&mask == 0 {
				x := len(u.blk) // a block starts at the end
				last := u.blockPrefix(x - 1)
				for _, y := range keys[len(keys)-1-mask:] {
					last.add(y - u.off)
				}
				if x&supMask == 0 {
					u.sup = append(u.sup, last)
					last = u128{}
				} else {
					last = last.minus(u.sup[x>>supBits])
				}
				u.blk = append(u.blk, last)
			}
		} else {
			copy(keys[p:], keys[p+1:])
			keys = keys[:len(keys)-1]
			u.keys = keys
			if (len(keys)+1)&mask == 0 {
				// The last block's start is past the keys.
				u.blk = u.blk[:len(u.blk)-1]
				u.sup = u.sup[:(len(u.blk)+supMask)>>supBits]
			}
			// A block past p loses b and gains the key pulled into it.
			u.addPrefixes(p>>blkBits+1, len(u.blk), func(x int) u128 {
				return u128{lo: keys[x<<blkBits-1] - u.off}.minus(u128{lo: g})
			}, u128{})
		}
	}
}

// moveUnit moves a key of bit pattern b0 to b1 in the published units of
// sub-bucket k of group j of level l (k = −1: the flat group), which
// hold b0, keeping their order and prefix sums: the keys between its old
// and its new place shift by one, the sums before the blocks between
// change, and every later one by b1 − b0 (addPrefixes). Writers only,
// and only if unitsAt(l), as editUnit.
func (s *Sampler) moveUnit(l, j, k int, b0, b1 uint64) {
	if !s.unitsOfGroup(l, j) {
		return
	}
	s.dropUnit(l, j, k, false, true)
	g0, g1 := u128{lo: b0 - uint64(unitShift(l))<<52}, u128{lo: b1 - uint64(unitShift(l))<<52}
	delta := g1.minus(g0)
	for q := range s.cur {
		u := s.cur[q].Load()
		if u == nil || int(u.l) != l || int(u.j) != j || int(u.k) != k {
			continue
		}
		keys := u.keys
		p := countAbove(keys, 0, len(keys), b0) // b0's first place
		if b1 > b0 {
			// Up to the first place of a key ≤ b1: the keys in between
			// move down one, and a prefix that ends among them gains b1
			// and loses the key that ended it.
			r := countAbove(keys, 0, p, b1)
			copy(keys[r+1:p+1], keys[r:p])
			keys[r] = b1
			u.addPrefixes(r>>blkBits+1, p>>blkBits, func(x int) u128 {
				return g1.minus(u128{lo: keys[x<<blkBits] - u.off})
			}, delta)
		} else {
			// Down past the keys > b1 after it: they move up one, and a
			// prefix that ends among them loses b0 and gains the key
			// that now ends it.
			r := countAbove(keys, p+1, len(keys), b1) - 1
			copy(keys[p:r], keys[p+1:r+1])
			keys[r] = b1
			u.addPrefixes(p>>blkBits+1, r>>blkBits, func(x int) u128 {
				return u128{lo: keys[x<<blkBits-1] - u.off}.minus(g0)
			}, delta)
		}
	}
}

// sortKeys returns the bit patterns of the keys of ents in decreasing
// order, in keys (whose capacity holds them). It places them by their
// leading bits below those they share into more buckets than keys (up to
// maxBuckets), then sorts each bucket by insertion: keys spread over
// their group or sub-bucket leave one or two in a bucket, and the sort
// costs four passes, where a comparison sort makes some c·log c
// mispredicted branches (a third of a single step's time on lognormal
// keys, whose cutoff moves to another group every 20 updates or so).
// Keys that crowd one another, more than maxBucket in one bucket, are
// sorted by comparison. bkt is the buckets' counts, grown as needed.
func sortKeys(keys []uint64, ents []entry, bkt *[]int32) []uint64 {
	c := len(ents)
	keys = keys[:c]
	lo, hi := uint64(math.MaxUint64), uint64(0)
	for _, e := range ents {
		b := uint64(e.khi)<<32 | uint64(e.klo)
		lo, hi = min(lo, b), max(hi, b)
	}
	// nb buckets, more than c up to maxBuckets, the key b in bucket
	// (hi − b) >> shift < nb: the largest keys first.
	nb := min(1<<bits.Len(uint(c)), maxBuckets)
	shift := max(0, bits.Len64(hi-lo)-bits.Len(uint(nb-1)))
	if cap(*bkt) < nb+1 {
		*bkt = make([]int32, nb+1, max(nb+1, 2*cap(*bkt)))
	}
	cnt := (*bkt)[:nb+1]
	clear(cnt)
	for _, e := range ents {
		cnt[(hi-(uint64(e.khi)<<32|uint64(e.klo)))>>shift+1]++
	}
	// The running sum in a register: cnt[q] += cnt[q−1] would read back
	// each sum just stored, a chain through memory of some 6 cycles a
	// bucket.
	most, run := int32(0), int32(0)
	for q := 1; q <= nb; q++ {
		c := cnt[q]
		most = max(most, c)
		run += c
		cnt[q] = run
	}
	for _, e := range ents {
		b := uint64(e.khi)<<32 | uint64(e.klo)
		q := (hi - b) >> shift
		keys[cnt[q]] = b
		cnt[q]++
	}
	if most > maxBucket {
		slices.Sort(keys)
		slices.Reverse(keys)
		return keys
	}
	// The buckets are in order: a key moves only within its own.
	for i := 1; i < c; i++ {
		x := keys[i]
		j := i
		for ; j > 0 && keys[j-1] < x; j-- {
			keys[j] = keys[j-1]
		}
		keys[j] = x
	}
	return keys
}

// maxBuckets bounds sortKeys' buckets, maxBucket the keys of one that it
// sorts by insertion.
const (
	maxBuckets = 1 << 12
	maxBucket  = 32
)

// countAtLeast returns the number of keys ≥ b in keys[lo:hi], decreasing,
// plus lo.
func countAtLeast(keys []uint64, lo, hi int, b uint64) int {
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if keys[m] >= b {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}

// countAtLeastNear returns countAtLeast(keys, 0, len(keys), b), found
// by galloping out from g, a guess of it: O(log |answer − g|) probes,
// where a guess one or two keys off (the head of the unit before one
// update) costs two or three, not the log c of a binary search.
func countAtLeastNear(keys []uint64, g int, b uint64) int {
	n := len(keys)
	g = min(max(g, 0), n)
	if g < n && keys[g] >= b {
		// The answer is above g: keys[lo−1] ≥ b.
		lo, step := g+1, 1
		for {
			p := lo + step - 1
			if p >= n {
				return countAtLeast(keys, lo, n, b)
			}
			if keys[p] < b {
				return countAtLeast(keys, lo, p, b)
			}
			lo, step = p+1, 2*step
		}
	}
	// The answer is at most g: keys[hi] < b, or hi = n.
	hi, step := g, 1
	for {
		p := hi - step
		if p < 0 {
			return countAtLeast(keys, 0, hi, b)
		}
		if keys[p] >= b {
			return countAtLeast(keys, p+1, hi, b)
		}
		hi, step = p, 2*step
	}
}

// countAbove returns the number of keys > b in keys[lo:hi], decreasing,
// plus lo.
func countAbove(keys []uint64, lo, hi int, b uint64) int {
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if keys[m] > b {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}
