package levels

import (
	"encoding"
	"encoding/binary"
	"fmt"
	"slices"

	"github.com/reweighted/reweighted"
)

// The saved state of a Sampler is that of reweighted.AppendState, with its
// layout.
var (
	_ encoding.BinaryMarshaler   = (*Sampler)(nil)
	_ encoding.BinaryAppender    = (*Sampler)(nil)
	_ encoding.BinaryUnmarshaler = (*Sampler)(nil)
)

// layoutTag names the extension of a saved state that holds a levels
// sampler's layout.
const layoutTag = "LVL1"

// The layout, the extension of the saved state that a levels sampler
// writes under its tag, is specified byte by byte beside the saved state
// itself, in the module's docs/sampler.md. The draws of a levels sampler
// for a given source depend on the order of the items inside each group
// (a slice with swap-removal, whose order depends on the history) and on
// which groups are split; the keys decide the rest. A sampler restored
// from its layout holds its items in the same slots, so it draws what the
// saved one would have drawn. The items are written zeros first, then by
// level, group and sub-bucket, each in slot order; a reader puts each
// item at the end of its group as it comes, and then splits the groups
// listed, which keeps the order of the items inside each sub-bucket.

// layoutSize returns the length of the layout's extension.
func (s *Sampler) layoutSize() int { return 4 + 4*len(s.keys) + 4 + 4*s.splits() }

// splits returns the number of split groups.
func (s *Sampler) splits() int {
	m := 0
	for l := s.topLevel(); l >= 0; l = s.nextLevel(l) {
		for j := range nG {
			if s.level(l).sub[j] != nil {
				m++
			}
		}
	}
	return m
}

// appendLayout appends the layout's extension to b.
func (s *Sampler) appendLayout(b []byte) []byte {
	b = append(b, layoutTag...)
	for _, i := range s.zeros {
		b = binary.LittleEndian.AppendUint32(b, uint32(i))
	}
	var split []uint32
	for k, lv := range s.lv {
		l := s.lo + k // the level, which the split groups name
		if lv == nil || s.ls[k].n == 0 {
			continue
		}
		for j := range nG {
			lv.each(j, func(e entry) { b = binary.LittleEndian.AppendUint32(b, uint32(e.item)) })
			if lv.sub[j] != nil {
				split = append(split, uint32(l*nG+j))
			}
		}
	}
	b = binary.LittleEndian.AppendUint32(b, uint32(len(split)))
	for _, g := range split {
		b = binary.LittleEndian.AppendUint32(b, g)
	}
	return b
}

// AppendBinary appends the saved state of s to b: its keys, in the format
// of reweighted.AppendState, and its layout, which only a levels sampler
// reads, so that a restored sampler draws what s would have drawn. It
// implements encoding.BinaryAppender and never fails. It may not run
// concurrently with a write.
func (s *Sampler) AppendBinary(b []byte) ([]byte, error) {
	return reweighted.AppendState(b, s, s.appendLayout), nil
}

// MarshalBinary returns the saved state of s, as AppendBinary appends it.
// It implements encoding.BinaryMarshaler and never fails.
func (s *Sampler) MarshalBinary() ([]byte, error) {
	return s.AppendBinary(make([]byte, 0, reweighted.StateSize(len(s.keys), s.layoutSize())))
}

// UnmarshalBinary replaces s, its number of items included, by the
// sampler of a saved state, in O(n). A state that a levels sampler wrote
// restores its layout too: the restored sampler, given the same calls and
// identically seeded sources, draws what the saved one would have drawn,
// bit for bit. A state that another backend wrote restores its keys, laid
// out as Load lays them out. It implements encoding.BinaryUnmarshaler.
// Errors wrap reweighted.ErrFormat (and reweighted.ErrKey for keys Set
// would refuse), among them a layout that does not fit the keys; a
// rejected call changes nothing.
func (s *Sampler) UnmarshalBinary(data []byte) error {
	keys, ext, err := reweighted.DecodeState(data)
	if err != nil {
		return err
	}
	var t *Sampler
	if len(ext) >= len(layoutTag) && string(ext[:len(layoutTag)]) == layoutTag {
		lay := ext[len(layoutTag):]
		if err := checkLayout(len(keys), lay); err != nil {
			return err
		}
		t = New(len(keys))
		err = t.restore(keys, lay)
	} else {
		t = New(len(keys))
		err = t.Load(keys)
	}
	if err != nil {
		return err
	}
	s.adopt(t)
	return nil
}

// checkLayout checks what a layout lay (the extension after its tag) for
// n items says without the keys: its length, every item once, the split
// groups increasing and in levels that can split.
func checkLayout(n int, lay []byte) error {
	if len(lay) < 4*n+4 {
		return fmt.Errorf("%w: a layout of %d bytes for %d items", reweighted.ErrFormat, len(lay), n)
	}
	m := binary.LittleEndian.Uint32(lay[4*n:])
	if uint64(len(lay)) != 4*uint64(n)+4+4*uint64(m) {
		return fmt.Errorf("%w: a layout of %d bytes for %d items and %d split groups", reweighted.ErrFormat, len(lay), n, m)
	}
	seen := make(bitset, (n+63)/64)
	for p := range n {
		i := binary.LittleEndian.Uint32(lay[4*p:])
		if i >= uint32(n) || !seen.claim(int(i)) {
			return fmt.Errorf("%w: the layout's item %d at place %d is out of range or repeated", reweighted.ErrFormat, i, p)
		}
	}
	split := lay[4*n+4:]
	for q := 0; q < len(split); q += 4 {
		g := binary.LittleEndian.Uint32(split[q:])
		if q > 0 && g <= binary.LittleEndian.Uint32(split[q-4:]) {
			return fmt.Errorf("%w: the layout's split groups are not increasing", reweighted.ErrFormat)
		}
		if l := int(g / nG); l < 2*bB || l >= nLevels {
			return fmt.Errorf("%w: the layout splits group %d of level %d, which cannot split", reweighted.ErrFormat, g%nG, g/nG)
		}
	}
	return nil
}

// restore lays out t, new, with the keys and the layout lay, which
// checkLayout passed: each item joins its group in the order of lay, then
// the groups it lists are split. It refuses a split group of fewer than
// kMerge items, or a group left whole of more than kSplit.
func (t *Sampler) restore(keys []float64, lay []byte) error {
	n := len(keys)
	split := lay[4*n+4:]
	// New left every item in the list of zeros, at its index.
	t.zeros = t.zeros[:0]
	for p := range n {
		i := int(binary.LittleEndian.Uint32(lay[4*p:]))
		t.keys[i] = keys[i]
		t.insert(i, keys[i])
	}
	// insert split the groups that passed kSplit items, in order; the
	// others listed are split here, as they were when saved.
	for q := 0; q < len(split); q += 4 {
		g := int(binary.LittleEndian.Uint32(split[q:]))
		l, j := g/nG, g%nG
		lv := t.level(l)
		if lv == nil || lv.cnt[j] < kMerge {
			return fmt.Errorf("%w: the layout splits group %d of level %d, which holds fewer than %d items", reweighted.ErrFormat, j, l, kMerge)
		}
		if lv.sub[j] == nil {
			t.split(lv, l, j)
		}
	}
	for l := t.topLevel(); l >= 0; l = t.nextLevel(l) {
		for j := range nG {
			if t.level(l).sub[j] == nil {
				continue
			}
			g := uint32(l*nG + j)
			if !listed(split, g) {
				return fmt.Errorf("%w: the layout leaves group %d of level %d whole, with %d items", reweighted.ErrFormat, j, l, t.level(l).cnt[j])
			}
		}
	}
	return nil
}

// listed reports whether the split groups of a layout, increasing,
// hold g.
func listed(split []byte, g uint32) bool {
	lo, hi := 0, len(split)/4
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if binary.LittleEndian.Uint32(split[4*mid:]) < g {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo < len(split)/4 && binary.LittleEndian.Uint32(split[4*lo:]) == g
}

// adopt moves every field of t, a sampler no other call holds, into s,
// which runs alone (a write): UnmarshalBinary builds t whole, and only
// then replaces s.
func (s *Sampler) adopt(t *Sampler) {
	s.keys, s.pos, s.zeros = t.keys, t.pos, t.zeros
	s.lv, s.ls, s.lo, s.occ, s.occW = t.lv, t.ls, t.lo, t.occ, t.occW
	s.free, s.subs, s.spare, s.made, s.dropped = t.free, t.subs, t.spare, t.made, t.dropped
	for q := range s.cur {
		s.cur[q].Store(t.cur[q].Load())
	}
	s.stale.Store(t.stale.Load())
	s.want.Store(t.want.Load())
	s.unitLv.Store(t.unitLv.Load())
	s.evict = t.evict
	for q := range s.spareU {
		s.spareU[q].Store(t.spareU[q].Load())
	}
	s.spareSc.Store(t.spareSc.Load())
	s.big, s.bigHeld, s.liveBig = t.big, t.bigHeld, t.liveBig
	s.kept = t.kept
	s.far, s.ver, s.id = t.far, t.ver, t.id
	s.asked.eps.Store(t.asked.eps.Load())
	s.asked.ver.Store(t.asked.ver.Load())
	s.solves.Store(t.solves.Load())
}

// Clone returns an independent copy of s, in O(n) copies of its arrays
// and groups: a write to one never shows in the other, and each may be
// used from its own goroutine. The copy holds the items of s in the same
// slots, so that, given the same calls and identically seeded sources,
// it draws what s draws, bit for bit. It shares nothing mutable with s:
// the sorted units, the kept solution and the working memory are its own,
// made as it needs them, as after New. It may run concurrently with
// reads of s, not with a write.
func (s *Sampler) Clone() *Sampler {
	n := len(s.keys)
	c := &Sampler{
		keys:  slices.Clone(s.keys),
		pos:   slices.Clone(s.pos),
		zeros: append(make([]int32, 0, cap(s.zeros)), s.zeros...),
		lv:    make([]*level, len(s.lv)),
		ls:    slices.Clone(s.ls),
		lo:    s.lo,
		occ:   s.occ,
		occW:  s.occW,
		free:  make([]*level, 0, 64),
		subs:  make([]*sub, 0, 16),
		made:  s.made,
		far:   s.far,
		ver:   s.ver,
		id:    samplers.Add(1),
	}
	for k := range c.spare {
		c.spare[k] = make([]*entry, 0, poolCap(n, k))
	}
	held := 0
	for _, lv := range s.lv {
		if lv != nil {
			held++
		}
	}
	block := make([]level, held)
	for l, lv := range s.lv {
		if lv == nil {
			continue
		}
		d := &block[0]
		block = block[1:]
		*d = *lv
		for j := range nG {
			d.ents[j] = cloneEntries(lv.ents[j])
			if sb := lv.sub[j]; sb != nil {
				ds := new(sub)
				*ds = *sb
				for k := range nG {
					ds.ents[k] = cloneEntries(sb.ents[k])
				}
				d.sub[j] = ds
			}
		}
		c.lv[l] = d
	}
	// The copy's pools start empty, their lists with room for the large
	// slices its groups hold.
	c.liveBig = c.holding()
	for k, m := range c.liveBig {
		if m > 0 {
			c.big[k] = make([][]entry, 0, m)
		}
	}
	return c
}

// cloneEntries returns a copy of x of the same capacity, which the pools
// of group slices go by.
func cloneEntries(x []entry) []entry {
	if cap(x) == 0 {
		return nil
	}
	y := make([]entry, len(x), cap(x))
	copy(y, x)
	return y
}
