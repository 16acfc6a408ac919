package levels

import (
	"math/bits"
	"slices"
	"sync"
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
// as they are; a read that needs another unit builds its own,
// publishes it in a free slot, and if there is none marks the slots stale,
// for the next writer to empty. Units go back to a pool (a writer is never
// concurrent with a read, so the units it drops are no longer read), and
// the steady state allocates nothing.
type unit struct {
	l, j, k int32    // level, group, sub-bucket (−1: the group is flat)
	keys    []uint64 // the keys' bit patterns, decreasing
	// blk[b] is the sum of the 32·b largest keys, in the level's unit (a
	// key's bits less off): the sum of any prefix is a block's and at most
	// 31 keys', and an edit changes a sum per block after it, not one per
	// key, which a unit of keys that cannot split (thousands) would pay.
	blk []u128
	off uint64
}

// blkBits is the log of the keys per block of a unit's sums.
const blkBits = 5

// prefix returns the sum of the q largest keys of u.
func (u *unit) prefix(q int) u128 {
	b := q >> blkBits
	s := u.blk[b]
	for _, x := range u.keys[b<<blkBits : q] {
		s.add(x - u.off)
	}
	return s
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

// unitID returns a nonzero number naming sub-bucket k of group j of level
// l (k = −1: the flat group).
func unitID(l, j, k int) uint64 { return uint64(l)<<16 | uint64(j)<<8 | uint64(k+2) }

// unitOf returns the sorted unit of the entries ents, sub-bucket k of group
// j of level l (k = −1: the flat group), none for a quiet scratch (sc's
// call must not change what is published), a published one if it is that
// unit; unless shared, the caller gives it back (putUnit) when it has
// finished with it. A unit is sorted only when a read needs it a second
// time with no write to it in between: nil the first time, when the caller
// makes one pass over the keys instead. A batch of updates usually writes
// to the straddling unit, and the next Solve would sort it for one use.
func (s *Sampler) unitOf(l, j, k int, ents []entry, sc *scratch) (u *unit, shared bool) {
	if sc.quiet {
		return nil, false
	}
	for q := range s.cur {
		if u := s.cur[q].Load(); u != nil && int(u.l) == l && int(u.j) == j && int(u.k) == k {
			return u, true
		}
	}
	if id := unitID(l, j, k); s.want.Load() != id {
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
	if c := max(1<<bits.Len(uint(len(ents)+len(ents)/4)), min(1024, 1<<bits.Len(uint(len(s.keys))))); cap(u.keys) < c {
		u.keys, u.blk = slices.Grow([]uint64(nil), c), slices.Grow([]u128(nil), c>>blkBits+1)
	}
	keys := u.keys[:0]
	for _, e := range ents {
		keys = append(keys, uint64(e.khi)<<32|uint64(e.klo))
	}
	slices.Sort(keys)
	slices.Reverse(keys)
	u.off = uint64(unitShift(l)) << 52
	blk := append(u.blk[:0], u128{})
	var acc u128
	for q, b := range keys {
		acc.add(b - u.off)
		if (q+1)&(1<<blkBits-1) == 0 {
			blk = append(blk, acc)
		}
	}
	u.keys, u.blk = keys, blk
	// unitLv has l's bit: it was set with want, which names this unit,
	// and only writers, which recompute it from want and cur, clear it.
	for q := range s.cur {
		if s.cur[q].CompareAndSwap(nil, u) {
			return u, true
		}
	}
	if !s.stale.Load() {
		s.unitLv.Store(^uint64(0))
		s.stale.Store(true)
	}
	return u, false
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
	s.unitLv.Store(m)
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
	u0, u1 := s.cur[0].Load(), s.cur[1].Load()
	if !s.stale.Load() && (u0 == nil || int(u0.l) != l || int(u0.j) != j) && (u1 == nil || int(u1.l) != l || int(u1.j) != j) {
		if w := s.want.Load(); w>>8 != uint64(l)<<8|uint64(j) {
			return
		}
	}
	s.dropUnit(l, j, k, false, true)
	g := b - uint64(unitShift(l))<<52
	for q := range s.cur {
		u := s.cur[q].Load()
		if u == nil || int(u.l) != l || int(u.j) != j || int(u.k) != k {
			continue
		}
		keys, blk := u.keys, u.blk
		p := countAbove(keys, 0, len(keys), b) // the first key ≤ b
		const mask = 1<<blkBits - 1
		if insert {
			if len(keys) == cap(keys) || len(blk) == cap(blk) {
				s.cur[q].Store(nil)
				s.putUnit(u)
				s.remask()
				continue
			}
			keys = append(keys, 0)
			copy(keys[p+1:], keys[p:])
			keys[p] = b
			// A block past p gains b and loses the key pushed past it.
			for x := p>>blkBits + 1; x < len(blk); x++ {
				blk[x].add(g)
				blk[x].sub(keys[x<<blkBits] - u.off)
			}
			if len(keys)&mask == 0 {
				last := blk[len(blk)-1]
				for _, y := range keys[len(keys)-1-mask:] {
					last.add(y - u.off)
				}
				blk = append(blk, last)
			}
		} else {
			copy(keys[p:], keys[p+1:])
			keys = keys[:len(keys)-1]
			if (len(keys)+1)&mask == 0 {
				blk = blk[:len(blk)-1] // its block's end is past the keys
			}
			// A block past p loses b and gains the key pulled into it.
			for x := p>>blkBits + 1; x < len(blk); x++ {
				blk[x].sub(g)
				blk[x].add(keys[x<<blkBits-1] - u.off)
			}
		}
		u.keys, u.blk = keys, blk
	}
}

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
