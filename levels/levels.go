package levels

import (
	"fmt"
	"math"
	"math/big"
	"math/bits"
	"slices"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/reweighted/reweighted"
	"github.com/reweighted/reweighted/internal/check"
)

const (
	// bB is the number of mantissa bits below the leading one that pick a
	// key's group inside its level: a group spans a ratio of at most
	// 1 + 2^-bB between its smallest key and its bound.
	bB = 6
	// nG is the number of groups per level.
	nG = 1 << bB
	// nLevels is the number of levels: a positive finite key is v units of
	// 2^-1074, v < 2^2098, and its level is the position of v's leading bit.
	nLevels = 2098
	// maxSumLevel is the level of MaxSum = 2^831 = 2^1905 units.
	maxSumLevel = 831 + 1074
	// A group of more than kSplit items, in a level of at least 12 bits,
	// is split into 64 sub-buckets by the next six mantissa bits, so that
	// Solve reads one sub-bucket of the group that straddles t*, not the
	// group; a split group of fewer than kMerge items is merged again.
	// The gap between the two keeps a key moving back and forth from
	// splitting and merging each time.
	kSplit = 512
	kMerge = 128
)

// entry is one item of a group: its key beside it, so that a draw reads
// one slot, not the slot and then the key array. The key is kept as two
// 32-bit halves, so that an entry takes 12 bytes, not 16.
type entry struct {
	klo, khi uint32
	item     int32
}

func mkEntry(a float64, i int) entry {
	b := math.Float64bits(a)
	return entry{uint32(b), uint32(b >> 32), int32(i)}
}

// key returns the entry's key.
func (e entry) key() float64 { return math.Float64frombits(uint64(e.khi)<<32 | uint64(e.klo)) }

// u128 is an exact unsigned sum of significands.
type u128 struct{ hi, lo uint64 }

func (x *u128) add(v uint64) {
	var c uint64
	x.lo, c = bits.Add64(x.lo, v, 0)
	x.hi += c
}

func (x *u128) sub(v uint64) {
	var b uint64
	x.lo, b = bits.Sub64(x.lo, v, 0)
	x.hi -= b
}

func (x u128) plus(y u128) u128 {
	lo, c := bits.Add64(x.lo, y.lo, 0)
	return u128{x.hi + y.hi + c, lo}
}

// minus returns x − y modulo 2^128: a difference of sums that may be
// negative, added to a sum afterwards, is exact so.
func (x u128) minus(y u128) u128 {
	lo, b := bits.Sub64(x.lo, y.lo, 0)
	return u128{x.hi - y.hi - b, lo}
}

// addDiff adds to x the signed difference d, given modulo 2^64, of two
// values below 2^63.
func (x *u128) addDiff(d uint64) {
	var c uint64
	x.lo, c = bits.Add64(x.lo, d, 0)
	x.hi += c + uint64(int64(d)>>63)
}

// float returns x rounded, within two roundings.
func (x u128) float() float64 { return float64(x.hi)*0x1p64 + u64float(x.lo) }

// u64float returns float64(x), rounded as the conversion rounds it,
// without the conversion's branch on the top bit of x: the low words of
// the exact sums have it set half the time, at random, and a Solve or an
// upkeep converts a few of them for each level it walks (a mispredicted
// branch each other time). Below 2^63 it is the signed conversion; from
// 2^63, the conversion of x/2 rounded to odd, doubled, as Go's own.
func u64float(x uint64) float64 {
	lo := math.Float64bits(float64(int64(x)))
	hi := math.Float64bits(float64(int64(x>>1|x&1)) * 2)
	m := -(x >> 63)
	return math.Float64frombits(lo&^m | hi&m)
}

// bigInt sets z to x·2^sh, using tmp, and returns z.
func (x u128) bigInt(z, tmp *big.Int, sh uint) *big.Int {
	z.SetUint64(x.hi)
	z.Lsh(z, 64)
	z.Add(z, tmp.SetUint64(x.lo))
	return z.Lsh(z, sh)
}

// level holds the keys whose unit integer has its leading bit at one
// position: 64 groups by the next six bits, with exact integer sums in the
// level's unit (2^(ℓ−52) units for normal keys, 1 unit for subnormal ones),
// so that every key of the level is a whole number of that unit.
type level struct {
	occ  uint64       // groups that hold items
	bc   [nBlk]uint32 // the count of each block of eight groups
	bb   [nBlk]uint64 // Σ cnt[j]·bnd(j) over each block of eight groups
	bs   [nBlk]u128   // Σ gsum[j] over each block of eight groups
	cnt  [nG]int32
	gsum [nG]u128
	ents [nG][]entry // a flat group's entries
	sub  [nG]*sub    // a split group's sub-buckets
}

// lstat is a level's count and sums, kept apart from the level in one
// array by level, so that Solve's and the table's walks over the occupied
// levels, which are mostly neighbours, read a few cache lines.
type lstat struct {
	n   int64  // items
	wb  uint64 // Σ_j cnt[j]·bnd(j), the groups' bounds in units of 2^(ℓ−6)
	sum u128   // Σ significands, in the level's unit
}

// sub holds the items of a split group in 64 sub-buckets by the six
// mantissa bits after the group's, with their counts and exact sums.
type sub struct {
	occ  uint64
	bc   [nBlk]uint32 // the count of each block of eight sub-buckets
	bs   [nBlk]u128   // the sum of each block of eight sub-buckets
	cnt  [nG]int32
	sum  [nG]u128
	ents [nG][]entry
}

// subOf returns the sub-bucket of a key of level l ≥ 12.
func subOf(a float64, l int) int {
	b := math.Float64bits(a)
	m := b & (1<<52 - 1)
	if b>>52 > 0 {
		return int(m>>(52-2*bB)) & (nG - 1)
	}
	return int(m>>(l-2*bB)) & (nG - 1)
}

// at returns the entry of index r in group j: its slot r, or, split, the
// slot r counted through its sub-buckets in turn.
func (lv *level) at(j, r int) entry {
	if lv.sub[j] != nil {
		return lv.atSub(j, r)
	}
	return lv.ents[j][r]
}

// atSub is at for a split group: a call of its own, so that at, for the
// flat groups, inlines. The sub-bucket is found as findBound finds a
// group, by halving with no branch on r (findCount's walk, which stops
// where r falls, is mispredicted about once a call, and a draw at 2^20
// reads a split group nearly always): the first four block counts
// against r, then two, then one, then the sub-buckets of that block.
func (lv *level) atSub(j, r int) entry {
	sb := lv.sub[j]
	x := uint64(r)
	bc := &sb.bc
	h := uint64(bc[0]) + uint64(bc[1]) + uint64(bc[2]) + uint64(bc[3])
	m := uint64(int64(h-x-1) >> 63) // all ones if h ≤ x
	x -= h & m
	b := m & 4
	h = uint64(bc[b]) + uint64(bc[b+1])
	m = uint64(int64(h-x-1) >> 63)
	x -= h & m
	b += m & 2
	h = uint64(bc[b&7])
	m = uint64(int64(h-x-1) >> 63)
	x -= h & m
	b += m & 1
	c := (*[8]int32)(sb.cnt[(b*8)&(nG-1):])
	h = uint64(c[0]) + uint64(c[1]) + uint64(c[2]) + uint64(c[3])
	m = uint64(int64(h-x-1) >> 63)
	x -= h & m
	g := m & 4
	h = uint64(c[g]) + uint64(c[g+1])
	m = uint64(int64(h-x-1) >> 63)
	x -= h & m
	g += m & 2
	h = uint64(c[g&7])
	m = uint64(int64(h-x-1) >> 63)
	x -= h & m
	g += m & 1
	return sb.ents[(b*8+g)&(nG-1)][x]
}

// each calls f with every entry of group j.
func (lv *level) each(j int, f func(entry)) {
	if sb := lv.sub[j]; sb != nil {
		for _, es := range sb.ents {
			for _, e := range es {
				f(e)
			}
		}
		return
	}
	for _, e := range lv.ents[j] {
		f(e)
	}
}

// Small groups take their slices from per-sampler pools of four sizes,
// 8 to 64 entries, and give them back when they grow past or shrink below
// them: the group sizes of a sampler in steady state wander, and a slice
// that one group outgrows serves another, so that no Set allocates.
const (
	smallCaps = 4  // pooled capacities 8, 16, 32, 64
	minCap    = 8  // the smallest
	maxSmall  = 64 // the largest
)

// capClass returns the pool of a slice of capacity c, or −1.
func capClass(c int) int {
	switch c {
	case 8:
		return 0
	case 16:
		return 1
	case 32:
		return 2
	case 64:
		return 3
	}
	return -1
}

// resize moves the entries of x into a slice of capacity c, from the pool
// if it has one, and gives x to its pool.
func (s *Sampler) resize(x []entry, c int) []entry {
	var y []entry
	if k := capClass(c); k >= 0 {
		// The pooled slice of the least capacity ≥ c, but below x's
		// when x shrinks (else x stays as it is).
		for ; k < smallCaps && (len(s.spare[k]) == 0 || minCap<<k >= cap(x) && c < cap(x)); k++ {
		}
		if k < smallCaps && !(c < cap(x) && minCap<<k >= cap(x)) {
			y = s.takeSmall(k)
		} else if c < cap(x) {
			return x
		}
	}
	if y == nil {
		if k := capClass(c); k >= 0 {
			// The pool is empty: 512 entries' worth of slices, or a
			// quarter of the slices of this size made so far at such
			// times if more, up to 2,048 entries, one for now and the
			// others for the next groups that need this size. The number
			// of groups of a size wanders, and runs dry a pool that holds
			// what they left only when it passes its highest: a slice at a
			// time would allocate at each new high, and the highs of a
			// wandering number keep coming; more at a time, only when it
			// passes its highest by more. Each slice is its own object,
			// so that one the pool has no room for goes to the collector:
			// slices carved from a block would hold it whole while any of
			// them lives, and a sampler's first fill leaves the pools a
			// peak's worth (6 bytes an item for lognormal keys at 2^16).
			b := max(maxSmall*8/c, min(s.made[k]/4, maxSmall*32/c))
			s.made[k] += b
			if s.dropped[k] {
				// The pool ran dry after it gave slices to the collector:
				// the number of groups of this size wanders more than the
				// pool holds, and it holds b more from now on.
				s.spare[k] = append(make([]*entry, 0, cap(s.spare[k])+b), s.spare[k]...)
				s.dropped[k] = false
			}
			for q := 1; q < b && len(s.spare[k]) < cap(s.spare[k]); q++ {
				s.spare[k] = append(s.spare[k], unsafe.SliceData(make([]entry, c)))
			}
			y = make([]entry, 0, c)
		} else if k := rung(c); k >= 0 && ladder()[k] == c {
			// A rung: from the pool, or the allocator's block, which holds
			// exactly the rung's capacity.
			if y = s.takeBig(k, c > cap(x)); y == nil {
				if c < cap(x) && 16*len(x) > cap(x) {
					// A step down frees memory for others; with nothing
					// pooled to step down to, the group keeps its slice
					// rather than allocate, and tries again as it shrinks,
					// unless it would hold 16 times its entries: then a
					// pooled small slice that holds them twice over, if any.
					return x
				}
				if c < cap(x) {
					y = s.takeSmallFor(len(x))
				}
				if y == nil {
					y = s.makeBig(k, c > cap(x))
				}
			}
		} else {
			// All of the allocator's block: its size class holds a few
			// entries more than c, which Bytes then counts.
			y = slices.Grow([]entry(nil), c)
			s.holdBig(y)
		}
	}
	y = append(y, x...)
	s.release(x)
	return y
}

// release gives x to its pool, unless the pool is full (growing it would
// allocate) or x is not of a pooled size.
func (s *Sampler) release(x []entry) {
	if cap(x) > maxSmall {
		s.releaseBig(x)
		return
	}
	if k := capClass(cap(x)); k >= 0 {
		if len(s.spare[k]) < cap(s.spare[k]) {
			s.spare[k] = append(s.spare[k], &x[:1][0])
		} else {
			s.dropped[k] = true
		}
	}
}

// poolCap returns the most slices the pool of capacity minCap<<k holds for
// a sampler of n items: 2,048 entries' worth, the most a dry pool makes at
// once, and n/64 entries more (0.75 bytes an item for the four pools). A
// slice given back to a full pool goes to the collector; growing the pool
// would allocate.
func poolCap(n, k int) int {
	return (maxSmall*32 + n/64) / (minCap << k)
}

// takeSmall returns an empty slice of capacity minCap<<k from its pool,
// which must hold one.
func (s *Sampler) takeSmall(k int) []entry {
	m := len(s.spare[k]) - 1
	y := unsafe.Slice(s.spare[k][m], minCap<<k)[:0]
	s.spare[k][m] = nil
	s.spare[k] = s.spare[k][:m]
	return y
}

// A slice of more than 64 entries has a capacity of the ladder: 85, 106,
// 149, …, each the allocator's block for a quarter more entries than the
// one below. A group's slice climbs it when full and steps down when
// three eighths full, and the slice it leaves goes to a pool by rung, from
// which the next group to need that rung takes it: the large groups of a
// sampler in steady state wander too, one growing as another shrinks,
// and a group that kept its largest slice for good would make the
// groups' capacity the sum of their sizes' high-water marks, not O(n).
// The pool holds at most n/8 + 8192 entries (bigBudget); beyond, slices
// go to the collector.
const nBig = 96

// ladder is the capacities of the large slices, increasing, up to more
// than math.MaxInt32 entries: ladder[0] holds 80 entries or more, and
// ladder[k+1] is the capacity the allocator gives a slice made for
// ladder[k] + ladder[k]/4 entries, found once by making them (up to 32 KiB,
// the largest size class; beyond, an allocation is whole 8 KiB pages).
var ladder = sync.OnceValue(func() *[nBig]int {
	var l [nBig]int
	c := maxSmall + maxSmall/4
	for k := range l {
		if sz := c * int(unsafe.Sizeof(entry{})); sz <= 32<<10 {
			c = cap(slices.Grow([]entry(nil), c))
		} else {
			c = (sz + 8191) / 8192 * 8192 / int(unsafe.Sizeof(entry{}))
		}
		l[k] = c
		c += c / 4
	}
	return &l
})

// rung returns the rung of the ladder of a capacity c > maxSmall: the
// highest whose capacity is at most c, or −1 if c is below the first.
func rung(c int) int {
	l := ladder()
	k, _ := slices.BinarySearch(l[:], c+1)
	return k - 1
}

// bigBudget returns the most entries the pool of large slices holds.
func (s *Sampler) bigBudget() int { return len(s.keys)/8 + 8192 }

// takeBig returns an empty pooled slice of rung k, or nil. A group that
// climbs (up) takes one of up to three rungs higher if rung k has none, a
// group that steps down one of up to two rungs lower: the pool holds
// what groups left as they wandered, and a slice that serves a
// neighbouring rung is not one to allocate.
func (s *Sampler) takeBig(k int, up bool) []entry {
	order := [4]int{k, k + 1, k + 2, k + 3}
	if !up {
		order = [4]int{k, k - 1, k - 2, -1}
	}
	for _, q := range order {
		if q < 0 || q >= nBig {
			continue
		}
		m := len(s.big[q]) - 1
		if m < 0 {
			continue
		}
		y := s.big[q][m]
		s.big[q][m] = nil
		s.big[q] = s.big[q][:m]
		s.bigHeld -= cap(y)
		return y[:0]
	}
	return nil
}

// takeSmallFor returns an empty pooled small slice of at least twice m
// entries, the least there is, or nil.
func (s *Sampler) takeSmallFor(m int) []entry {
	for k := range smallCaps {
		if minCap<<k >= 2*m && len(s.spare[k]) > 0 {
			return s.takeSmall(k)
		}
	}
	return nil
}

// releaseBig gives a slice of more than maxSmall entries to the pool,
// unless the pool is full: under its rung, so that whoever takes it finds
// at least the rung's capacity (a slice that grew by append, in a merge,
// may lie between two rungs).
func (s *Sampler) releaseBig(x []entry) {
	k := rung(cap(x))
	if k < 0 {
		return
	}
	if len(s.big[k]) == cap(s.big[k]) {
		s.liveBig[k]-- // not reached: the list has room for every slice of its rung
		return
	}
	// Full: the largest pooled slices give way to a smaller one, which
	// more groups come to need.
	for top := nBig - 1; s.bigHeld+cap(x) > s.bigBudget(); {
		for top > k && len(s.big[top]) == 0 {
			top--
		}
		if top <= k {
			s.liveBig[k]--
			return
		}
		m := len(s.big[top]) - 1
		s.liveBig[top]--
		s.bigHeld -= cap(s.big[top][m])
		s.big[top][m] = nil
		s.big[top] = s.big[top][:m]
	}
	s.big[k] = append(s.big[k], x[:0])
	s.bigHeld += cap(x)
}

// makeBig returns a new empty slice of rung k. One for a group that
// climbs (up) comes with spare ones of its rung for the pool, a quarter of
// those the sampler holds (at least two), as far as the pool's budget
// allows: the number of large groups wanders, and a pool that held only
// what they left would run dry at each of its new highs.
func (s *Sampler) makeBig(k int, up bool) []entry {
	c := ladder()[k]
	y := slices.Grow([]entry(nil), c)
	s.holdBig(y)
	if up {
		for e := max(2, int(s.liveBig[k])/4); e > 0 && s.bigHeld+c <= s.bigBudget(); e-- {
			z := slices.Grow([]entry(nil), c)
			s.holdBig(z)
			s.big[k] = append(s.big[k], z)
			s.bigHeld += c
		}
	}
	return y
}

// holdBig counts a new large slice x among those the sampler holds, and
// gives the pool's list of its rung room for all of them, so that
// releaseBig never grows it.
func (s *Sampler) holdBig(x []entry) {
	k := rung(cap(x))
	if k < 0 {
		return
	}
	s.liveBig[k]++
	s.big[k] = slices.Grow(s.big[k], int(s.liveBig[k])-len(s.big[k]))
}

// holding returns the large group slices s holds, in groups, sub-buckets
// and the pool, by rung.
func (s *Sampler) holding() (big [nBig]int32) {
	add := func(x []entry) {
		if k := rung(cap(x)); k >= 0 && cap(x) > maxSmall {
			big[k]++
		}
	}
	for _, lv := range s.lv {
		if lv == nil {
			continue
		}
		for j, es := range lv.ents {
			add(es)
			if sb := lv.sub[j]; sb != nil {
				for _, es := range sb.ents {
					add(es)
				}
			}
		}
	}
	for _, sb := range s.subs {
		for _, es := range sb.ents {
			add(es)
		}
	}
	for k, l := range s.big {
		big[k] += int32(len(l))
	}
	return big
}

// checkPools returns an error unless each small pool's list has at least
// its first room (poolCap), and the list of each rung of large slices has
// room for every slice of that rung s holds, as liveBig counts them: a
// slice given back never grows a list.
func (s *Sampler) checkPools() error {
	big := s.holding()
	for k := range s.spare {
		if c := cap(s.spare[k]); c < poolCap(len(s.keys), k) {
			return fmt.Errorf("levels: the pool of slices of %d entries has room for %d, not %d", minCap<<k, c, poolCap(len(s.keys), k))
		}
	}
	for k, m := range big {
		if m != s.liveBig[k] || cap(s.big[k]) < int(m) {
			return fmt.Errorf("levels: %d slices of rung %d held, %d counted, room for %d in their pool", m, k, s.liveBig[k], cap(s.big[k]))
		}
	}
	return nil
}

// push appends e to *es and returns its slot. A slice of up to 64 entries
// doubles, from the pools, and a larger one grows by a quarter, not by
// append's doubling: the spare room of the large groups is most of the
// memory above the items' own.
func (s *Sampler) push(es *[]entry, e entry) int32 {
	x := *es
	if len(x) == cap(x) {
		x = s.grow(x)
	}
	*es = append(x, e)
	return int32(len(x))
}

// grow returns x moved to a slice of the next capacity: push's rare case,
// a call of its own.
func (s *Sampler) grow(x []entry) []entry {
	if cap(x) == 0 && len(s.spare[0]) > 0 {
		// An empty group's first entry, the usual case where groups hold
		// a key or two (most of a single step's growths at 2^10): the
		// pool's slice with none of resize's search.
		return s.takeSmall(0)
	}
	c := max(2*len(x), minCap)
	if len(x) >= maxSmall {
		c = ladder()[rung(len(x))+1]
	}
	return s.resize(x, c)
}

// pop removes the entry at slot p of *es, moving the last entry into it,
// and returns the item moved, or −1. A pooled slice three eighths full
// moves to one of half its size: at a quarter, as a doubling array does,
// the sub-buckets of a few entries each, most of the memory of a sampler
// at 2^20 whose groups split, held 42% of their capacity in slices of 64
// (40.8 bytes an item for lognormal keys, 38.9 at three eighths).
func (s *Sampler) pop(es *[]entry, p int32) int32 {
	x := *es
	last := int32(len(x) - 1)
	moved := int32(-1)
	if p != last {
		x[p] = x[last]
		moved = x[p].item
	}
	x = x[:last]
	// The rare case tested first: a branch on the slice's size class,
	// which varies from group to group, would be mispredicted.
	if 8*len(x) <= 3*cap(x) {
		x = s.shrink(x)
	}
	*es = x
	return moved
}

// shrink returns x, three eighths full or less, given back if empty, or
// moved to a slice of a lower capacity: pop's rare case, a call of its
// own, which move's copy of pop's usual case calls too.
func (s *Sampler) shrink(x []entry) []entry {
	c := cap(x)
	switch {
	case len(x) == 0:
		// An empty group gives its slice back.
		s.release(x)
		return nil
	case c > maxSmall:
		// A large slice three eighths full steps down the ladder (to a
		// pooled 64 from its first rung), giving its own to the pool.
		nc := maxSmall
		if k := rung(c); k > 0 {
			nc = ladder()[k-1]
		}
		return s.resize(x, nc)
	case c > minCap:
		return s.resize(x, c/2)
	}
	return x
}

// Sampler is a law-exact dynamic sampler of p* (Lemma 1) with O(1)
// expected time per draw and per update; see the package doc.
type Sampler struct {
	keys    []float64
	pos     []int32                     // the slot of each item in its group, or in zeros
	zeros   []int32                     // the items whose key is 0
	lv      []*level                    // by level − lo, over the levels keys have reached (widen)
	ls      []lstat                     // likewise
	lo      int                         // the first level of lv and ls
	occ     [(nLevels + 63) / 64]uint64 // levels that hold items
	occW    uint64                      // the words of occ that are not 0
	free    []*level                    // emptied levels, kept for reuse by any exponent
	subs    []*sub                      // emptied sub-buckets, kept for reuse
	spare   [smallCaps][]*entry         // small group slices, by capacity: their first entry
	made    [smallCaps]int              // small group slices allocated when a pool ran dry, by capacity
	dropped [smallCaps]bool             // a full pool gave a slice to the collector since it last ran dry, by capacity
	liveBig [nBig]int32                 // large group slices held, in groups or pooled, by rung: big[k] has room for them
	cur     [2]atomic.Pointer[unit]     // the last straddling units sorted, shared by reads
	stale   atomic.Bool                 // a read needed a unit beside full slots: the next writer drops cur
	want    atomic.Uint64               // the unit a read last needed and did not find (unitID)
	unitLv  atomic.Uint64               // bit l mod 64 for the level l of each unit in cur or want; all if stale
	evict   int                         // the slot of cur a writer's new unit takes when none is free (writers only)
	spareU  [4]atomic.Pointer[unit]     // units to build, kept across collections (getUnit)
	spareSc atomic.Pointer[scratch]     // a call's working memory, kept across collections (getScratch)
	big     [nBig][][]entry             // large group slices no group holds, by capacity class (bigClass)
	bigHeld int                         // the entries of capacity in big
	kept    kept                        // the solution for the ε reads last asked for, kept by writers
	far     bool                        // n ≥ touchMin: DrawBatch's attempts overlap their cache misses (refill)
	ver     uint64                      // the writes that changed keys, counted
	id      uint64                      // the sampler's number (samplers)
	asked   struct {
		eps atomic.Uint64 // the bits of the ε a read last asked for, plus 1 (0: none)
		// ver is the count of writes a read saw, plus 1 (0: none), stored
		// when the one there is keepFor writes old: a read came in the
		// last keepFor writes when it is within keepFor of the count now.
		// A stamp that only reads store, where a flag would have the
		// writer clear it: an atomic store waits for every store before
		// it to leave the core, and a writer's are cache misses.
		ver atomic.Uint64
	}
	solves atomic.Uint64 // the Solves made, by reads and writers: for the tests
}

// New returns a sampler of n items, all keys 0. It panics for n < 0 or
// n > math.MaxInt32.
func New(n int) *Sampler {
	if n < 0 {
		panic(fmt.Sprintf("levels: New(%d): negative size", n))
	}
	if n > math.MaxInt32 {
		panic(fmt.Sprintf("levels: New(%d): more than %d items", n, math.MaxInt32))
	}
	s := &Sampler{keys: make([]float64, n), pos: make([]int32, n), zeros: make([]int32, n),
		free: make([]*level, 0, 64), subs: make([]*sub, 0, 16), id: samplers.Add(1), far: n >= touchMin}
	for i := range n {
		s.pos[i], s.zeros[i] = int32(i), int32(i)
	}
	for k := range s.spare {
		s.spare[k] = make([]*entry, 0, poolCap(n, k))
	}
	// Reserve, as a tree reserves nodes, what the groups of a sampler in
	// steady state come to need beyond their first fill: slices of 16 and
	// 32 entries for the groups that wander past 8 and 16 items, and a few
	// levels for keys that reach new exponents.
	if n >= 256 {
		for k := 1; k <= 2; k++ {
			for range min(n/(32<<k), 256, cap(s.spare[k])) {
				s.spare[k] = append(s.spare[k], unsafe.SliceData(make([]entry, minCap<<k)))
			}
		}
		block := new([4]level)
		for k := range block {
			s.free = append(s.free, &block[k])
		}
	}
	return s
}

// Len returns the number of items.
func (s *Sampler) Len() int { return len(s.keys) }

// Key returns the key of item i. It panics unless 0 ≤ i < Len().
func (s *Sampler) Key(i int) float64 { return s.keys[i] }

// locate returns the level and group of a positive finite key.
func locate(a float64) (l, j int) {
	b := math.Float64bits(a)
	e := int(b >> 52)
	m := b & (1<<52 - 1)
	if e > 0 {
		return e + 51, int(m >> (52 - bB))
	}
	l = bits.Len64(m) - 1
	if l >= bB {
		return l, int(m>>(l-bB)) & (nG - 1)
	}
	// Fewer bits than a group takes: one value per group.
	return l, int(m-1<<l) << (bB - l)
}

// loBits returns the bits of the least key of group j of level l: a key
// lies below the group exactly when its bits are below them.
func loBits(l, j int) uint64 {
	switch {
	case l >= 52: // normal: the exponent l − 51 and six bits of mantissa
		return uint64(l-51)<<52 | uint64(j)<<(52-bB)
	case l >= bB: // subnormal of l + 1 bits
		return 1<<l | uint64(j)<<(l-bB)
	}
	return 1<<l | uint64(j)>>(bB-l) // one value per group
}

// sig64 returns a positive finite key in the unit of its level.
func sig64(a float64) uint64 {
	b := math.Float64bits(a)
	m := b & (1<<52 - 1)
	if b>>52 > 0 {
		return m | 1<<52
	}
	return m
}

// unitShift returns the exponent of level l's unit in units of 2^-1074.
func unitShift(l int) int { return max(l-52, 0) }

// bnd returns the bound of group j of level l in units of 2^(l−6): the
// group's exclusive upper edge, or for a level of fewer than 6 bits, whose
// groups hold one value each, that value.
func bnd(l, j int) uint64 {
	if l >= bB {
		return uint64(nG + j + 1)
	}
	return uint64(nG + j)
}

// bndLevel returns the bound of group j of level l in the level's unit,
// exactly: an integer below 2^53.
func bndLevel(l, j int) float64 {
	// 2^(l − 6 − unitShift(l)) lies in [2^-6, 2^46]: a normal power of
	// two, so the product is exact, as Ldexp's.
	return float64(bnd(l, j)) * math.Float64frombits(uint64(l-bB-unitShift(l)+1023)<<52)
}

// The groups of a level (the sub-buckets of a split group) are chosen by
// count or by bound weight through the sums of their blocks of eight
// beside the counts: an update writes one count and one block sum, two
// cache lines, where a Fenwick tree over 64 entries writes up to six, and
// a choice reads eight block sums and at most eight counts, two lines.
const nBlk = nG / 8

// findCount returns the index j with prefix(j) ≤ r < prefix(j + 1), r
// below the total, prefix being the sums of the counts cnt (block sums
// bc), and prefix(j).
func findCount(bc *[nBlk]uint32, cnt *[nG]int32, r uint32) (int, uint32) {
	var below uint32
	b := 0
	for ; b < nBlk-1 && r >= bc[b]; b++ {
		r -= bc[b]
		below += bc[b]
	}
	j := b * 8
	for ; j < b*8+7 && r >= uint32(cnt[j]); j++ {
		r -= uint32(cnt[j])
		below += uint32(cnt[j])
	}
	return j, below
}

// prefixCount returns the sum of the counts cnt[0:j] (block sums bc).
func prefixCount(bc *[nBlk]uint32, cnt *[nG]int32, j int) uint32 {
	var t uint32
	for b := range j >> 3 {
		t += bc[b]
	}
	for k := j &^ 7; k < j; k++ {
		t += uint32(cnt[k])
	}
	return t
}

// findBound returns the group j of level l with prefix(j) ≤ r <
// prefix(j + 1), r below the level's bound weight wb, prefix being the
// sums of cnt[j]·bnd(l, j), and prefix(j).
func (lv *level) findBound(l int, r uint64) (int, uint64) {
	// Halves with no branch on r: the block by its first four sums, then
	// two, then one, the group within it the same way, each step taking
	// the half's sum from r where r passes it (a mask from the sign of
	// sum − r − 1: the weights lie below 2^62). Steps of fixed number are
	// predicted, where a walk that stops at the answer, which is random,
	// is mispredicted about once a call; and halving reads and compares
	// six sums a stage where a walk over all eight prefixes compares
	// seven and keeps them (a call of 95 instructions, from 160). r stays
	// below the sum of the range left, so the group found weighs more
	// than the r left in it, which is r less prefix(j).
	r0 := r
	bb := &lv.bb
	h := bb[0] + bb[1] + bb[2] + bb[3]
	m := uint64(int64(h-r-1) >> 63) // all ones if h ≤ r
	r -= h & m
	b := m & 4
	h = bb[b] + bb[b+1]
	m = uint64(int64(h-r-1) >> 63)
	r -= h & m
	b += m & 2
	h = bb[b&7]
	m = uint64(int64(h-r-1) >> 63)
	r -= h & m
	b += m & 1
	// The groups of block b, whose bounds are e, e+1, …: nG+j+1, or nG+j
	// at a level of groups of one value.
	c := (*[8]int32)(lv.cnt[(b*8)&(nG-1):])
	e := uint64(nG+1) + b*8
	if l < bB {
		e--
	}
	h = uint64(c[0])*e + uint64(c[1])*(e+1) + uint64(c[2])*(e+2) + uint64(c[3])*(e+3)
	m = uint64(int64(h-r-1) >> 63)
	r -= h & m
	g := m & 4
	h = uint64(c[g])*(e+g) + uint64(c[g+1])*(e+g+1)
	m = uint64(int64(h-r-1) >> 63)
	r -= h & m
	g += m & 2
	h = uint64(c[g&7]) * (e + g)
	m = uint64(int64(h-r-1) >> 63)
	r -= h & m
	g += m & 1
	return int(b*8 + g), r0 - r
}

// prefixBound returns the sum of cnt[k]·bnd(l, k) over the groups k < j of
// level l.
func (lv *level) prefixBound(l, j int) uint64 {
	var t uint64
	for b := range j >> 3 {
		t += lv.bb[b]
	}
	for k := j &^ 7; k < j; k++ {
		t += uint64(lv.cnt[k]) * bnd(l, k)
	}
	return t
}

// level returns level l, nil if none is allocated.
func (s *Sampler) level(l int) *level {
	if k := l - s.lo; uint(k) < uint(len(s.lv)) {
		return s.lv[k]
	}
	return nil
}

// stat returns the count and sums of level l.
func (s *Sampler) stat(l int) lstat {
	if k := l - s.lo; uint(k) < uint(len(s.ls)) {
		return s.ls[k]
	}
	return lstat{}
}

// widen extends lv and ls to level l, with room for 16 levels more on that
// side, or half their width if more (all nLevels would cost a sampler 84 kB
// whatever its size; keys span a few dozen levels).
func (s *Sampler) widen(l int) {
	lo, hi := s.lo, s.lo+len(s.lv)
	room := max(16, (hi-lo)/2)
	switch {
	case len(s.lv) == 0:
		lo, hi = max(0, l-room), min(nLevels, l+1+room)
	case l < lo:
		lo = max(0, l-room)
	default:
		hi = min(nLevels, l+1+room)
	}
	lv, ls := make([]*level, hi-lo), make([]lstat, hi-lo)
	if len(s.lv) > 0 {
		copy(lv[s.lo-lo:], s.lv)
		copy(ls[s.lo-lo:], s.ls)
	}
	s.lv, s.ls, s.lo = lv, ls, lo
}

// insert puts item i with key a in its group; keys[i] is set by the caller.
func (s *Sampler) insert(i int, a float64) {
	if a == 0 {
		s.pos[i] = int32(len(s.zeros))
		s.zeros = append(s.zeros, int32(i))
		return
	}
	l, j := locate(a)
	if uint(l-s.lo) >= uint(len(s.lv)) {
		s.widen(l)
	}
	lv := s.lv[l-s.lo]
	if lv == nil {
		lv = s.newLevel()
		s.lv[l-s.lo] = lv
	}
	st := &s.ls[l-s.lo]
	if st.n == 0 {
		s.occ[l>>6] |= 1 << (l & 63)
		s.occW |= 1 << (l >> 6)
	}
	e := mkEntry(a, i)
	g := sig64(a)
	b := bnd(l, j)
	st.n++
	st.sum.add(g)
	st.wb += b
	lv.occ |= 1 << j
	lv.cnt[j]++
	lv.gsum[j].add(g)
	lv.bb[j>>3] += b
	lv.bc[j>>3]++
	lv.bs[j>>3].add(g)
	if sb := lv.sub[j]; sb != nil {
		k := subOf(a, l)
		if s.unitsAt(l) {
			s.editUnit(l, j, k, math.Float64bits(a), true)
		}
		s.pos[i] = s.push(&sb.ents[k], e)
		sb.occ |= 1 << k
		sb.cnt[k]++
		sb.sum[k].add(g)
		sb.bc[k>>3]++
		sb.bs[k>>3].add(g)
		return
	}
	if s.unitsAt(l) {
		s.editUnit(l, j, -1, math.Float64bits(a), true)
	}
	s.pos[i] = s.push(&lv.ents[j], e)
	if lv.cnt[j] > kSplit && l >= 2*bB {
		s.split(lv, l, j)
	}
}

// split moves the entries of group j of level l into sub-buckets.
func (s *Sampler) split(lv *level, l, j int) {
	s.dropUnit(l, j, -1, true, false)
	var sb *sub
	if k := len(s.subs); k > 0 {
		sb, s.subs = s.subs[k-1], s.subs[:k-1]
	} else {
		sb = new(sub)
	}
	for _, e := range lv.ents[j] {
		k := subOf(e.key(), l)
		s.pos[e.item] = s.push(&sb.ents[k], e)
		sb.occ |= 1 << k
		sb.cnt[k]++
		sb.sum[k].add(sig64(e.key()))
		sb.bc[k>>3]++
		sb.bs[k>>3].add(sig64(e.key()))
	}
	// Its capacity is kept for a merge, which takes the group back below
	// kMerge entries: the array it has, or a pooled one that holds
	// kMerge, when there is one, the large array going to the pool (split
	// groups that kept some 600 entries idle each held 6 of 44 bytes an
	// item at 2^20 with keys over 35 binades, which make 841 of them).
	es := lv.ents[j][:0]
	k, _ := slices.BinarySearch(ladder()[:], kMerge) // the least rung of kMerge entries or more
	if y := s.takeBig(k, true); y != nil {
		s.releaseBig(es)
		es = y
	}
	lv.ents[j] = es
	lv.sub[j] = sb
}

// merge moves the entries of split group j back into one slice, and
// keeps the emptied sub-buckets, with their capacity, for the next split.
func (s *Sampler) merge(lv *level, l, j int) {
	s.dropUnit(l, j, -1, true, false)
	sb := lv.sub[j]
	es := lv.ents[j][:0] // the capacity the group had before it split
	for k := range sb.ents {
		for _, e := range sb.ents[k] {
			s.pos[e.item] = int32(len(es))
			es = append(es, e)
		}
		// Back to the pools: a sub-bucket that kept its slice would hold
		// it, idle, until the next split, and its high-water mark for good.
		s.release(sb.ents[k])
		sb.ents[k] = nil
	}
	sb.occ, sb.cnt, sb.sum, sb.bc, sb.bs = 0, [nG]int32{}, [nG]u128{}, [nBlk]uint32{}, [nBlk]u128{}
	lv.ents[j] = es
	lv.sub[j] = nil
	s.subs = append(s.subs, sb)
}

// remove takes item i, whose key is a, out of its group, moving the
// group's last entry into its slot.
func (s *Sampler) remove(i int, a float64) {
	p := s.pos[i]
	if a == 0 {
		last := int32(len(s.zeros) - 1)
		if p != last {
			moved := s.zeros[last]
			s.zeros[p] = moved
			s.pos[moved] = p
		}
		s.zeros = s.zeros[:last]
		if c := cap(s.zeros); c > 64 && int(last) < c/4 {
			// New gives every item a zero key; most leave for good.
			s.zeros = append([]int32(nil), s.zeros[:last]...)
		}
		return
	}
	l, j := locate(a)
	lv := s.lv[l-s.lo]
	g := sig64(a)
	if sb := lv.sub[j]; sb != nil {
		k := subOf(a, l)
		if s.unitsAt(l) {
			s.editUnit(l, j, k, math.Float64bits(a), false)
		}
		if moved := s.pop(&sb.ents[k], p); moved >= 0 {
			s.pos[moved] = p
		}
		sb.cnt[k]--
		sb.sum[k].sub(g)
		sb.bc[k>>3]--
		sb.bs[k>>3].sub(g)
		if sb.cnt[k] == 0 {
			sb.occ &^= 1 << k
		}
	} else {
		if s.unitsAt(l) {
			s.editUnit(l, j, -1, math.Float64bits(a), false)
		}
		if moved := s.pop(&lv.ents[j], p); moved >= 0 {
			s.pos[moved] = p
		}
	}
	b := bnd(l, j)
	st := &s.ls[l-s.lo]
	st.n--
	st.sum.sub(g)
	st.wb -= b
	lv.cnt[j]--
	lv.gsum[j].sub(g)
	lv.bb[j>>3] -= b
	lv.bc[j>>3]--
	lv.bs[j>>3].sub(g)
	if lv.cnt[j] == 0 {
		lv.occ &^= 1 << j
	}
	if lv.sub[j] != nil && lv.cnt[j] < kMerge {
		s.merge(lv, l, j)
	}
	if st.n == 0 {
		s.occ[l>>6] &^= 1 << (l & 63)
		if s.occ[l>>6] == 0 {
			s.occW &^= 1 << (l >> 6)
		}
		// An emptied level, whose groups gave their slices back, goes
		// to the free list, for any exponent: kept by its exponent (up
		// to 32 of them), a new exponent with none free searched the
		// levels for one, which cost a single step on lognormal keys at
		// 2^10 a hundred instructions.
		s.lv[l-s.lo] = nil
		s.free = append(s.free, lv)
	}
}

// newLevel returns an empty level, reused from an emptied one if any.
func (s *Sampler) newLevel() *level {
	if k := len(s.free); k > 0 {
		lv := s.free[k-1]
		s.free = s.free[:k-1]
		return lv
	}
	// Eight at a time (39 kB), the others for the next new exponents: a
	// sampler whose keys keep reaching new exponents allocates rarely.
	block := new([8]level)
	for k := 7; k > 0; k-- {
		s.free = append(s.free, &block[k])
	}
	return &block[0]
}

// topLevel returns the highest level holding items, −1 if none.
func (s *Sampler) topLevel() int {
	if s.occW == 0 {
		return -1
	}
	w := bits.Len64(s.occW) - 1
	return w*64 + bits.Len64(s.occ[w]) - 1
}

// nextLevel returns the highest level below l holding items, −1 if none.
func (s *Sampler) nextLevel(l int) int {
	if l <= 0 {
		return -1
	}
	l--
	w := l >> 6
	if x := s.occ[w] & (^uint64(0) >> (63 - l&63)); x != 0 {
		return w*64 + bits.Len64(x) - 1
	}
	// The next word below w that is not 0.
	ws := s.occW & (1<<w - 1)
	if ws == 0 {
		return -1
	}
	w = bits.Len64(ws) - 1
	return w*64 + bits.Len64(s.occ[w]) - 1
}

// Set replaces the key of item i by a: O(1), the item leaves its group by
// a swap with the group's last entry and joins its new group at the end
// (within its level, with the level's count and state as they are:
// move), or, for a normal key that stays in its group (and sub-bucket),
// stays in its slot.
// Errors, in this order: ErrEmpty if there are no items, ErrIndex, ErrKey
// (a key that is not finite and ≥ 0, or that would make the exact sum of
// the keys exceed MaxSum); a rejected call changes nothing.
func (s *Sampler) Set(i int, a float64) error {
	if len(s.keys) == 0 {
		return reweighted.ErrEmpty
	}
	if err := check.Index(i, len(s.keys)); err != nil {
		return err
	}
	a, err := check.Key(a)
	if err != nil {
		return err
	}
	return s.set(i, a)
}

// set is Set for an item in range and a valid key (check.Key's, −0
// made 0).
func (s *Sampler) set(i int, a float64) error {
	old := s.keys[i]
	if a == old {
		return nil
	}
	if a > old && !s.fits(old, a) {
		return fmt.Errorf("%w: key %v would make the sum of keys exceed MaxSum", reweighted.ErrKey, a)
	}
	if (!sameGroup(old, a) || !s.replace(i, old, a)) && !(sameLevel(old, a) && s.move(i, old, a)) {
		s.shift(i, old, a)
	}
	s.keys[i] = a
	s.ver++
	s.keep(true, old, a, nil)
	return nil
}

// sameGroup reports whether old is a normal key and a lies in its group:
// the same exponent and six bits of mantissa. An update to such a key is
// made in the item's slot (replace); else, and for subnormal keys, the
// item leaves its group and joins the new one at the end. The test is a
// shift and a compare, inlined, which most updates fail.
// sameLevel reports whether old and a are normal keys of the same level
// (exponent), a shift and a compare inlined: an update across levels
// pays no more for move.
func sameLevel(old, a float64) bool {
	b0, b1 := math.Float64bits(old), math.Float64bits(a)
	return b0>>52 == b1>>52 && b0>>52 != 0
}

func sameGroup(old, a float64) bool {
	b0, b1 := math.Float64bits(old), math.Float64bits(a)
	return b0>>(52-bB) == b1>>(52-bB) && b0>>52 != 0
}

// replace sets the key of item i from old to a, normal keys of the same
// group, in its slot, if they lie in the same sub-bucket of a split group
// too: the counts and bounds stay, the exact sums change by the
// difference, and a published unit moves the key among its neighbours
// only (moveUnit). It reports whether it did.
func (s *Sampler) replace(i int, old, a float64) bool {
	b0, b1 := math.Float64bits(old), math.Float64bits(a)
	l, j := int(b0>>52)+51, int(b0>>(52-bB))&(nG-1) // a normal key's (locate)
	lv := s.lv[l-s.lo]
	k := -1
	if lv.sub[j] != nil {
		if k = subOf(old, l); subOf(a, l) != k {
			return false
		}
	}
	// One signed difference of the significands, added to each sum: the
	// exponents are equal, so it is the difference of the keys' bits.
	d := b1 - b0
	s.ls[l-s.lo].sum.addDiff(d)
	lv.gsum[j].addDiff(d)
	lv.bs[j>>3].addDiff(d)
	e := entry{uint32(b1), uint32(b1 >> 32), int32(i)}
	p := s.pos[i]
	if k >= 0 {
		sb := lv.sub[j]
		sb.ents[k][p] = e
		sb.sum[k].addDiff(d)
		sb.bs[k>>3].addDiff(d)
	} else {
		lv.ents[j][p] = e
	}
	if s.unitsAt(l) {
		s.moveUnit(l, j, k, b0, b1)
	}
	return true
}

// move moves item i from its key old to a, normal keys of the same level
// (sameLevel) in different groups (not sameGroup), both flat, as remove
// and insert would, published units edited as they edit them, and
// reports whether it could: not when either group is split or will be.
// Most updates of SRG keep the level (74 to 83%, 7 to 18% the group), and
// then the level's count, its bit and its reuse are as they were: a third
// less work than remove and insert.
func (s *Sampler) move(i int, old, a float64) bool {
	b0, b1 := math.Float64bits(old), math.Float64bits(a)
	l := int(b0>>52) + 51 // a normal key's level (locate)
	j0, j1 := int(b0>>(52-bB))&(nG-1), int(b1>>(52-bB))&(nG-1)
	lv := s.lv[l-s.lo]
	if j0 == j1 || lv.sub[j0] != nil || lv.sub[j1] != nil || lv.cnt[j1] >= kSplit {
		return false // (a normal key's level is at least 2·bB)
	}
	x, y := lv.ents[j0], lv.ents[j1]
	n0, n1 := len(x)-1, len(y)
	if n1 == 0 && cap(y) == 0 && len(s.spare[0]) > 0 {
		// An empty group's slice from the smallest pool, inline: where
		// groups hold a key or two (at 2^10), most moves start a group.
		y = s.takeSmall(0)
		lv.ents[j1] = y
	}
	if n1 == cap(y) {
		// A full slice: the calls, rare (3% of SRG's moves on mushrooms),
		// in a function of their own, so that this path keeps its values
		// in registers (the calls' spills cost a tenth of a move).
		s.moveSlow(lv, l, j0, j1, i, b0, b1)
	} else {
		p := s.pos[i]
		if p != int32(n0) {
			x[p] = x[n0]
			s.pos[x[p].item] = p
		}
		// Lengths only stored, with no write barrier (a slice re-sliced
		// into its own place): a pointer stored pays the barrier's check
		// and keeps values across its call.
		lv.ents[j0] = lv.ents[j0][:n0]
		lv.ents[j1] = lv.ents[j1][:n1+1]
		y[:n1+1][n1] = entry{uint32(b1), uint32(b1 >> 32), int32(i)}
		s.pos[i] = int32(n1)
		// pop's shrink, for a slice to step down or give back: none of
		// the least capacity that still holds entries (a call that did
		// nothing, for a sixth of SRG's moves on mushrooms).
		if 8*n0 <= 3*cap(x) && (cap(x) > minCap || n0 == 0) {
			if n0 == 0 && cap(x) == minCap && len(s.spare[0]) < cap(s.spare[0]) {
				// An emptied slice back to the smallest pool, inline.
				s.spare[0] = append(s.spare[0], &x[0])
				lv.ents[j0] = nil
			} else {
				lv.ents[j0] = s.shrink(x[:n0])
			}
		}
		s.moveSums(lv, l, j0, j1, b0, b1)
	}
	// The units last (moveSums with their calls, made non-leaf, cost 6
	// instructions an example more).
	if s.unitsAt(l) {
		s.editUnit(l, j0, -1, b0, false)
		s.editUnit(l, j1, -1, b1, true)
	}
	return true
}

// change moves item i from its key old to a, in another level or
// group (not replace's or move's case): cross for normal keys, its units
// out of line (37% of SRG's changes of level on mushrooms meet one, at
// the straddling group's level mod 64), else remove and insert.
func (s *Sampler) change(i int, old, a float64) {
	b0, b1 := math.Float64bits(old), math.Float64bits(a)
	if b0>>52 == 0 || b1>>52 == 0 || b0^b1 < 1<<52 || !s.cross(i, b0, b1) {
		s.remove(i, old)
		s.insert(i, a)
	} else if s.unitsAt(int(b0>>52)+51) || s.unitsAt(int(b1>>52)+51) {
		s.editUnits(b0, b1)
	}
}

// cross moves item i from its key of bits b0 to b1, normal keys of
// different levels, as remove and insert would but for the published
// units (editUnits), when both groups are flat and stay so, the new
// group's slice has room, the old one's no slice to step down, the new
// level holds items and the old one keeps some: then the levels' counts,
// bits and reuse are as they were, and no call is needed but the sums'.
// It reports whether it did; if not, nothing changed.
func (s *Sampler) cross(i int, b0, b1 uint64) bool {
	l0, l1 := int(b0>>52)+51, int(b1>>52)+51 // normal keys' levels (locate)
	k0, k1 := uint(l0-s.lo), uint(l1-s.lo)
	if k1 >= uint(len(s.ls)) || s.ls[k1].n == 0 || s.ls[k0].n == 1 {
		return false
	}
	lv0, lv1 := s.lv[k0], s.lv[k1]
	j0, j1 := int(b0>>(52-bB))&(nG-1), int(b1>>(52-bB))&(nG-1)
	// A flat group's count is its slice's length: the new group stays
	// flat below kSplit; the old one's slice steps down as pop's would.
	n0, c0, n1 := len(lv0.ents[j0])-1, cap(lv0.ents[j0]), len(lv1.ents[j1])
	if lv0.sub[j0] != nil || lv1.sub[j1] != nil || n1 >= kSplit || n1 == cap(lv1.ents[j1]) ||
		8*n0 <= 3*c0 && (c0 > minCap || n0 == 0) {
		return false
	}
	s.crossSums(lv0, lv1, k0, k1, j0, j1, b0, b1)
	// With no branch on whether the item is the last entry: then it
	// moves onto itself, and its slot is set last. Lengths only stored,
	// with no write barrier (a slice re-sliced into its own place).
	pos := s.pos
	p := pos[i]
	x := lv0.ents[j0]
	last := x[n0]
	x[p] = last
	pos[last.item] = p
	lv0.ents[j0] = lv0.ents[j0][:n0]
	y := lv1.ents[j1]
	y[:n1+1][n1] = entry{uint32(b1), uint32(b1 >> 32), int32(i)}
	lv1.ents[j1] = lv1.ents[j1][:n1+1]
	pos[i] = int32(n1)
	return true
}

// shift moves item i from its key old to a, normal keys of different
// levels, as remove and insert would, when both groups are flat and stay
// so and the new level lies within lv: the single Set's change of level.
// Unlike cross, it takes the cases most such changes meet where groups
// hold a key or two (an old group emptied, a new one started, a level
// emptied or filled) on its own path, the pools' usual case inline. The
// other changes it hands to remove and insert itself: refused by a call
// that returned, the split groups of 2^20 cost 44 instructions a step.
func (s *Sampler) shift(i int, old, a float64) {
	b0, b1 := math.Float64bits(old), math.Float64bits(a)
	if b0>>52 == 0 || b1>>52 == 0 || b0^b1 < 1<<52 {
		s.remove(i, old)
		s.insert(i, a)
		return
	}
	// The old group's split first: most changes of level at 2^20 meet
	// one, and the fewer instructions before it, the less they cost.
	l0 := int(b0>>52) + 51 // a normal key's level (locate)
	k0, j0 := uint(l0-s.lo), int(b0>>(52-bB))&(nG-1)
	lv0 := s.lv[k0]
	l1 := int(b1>>52) + 51
	k1, j1 := uint(l1-s.lo), int(b1>>(52-bB))&(nG-1)
	if lv0.sub[j0] != nil || k1 >= uint(len(s.lv)) ||
		s.lv[k1] != nil && (s.lv[k1].sub[j1] != nil || len(s.lv[k1].ents[j1]) >= kSplit) {
		s.remove(i, old)
		s.insert(i, a)
		return
	}
	lv1 := s.lv[k1]
	if lv1 == nil {
		// A new level: its groups are flat and empty (an emptied level
		// gave its slices back and merged its split groups).
		lv1 = s.newLevel()
		s.lv[k1] = lv1
	}
	// Out of the old group: its last entry into the item's slot (onto
	// itself if the item is last), then pop's shrink, an emptied slice
	// of the least capacity back to its pool inline.
	pos := s.pos
	p := pos[i]
	x := lv0.ents[j0]
	n0, c0 := len(x)-1, cap(x)
	last := x[n0]
	x[p] = last
	pos[last.item] = p
	switch {
	case 8*n0 > 3*c0 || c0 == minCap && n0 > 0:
		lv0.ents[j0] = lv0.ents[j0][:n0] // a length only: no write barrier
	case c0 == minCap && len(s.spare[0]) < cap(s.spare[0]):
		s.spare[0] = append(s.spare[0], &x[0])
		lv0.ents[j0] = nil
	default:
		lv0.ents[j0] = s.shrink(x[:n0])
	}
	// Into the new group: an empty group's slice from the smallest pool
	// inline, a full one grown out of line.
	y := lv1.ents[j1]
	n1 := len(y)
	if n1 == cap(y) {
		if n1 == 0 && len(s.spare[0]) > 0 {
			y = s.takeSmall(0)
		} else {
			y = s.grow(y)
		}
		lv1.ents[j1] = y[:n1+1]
	} else {
		lv1.ents[j1] = lv1.ents[j1][:n1+1]
	}
	y[:n1+1][n1] = entry{uint32(b1), uint32(b1 >> 32), int32(i)}
	pos[i] = int32(n1)
	if s.ls[k1].n == 0 {
		s.occ[l1>>6] |= 1 << (l1 & 63)
		s.occW |= 1 << (l1 >> 6)
	}
	s.crossSums(lv0, lv1, k0, k1, j0, j1, b0, b1)
	if s.ls[k0].n == 0 {
		// An emptied level to the free list, as remove leaves it.
		s.occ[l0>>6] &^= 1 << (l0 & 63)
		if s.occ[l0>>6] == 0 {
			s.occW &^= 1 << (l0 >> 6)
		}
		s.lv[k0] = nil
		s.free = append(s.free, lv0)
	}
	if s.unitsAt(l0) || s.unitsAt(l1) {
		s.editUnits(b0, b1)
	}
}

// crossSums is cross's change to the counts and sums: the key of bits
// b0 in group j0 of the level at lv0 (k0 in ls) becomes b1 in group j1
// of the level at lv1 (k1), both levels normal.
func (s *Sampler) crossSums(lv0, lv1 *level, k0, k1 uint, j0, j1 int, b0, b1 uint64) {
	g0, g1 := b0&(1<<52-1)|1<<52, b1&(1<<52-1)|1<<52 // sig64
	d0, d1 := uint64(nG+1+j0), uint64(nG+1+j1)       // bnd(l, j) of a normal level
	st := &s.ls[k0]
	st.n--
	st.sum.sub(g0)
	st.wb -= d0
	lv0.cnt[j0]--
	lv0.gsum[j0].sub(g0)
	lv0.bb[j0>>3] -= d0
	lv0.bc[j0>>3]--
	lv0.bs[j0>>3].sub(g0)
	if lv0.cnt[j0] == 0 {
		lv0.occ &^= 1 << j0
	}
	st = &s.ls[k1]
	st.n++
	st.sum.add(g1)
	st.wb += d1
	lv1.occ |= 1 << j1
	lv1.cnt[j1]++
	lv1.gsum[j1].add(g1)
	lv1.bb[j1>>3] += d1
	lv1.bc[j1>>3]++
	lv1.bs[j1>>3].add(g1)
}

// editUnits edits the published units of the flat groups of the keys of
// bits b0, removed, and b1, inserted, normal keys: after cross.
func (s *Sampler) editUnits(b0, b1 uint64) {
	l0, l1 := int(b0>>52)+51, int(b1>>52)+51
	if s.unitsAt(l0) {
		s.editUnit(l0, int(b0>>(52-bB))&(nG-1), -1, b0, false)
	}
	if s.unitsAt(l1) {
		s.editUnit(l1, int(b1>>(52-bB))&(nG-1), -1, b1, true)
	}
}

// moveSums is move's change to the counts and sums of level l: the key
// of bits b0 in group j0 becomes b1 in group j1.
func (s *Sampler) moveSums(lv *level, l, j0, j1 int, b0, b1 uint64) {
	g0, g1 := b0&(1<<52-1)|1<<52, b1&(1<<52-1)|1<<52 // sig64
	st := &s.ls[l-s.lo]
	st.sum.addDiff(b1 - b0)
	st.wb += uint64(j1 - j0) // bnd(l, j1) − bnd(l, j0)
	lv.cnt[j0]--
	lv.gsum[j0].sub(g0)
	lv.bb[j0>>3] -= uint64(nG + 1 + j0) // bnd(l, j0)
	lv.bc[j0>>3]--
	lv.bs[j0>>3].sub(g0)
	if lv.cnt[j0] == 0 {
		lv.occ &^= 1 << j0
	}
	lv.occ |= 1 << j1
	lv.cnt[j1]++
	lv.gsum[j1].add(g1)
	lv.bb[j1>>3] += uint64(nG + 1 + j1)
	lv.bc[j1>>3]++
	lv.bs[j1>>3].add(g1)
}

// moveSlow is move past its checks when the new group's slice grows: pop
// and push.
func (s *Sampler) moveSlow(lv *level, l, j0, j1, i int, b0, b1 uint64) {
	if moved := s.pop(&lv.ents[j0], s.pos[i]); moved >= 0 {
		s.pos[moved] = s.pos[i]
	}
	s.pos[i] = s.push(&lv.ents[j1], entry{uint32(b1), uint32(b1 >> 32), int32(i)})
	s.moveSums(lv, l, j0, j1, b0, b1)
}

// fits reports whether the exact sum of the keys, with a in place of one
// key old, is at most MaxSum.
func (s *Sampler) fits(old, a float64) bool {
	// The sum is below n·2^(top+1) units, top the highest level of the
	// keys and a, and n < 2^31: 64 times the words of occ in use bound
	// the keys' top + 1, the exponent + 52 a's, and far below MaxSum
	// needs no more. Inlined, with no search of occ: Set's usual case.
	if 64*bits.Len64(s.occW) <= maxSumLevel-31 && int(math.Float64bits(a)>>52)+52 <= maxSumLevel-31 {
		return true
	}
	return s.fitsExact(old, a)
}

// fitsExact is fits past its quick test: the top level found, and if
// that is not enough, the exact sum.
func (s *Sampler) fitsExact(old, a float64) bool {
	top := s.topLevel()
	if a > 0 {
		l, _ := locate(a)
		top = max(top, l)
	}
	// The sum is below n·2^(top+1) units: far below MaxSum needs no more.
	if top+1+bits.Len(uint(len(s.keys))) <= maxSumLevel {
		return true
	}
	sc := s.getScratch()
	defer s.putScratch(sc)
	t := s.exactTotal(&sc.x, &sc.y, &sc.z)
	t.Sub(t, unitsInt(&sc.y, old))
	t.Add(t, unitsInt(&sc.y, a))
	return t.Cmp(maxSumUnits) <= 0
}

var maxSumUnits = new(big.Int).Lsh(big.NewInt(1), maxSumLevel)

// exactTotal sets z to the exact sum of all keys in units of 2^-1074.
func (s *Sampler) exactTotal(z, tmp, tmp2 *big.Int) *big.Int {
	z.SetUint64(0)
	for l := s.topLevel(); l >= 0; l = s.nextLevel(l) {
		z.Add(z, s.ls[l-s.lo].sum.bigInt(tmp, tmp2, uint(unitShift(l))))
	}
	return z
}

// unitsInt sets z to a in units of 2^-1074.
func unitsInt(z *big.Int, a float64) *big.Int {
	if a == 0 {
		return z.SetUint64(0)
	}
	l, _ := locate(a)
	z.SetUint64(sig64(a))
	return z.Lsh(z, uint(unitShift(l)))
}

// Load replaces all keys by keys, one per item, in O(n). Errors: ErrBatch
// unless len(keys) is the number of items, ErrKey for a key Set would
// refuse (the first, by index) or keys whose exact sum exceeds MaxSum; a
// rejected call changes nothing. With no items, Load(nil) does nothing.
func (s *Sampler) Load(keys []float64) error {
	n := len(s.keys)
	if len(keys) != n {
		return fmt.Errorf("%w: %d keys for %d items", reweighted.ErrBatch, len(keys), n)
	}
	sc := s.getScratch()
	defer s.putScratch(sc)
	total := sc.x.SetUint64(0)
	for i, a := range keys {
		a, err := check.Key(a)
		if err != nil {
			return fmt.Errorf("key of item %d: %w", i, err)
		}
		total.Add(total, unitsInt(&sc.y, a))
	}
	if total.Cmp(maxSumUnits) > 0 {
		return fmt.Errorf("%w: the keys sum to more than MaxSum", reweighted.ErrKey)
	}
	for i := n - 1; i >= 0; i-- {
		s.remove(i, s.keys[i])
	}
	for i, a := range keys {
		a += 0
		s.keys[i] = a
		s.insert(i, a)
	}
	s.ver++
	s.keep(false, 0, 0, sc)
	return nil
}

// SetBatch sets the key of items[k] to keys[k] for every k, all or
// nothing, as reweighted.BatchSetter asks: every index and key is checked
// in order, then the exact sum after the batch against MaxSum, before
// anything changes; an item that appears more than once takes its last
// key.
func (s *Sampler) SetBatch(items []int, keys []float64) error {
	if len(s.keys) == 0 {
		return reweighted.ErrEmpty
	}
	n := len(s.keys)
	if len(keys) != len(items) {
		_, err := check.Batch(items, keys, n)
		return err
	}
	// The batch's check, in one pass with the items' keys and slots read
	// ahead of the updates, independent loads, which the updates would
	// read each only after the last update's work: without, an SRG epoch
	// took 0.5% (ijcnn1) to 2% (phishing, w8a) longer; reading each item's
	// entry in its group too, up to 2.5% longer than with this. The check
	// and the read-ahead in two passes cost 33 instructions an example of
	// SRG on mushrooms, in one 19.
	keys = keys[:len(items)]
	now, pos := s.keys, s.pos[:n]
	var most64, sink uint64
	for e, i := range items {
		b := math.Float64bits(keys[e])
		if !check.BatchEntry(i, b, n) {
			_, err := check.Batch(items, keys, n)
			return err
		}
		most64 = max(most64, b<<1>>1)
		sink += math.Float64bits(now[i]) + uint64(pos[i])
	}
	most := math.Float64frombits(most64)
	top := s.topLevel()
	if most > 0 {
		l, _ := locate(most)
		top = max(top, l)
	}
	sc := s.getScratch()
	defer s.putScratch(sc)
	sc.sink = int32(sink)
	if top+1+bits.Len(uint(n)) > maxSumLevel {
		ch, nk := s.lastChanges(items, keys, sc.seenBits(n), sc.chItems[:0], sc.chKeys[:0])
		sc.chItems, sc.chKeys = ch, nk
		t := s.exactTotal(&sc.x, &sc.y, &sc.z)
		for e, i := range ch {
			t.Sub(t, unitsInt(&sc.y, s.keys[i]))
			t.Add(t, unitsInt(&sc.y, nk[e]))
		}
		if t.Cmp(maxSumUnits) > 0 {
			return fmt.Errorf("%w: the keys after the batch would sum to more than MaxSum", reweighted.ErrKey)
		}
	}
	if n >= touchMin {
		s.touch(items, keys, sc)
	}
	// Each entry in turn, as Set one by one would: an item's last entry
	// leaves its last key, with no pass to find the last entries first (a
	// batch of SRG without replacement repeats no item; that pass cost 38
	// instructions an example of SRG on mushrooms).
	changed := false
	for e, i := range items {
		a := keys[e] + 0 // −0 read as 0
		old := now[i]
		if a == old {
			continue
		}
		changed = true
		// The key stored first, while its operands are in registers:
		// the updates take old and a as arguments and read no key of
		// s.keys (after their calls, it took reloading them).
		now[i] = a
		// sameGroup and sameLevel from one exclusive or; a key that
		// replace refuses is in a split group, which move refuses too.
		done := false
		if b0, x := math.Float64bits(old), math.Float64bits(old)^math.Float64bits(a); x < 1<<52 && b0 >= 1<<52 {
			if x < 1<<(52-bB) {
				done = s.replace(i, old, a)
			} else {
				done = s.move(i, old, a)
			}
		}
		if !done {
			s.change(i, old, a)
		}
	}
	if changed {
		s.ver++
		s.keep(false, 0, 0, sc)
	}
	return nil
}

// lastChanges appends to ch and nk, from the end of the batch, the last
// entry of each item of items whose key keys changes (−0 read as 0), and
// returns them. seen is a bit set of n bits, clear, and left clear.
func (s *Sampler) lastChanges(items []int, keys []float64, seen bitset, ch []int, nk []float64) ([]int, []float64) {
	now := s.keys
	for k := len(items) - 1; k >= 0; k-- {
		i := items[k]
		if !seen.claim(i) {
			continue
		}
		if a := keys[k] + 0; a != now[i] {
			ch, nk = append(ch, i), append(nk, a)
		}
	}
	seen.clear(items)
	return ch, nk
}

// touchMin is the number of items from which SetBatch touches the memory
// of its updates first, and DrawBatch makes its attempts in chunks (far):
// below, some 10 MB or less, the sampler stays in the last-level cache,
// whose latency out-of-order execution mostly hides, and the touches and
// passes only add work. A batch step of levels over gonum's (abbench, 8
// rounds, 2 MB of L2 and 32 MB of L3 cache, before touch read in three
// passes), with them and without: at 2^17, 0.85 and 0.74; at 2^18, 0.95
// and 1.00; at 2^19, 0.97 and 1.10; at 2^20, 0.79 and 1.12. An SRG epoch
// on w8a and ijcnn1 (about 50,000 examples) costs 3% less without
// touches, and more with chunks of attempts (2.21 SGD epochs on ijcnn1,
// against 1.97).
const touchMin = 1 << 18

// touch reads, for every entry of a batch, the memory its update will
// read and write: the item's key and slot, its group's last entry, the
// slot of the item that will move into it, and the end of the new key's
// group, and for a split group the count and sums of the sub-bucket (4%
// to 8% of a batch step at 2^20; the level's count and sum besides gained
// nothing). It reads in passes, each of loads that do not depend on each
// other, so that their cache misses overlap: the keys and slots
// (SetBatch's first pass, with its check); the groups, which the keys
// locate; the slots of the items that the groups' last entries name. The
// updates, whose loads do depend on each other, then find the lines in
// cache. The keys read in the first pass, rather
// than in the second, where they start each item's chain of loads, took
// a batch step at 2^20 from 0.82 of gonum's to 0.72 to 0.79 (abbench, 8
// rounds); the third pass, rather than those slots read at the end of
// each chain, to 0.68 to 0.77.
func (s *Sampler) touch(items []int, keys []float64, sc *scratch) {
	sink := sc.sink
	lasts := sc.lasts[:0]
	for e, i := range items {
		if old := s.keys[i]; old != 0 {
			l, j := locate(old)
			lv := s.lv[l-s.lo]
			es := lv.ents[j]
			if sb := lv.sub[j]; sb != nil {
				k := subOf(old, l)
				es = sb.ents[k]
				sink += sb.cnt[k] + int32(sb.sum[k].lo) + int32(sb.bs[k>>3].lo)
			}
			if p := int(s.pos[i]); p < len(es) {
				last := es[len(es)-1].item
				sink += es[p].item
				lasts = append(lasts, last)
			}
		}
		if a := keys[e]; a != 0 {
			l, j := locate(a)
			if lv := s.level(l); lv != nil {
				es := lv.ents[j]
				if sb := lv.sub[j]; sb != nil {
					k := subOf(a, l)
					es = sb.ents[k]
					sink += sb.cnt[k] + int32(sb.sum[k].lo) + int32(sb.bs[k>>3].lo)
				}
				if len(es) > 0 {
					sink += es[len(es)-1].item
				}
			}
		}
	}
	for _, i := range lasts {
		sink += s.pos[i]
	}
	sc.lasts = lasts
	sc.sink = sink
}

// The heap a level and a split group's sub-buckets take: what the
// allocator hands out for a block of eight levels (a size class of 28 kB,
// 3,584 bytes a level, as for New's block of four), and for one sub (a
// size class a few bytes above its size).
var (
	levelAlloc = cap(slices.Grow([]byte(nil), int(unsafe.Sizeof([8]level{})))) / 8
	subAlloc   = cap(slices.Grow([]byte(nil), int(unsafe.Sizeof(sub{}))))
)

// pages returns the heap an array of b bytes takes: above 32 kB, the
// allocator hands out whole pages of 8 kB.
func pages(b int) int {
	if b > 32<<10 {
		return (b + 8191) &^ 8191
	}
	return b
}

// Bytes returns the memory the sampler holds, in bytes: its arrays, its
// levels (those emptied included, kept for reuse) and their groups'
// capacity.
func (s *Sampler) Bytes() int {
	b := int(unsafe.Sizeof(*s)) + pages(8*cap(s.keys)) + pages(4*cap(s.pos)) + pages(4*cap(s.zeros)) + pages(8*cap(s.lv)) + pages(int(unsafe.Sizeof(lstat{}))*cap(s.ls)) + 8*cap(s.free)
	subBytes := func(sb *sub) int {
		t := subAlloc
		for _, es := range sb.ents {
			t += int(unsafe.Sizeof(entry{})) * cap(es)
		}
		return t
	}
	lvBytes := func(lv *level) int {
		t := levelAlloc
		for j, es := range lv.ents {
			t += int(unsafe.Sizeof(entry{})) * cap(es)
			if sb := lv.sub[j]; sb != nil {
				t += subBytes(sb)
			}
		}
		return t
	}
	b += 8 * cap(s.subs)
	for k, sp := range s.spare {
		b += 8*cap(sp) + int(unsafe.Sizeof(entry{}))*minCap<<k*len(sp)
	}
	for _, l := range s.big {
		b += 24 * cap(l)
	}
	b += int(unsafe.Sizeof(entry{})) * s.bigHeld
	for _, sb := range s.subs {
		b += subBytes(sb)
	}
	for _, lv := range s.lv {
		if lv != nil {
			b += lvBytes(lv)
		}
	}
	for _, lv := range s.free {
		b += lvBytes(lv)
	}
	for q := range s.cur {
		if u := s.cur[q].Load(); u != nil {
			b += u.bytes()
		}
	}
	if sc := s.spareSc.Load(); sc != nil {
		b += sc.bytes()
	}
	b += s.kept.tab.bytes()
	for q := range s.spareU {
		if u := s.spareU[q].Load(); u != nil {
			b += u.bytes()
		}
	}
	return b
}

// Check recomputes every count, sum, bound weight, block sum, bitmap and
// position from the keys and compares; the error names the first broken
// invariant.
func (s *Sampler) Check() error {
	n := len(s.keys)
	if len(s.pos) != n {
		return fmt.Errorf("levels: %d positions for %d items", len(s.pos), n)
	}
	if err := s.checkPools(); err != nil {
		return err
	}
	var want [nLevels]*level
	wantLs := make([]lstat, nLevels)
	zeros := 0
	for i, a := range s.keys {
		if a == 0 {
			zeros++
			p := int(s.pos[i])
			if p >= len(s.zeros) || s.zeros[p] != int32(i) {
				return fmt.Errorf("levels: item %d (key 0) not at its position %d of the zero keys", i, p)
			}
			continue
		}
		if !(a > 0 && a <= reweighted.MaxSum) {
			return fmt.Errorf("levels: item %d holds key %v", i, a)
		}
		l, j := locate(a)
		lv := s.level(l)
		if lv == nil {
			return fmt.Errorf("levels: item %d (key %v) in level %d, which is not allocated", i, a, l)
		}
		p := int(s.pos[i])
		es := lv.ents[j]
		w := want[l]
		if w == nil {
			w = new(level)
			want[l] = w
		}
		if sb := lv.sub[j]; sb != nil {
			k := subOf(a, l)
			es = sb.ents[k]
			if w.sub[j] == nil {
				w.sub[j] = new(sub)
			}
			ws := w.sub[j]
			ws.occ |= 1 << k
			ws.cnt[k]++
			ws.sum[k].add(sig64(a))
		}
		if p >= len(es) || es[p] != (mkEntry(a, i)) {
			return fmt.Errorf("levels: item %d (key %v) not at its position %d of level %d group %d", i, a, p, l, j)
		}
		g := sig64(a)
		ws := &wantLs[l]
		ws.n++
		ws.sum.add(g)
		ws.wb += bnd(l, j)
		w.occ |= 1 << j
		w.cnt[j]++
		w.gsum[j].add(g)
	}
	if zeros != len(s.zeros) {
		return fmt.Errorf("levels: %d zero keys, %d in the list of zeros", zeros, len(s.zeros))
	}
	for l := range nLevels {
		lv, w, st := s.level(l), want[l], s.stat(l)
		if (s.occ[l>>6]>>(l&63))&1 != 0 != (w != nil) {
			return fmt.Errorf("levels: level %d marked occupied %v, holds items %v", l, w == nil, w != nil)
		}
		if w == nil {
			if lv != nil || st != (lstat{}) {
				return fmt.Errorf("levels: level %d holds no items but is kept, count %d", l, st.n)
			}
			continue
		}
		if ws := wantLs[l]; st.n != ws.n || st.sum != ws.sum {
			return fmt.Errorf("levels: level %d count/sum %d/%v, recomputed %d/%v", l, st.n, st.sum, ws.n, ws.sum)
		} else if st.wb != ws.wb {
			return fmt.Errorf("levels: level %d bound weight %d, recomputed %d", l, st.wb, ws.wb)
		}
		if lv.occ != w.occ {
			return fmt.Errorf("levels: level %d group bitmap %x, recomputed %x", l, lv.occ, w.occ)
		}
		for j := range nG {
			held := len(lv.ents[j])
			if sb := lv.sub[j]; sb != nil {
				if err := checkSub(l, j, sb, w.sub[j], int(lv.cnt[j])); err != nil {
					return err
				}
				held += int(lv.cnt[j])
			} else if l >= 2*bB && lv.cnt[j] > kSplit {
				return fmt.Errorf("levels: level %d group %d holds %d items unsplit", l, j, lv.cnt[j])
			}
			if lv.cnt[j] != w.cnt[j] || lv.gsum[j] != w.gsum[j] || held != int(w.cnt[j]) {
				return fmt.Errorf("levels: level %d group %d count/sum/entries %d/%v/%d, recomputed %d/%v", l, j, lv.cnt[j], lv.gsum[j], held, w.cnt[j], w.gsum[j])
			}
			w.bb[j>>3] += uint64(w.cnt[j]) * bnd(l, j)
			w.bc[j>>3] += uint32(w.cnt[j])
			w.bs[j>>3] = w.bs[j>>3].plus(w.gsum[j])
		}
		if lv.bb != w.bb || lv.bc != w.bc || lv.bs != w.bs {
			return fmt.Errorf("levels: level %d block sums differ from the recomputed ones", l)
		}
	}
	for w, x := range s.occ {
		if (x != 0) != (s.occW>>w&1 != 0) {
			return fmt.Errorf("levels: word %d of the level bitmap is %x, marked %v", w, x, s.occW>>w&1 != 0)
		}
	}
	// The walk down the occupied levels, from the top, that Solve and the
	// table make: every level that holds items, in order, and no other.
	next := s.topLevel()
	for l := nLevels - 1; l >= 0; l-- {
		if want[l] == nil {
			continue
		}
		if next != l {
			return fmt.Errorf("levels: the walk down the levels gives %d, the next level holding items is %d", next, l)
		}
		next = s.nextLevel(l)
	}
	if next != -1 {
		return fmt.Errorf("levels: the walk down the levels gives %d below the lowest level holding items", next)
	}
	if err := s.checkUnit(); err != nil {
		return err
	}
	return s.checkKept()
}

// checkUnit compares the published sorted units, unless stale, with their
// keys.
func (s *Sampler) checkUnit() error {
	if s.stale.Load() {
		if s.unitLv.Load() != ^uint64(0) {
			return fmt.Errorf("levels: the units are stale but the mask of their levels is %#x", s.unitLv.Load())
		}
		return nil
	}
	m := s.unitLv.Load()
	if w := s.want.Load(); w != 0 && m&unitBit(int(w>>16)) == 0 {
		return fmt.Errorf("levels: the unit wanted, of level %d, is not in the mask of their levels %#x", w>>16, m)
	}
	for q := range s.cur {
		if u := s.cur[q].Load(); u != nil {
			if m&unitBit(int(u.l)) == 0 {
				return fmt.Errorf("levels: the published unit of level %d is not in the mask of their levels %#x", u.l, m)
			}
			if err := s.checkUnitOf(u); err != nil {
				return err
			}
		}
	}
	return nil
}

// checkUnitOf compares the published unit u with its keys.
func (s *Sampler) checkUnitOf(u *unit) error {
	l, j, k := int(u.l), int(u.j), int(u.k)
	var es []entry
	if lv := s.level(l); lv != nil {
		es = lv.ents[j]
		if sb := lv.sub[j]; sb != nil {
			if k < 0 {
				return fmt.Errorf("levels: sorted unit of level %d group %d, flat, but the group is split", l, j)
			}
			es = sb.ents[k]
		} else if k >= 0 {
			return fmt.Errorf("levels: sorted unit of level %d group %d sub-bucket %d, but the group is flat", l, j, k)
		}
	}
	want := make([]uint64, 0, len(es))
	for _, e := range es {
		want = append(want, math.Float64bits(e.key()))
	}
	slices.Sort(want)
	slices.Reverse(want)
	if !slices.Equal(u.keys, want) {
		return fmt.Errorf("levels: sorted unit of level %d group %d sub-bucket %d holds %d keys, not the group's %d sorted", l, j, k, len(u.keys), len(want))
	}
	var acc u128
	nb := len(want)>>blkBits + 1
	if len(u.blk) != nb || len(u.sup) != (nb+supMask)>>supBits || u.off != uint64(unitShift(l))<<52 {
		return fmt.Errorf("levels: sorted unit of level %d group %d sub-bucket %d: %d block sums and %d of super-blocks for %d keys", l, j, k, len(u.blk), len(u.sup), len(want))
	}
	for x := 0; x < nb; x += 1 << supBits {
		if u.blk[x] != (u128{}) {
			return fmt.Errorf("levels: sorted unit of level %d group %d sub-bucket %d: block %d starts a super-block, but its sum within it is %v", l, j, k, x, u.blk[x])
		}
	}
	for q := 0; q <= len(want); q++ {
		if q&(1<<blkBits-1) == 0 && u.blockPrefix(q>>blkBits) != acc {
			return fmt.Errorf("levels: sorted unit of level %d group %d sub-bucket %d: the sum of the %d largest is %v, recomputed %v", l, j, k, q, u.blockPrefix(q>>blkBits), acc)
		}
		if q < len(want) {
			acc.add(sig64(math.Float64frombits(want[q])))
		}
	}
	return nil
}

// checkSub compares the sub-buckets sb of group j of level l, holding c
// items, with those recomputed, w.
func checkSub(l, j int, sb, w *sub, c int) error {
	if w == nil {
		w = new(sub)
	}
	if c < kMerge {
		return fmt.Errorf("levels: level %d group %d split with %d items", l, j, c)
	}
	if sb.occ != w.occ || sb.cnt != w.cnt || sb.sum != w.sum {
		return fmt.Errorf("levels: level %d group %d sub-bucket bitmap/counts/sums differ from the recomputed ones", l, j)
	}
	for k := range nG {
		if len(sb.ents[k]) != int(sb.cnt[k]) {
			return fmt.Errorf("levels: level %d group %d sub-bucket %d holds %d entries, count %d", l, j, k, len(sb.ents[k]), sb.cnt[k])
		}
		w.bc[k>>3] += uint32(w.cnt[k])
		w.bs[k>>3] = w.bs[k>>3].plus(w.sum[k])
	}
	if sb.bc != w.bc || sb.bs != w.bs {
		return fmt.Errorf("levels: level %d group %d sub-bucket block sums differ from the recomputed ones", l, j)
	}
	return nil
}

// scratch is the working memory of a call, pooled: the read methods may
// run concurrently and write nothing shared.
type scratch struct {
	x, y, z, w big.Int
	cand       []uint64 // the straddling unit's keys inside t*'s bracket, sorted
	bkt        []int32  // the counts of the buckets of a unit's sort (sortKeys)
	pre        []u128   // their prefix sums
	seen       bitset
	chItems    []int
	chKeys     []float64
	lasts      []int32 // touch: the items that the updates move into a slot
	tab        table
	tails      tails
	probs      []float64 // drawRest's tree
	left       []int32   // drawRestUniform's items left
	st         stream    // DrawBatch's attempts
	guide      guide     // DrawBatch's guide to its table's rows
	flat       flat      // DrawBatch's proposal over the head's groups
	fen        []uint64  // drawLeft's tree of the flat groups' weights
	gone       []int32   // drawLeft's items drawn, by flat group
	swap       swTab     // drawLeft's slots swapped
	sink       int32     // what touch read, kept so that its loads stay
	hint       hint      // where the last Solve with this scratch found t*
	tests      int       // predicate tests made, which the tests count
	o          sol       // a solution made for one call
	quiet      bool      // the call reads no published unit and publishes none (Check)
	writer     bool      // the call is a writer's, which runs alone (unitOf)
	hop        bool      // the writer tries a unit t* may have moved to (unitOf)
	memo       memo      // what o and tab hold
}

var scratchPool = sync.Pool{New: func() any {
	// Room for the tables of a few hundred levels and a large bracket, so
	// that a sampler whose keys reach a new level allocates nothing.
	sc := new(scratch)
	sc.cand, sc.pre = make([]uint64, 0, 256), make([]u128, 0, 257)
	sc.tab.rows = make([]row, 0, 256)
	sc.tab.heads = make([]int32, 0, 256)
	sc.tails.tlv = make([]int32, 0, 256)
	sc.tails.tcum = make([]int, 0, 256)
	return sc
}}

// getScratch returns working memory for a call: the sampler's own if no
// other call holds it, else one from the pool. A collection empties a
// sync.Pool, and SRG's loop, which allocates, runs one every so often; the
// sampler keeps one scratch across collections, so that a loop of calls
// one at a time allocates nothing, and concurrent reads take the others
// from the pool.
func (s *Sampler) getScratch() *scratch {
	if sc := s.spareSc.Swap(nil); sc != nil {
		return sc
	}
	return scratchPool.Get().(*scratch)
}

// putScratch gives back the scratch of a call that has finished with it.
func (s *Sampler) putScratch(sc *scratch) {
	if !s.spareSc.CompareAndSwap(nil, sc) {
		scratchPool.Put(sc)
	}
}

// bytes returns the memory sc holds, its big integers aside.
func (sc *scratch) bytes() int {
	return int(unsafe.Sizeof(*sc)) + 8*cap(sc.cand) + 4*cap(sc.bkt) + int(unsafe.Sizeof(u128{}))*cap(sc.pre) + 8*cap(sc.seen) +
		8*cap(sc.chItems) + 8*cap(sc.chKeys) + 4*cap(sc.lasts) + 8*cap(sc.probs) + 4*cap(sc.left) + sc.tab.bytes() + 4*cap(sc.tails.tlv) + 8*cap(sc.tails.tcum) +
		8*cap(sc.flat.ends) + 2*cap(sc.flat.id) + 2*cap(sc.flat.gd) + 8*cap(sc.fen) + 4*cap(sc.gone) + 8*cap(sc.swap.keys) + 4*cap(sc.swap.vals)
}

// bytes returns the memory of t's slices.
func (t *table) bytes() int {
	return int(unsafe.Sizeof(row{}))*cap(t.rows) + 4*cap(t.heads)
}

// seenBits returns a clear bit set of n bits.
func (sc *scratch) seenBits(n int) bitset {
	if w := (n + 63) / 64; len(sc.seen) < w {
		sc.seen = make(bitset, w)
	}
	return sc.seen
}

// bitset is a set of items, a bit each.
type bitset []uint64

// has reports whether i is in the set.
func (s bitset) has(i int) bool { return s[i>>6]&(1<<(i&63)) != 0 }

// add puts i in the set.
func (s bitset) add(i int) { s[i>>6] |= 1 << (i & 63) }

// claim puts i in the set and reports whether it was not there.
func (s bitset) claim(i int) bool {
	w, b := &s[i>>6], uint64(1)<<(i&63)
	old := *w
	*w = old | b
	return old&b == 0
}

// clear takes the items of x out of the set.
func (s bitset) clear(x []int) {
	for _, i := range x {
		s[i>>6] &^= 1 << (i & 63)
	}
}
