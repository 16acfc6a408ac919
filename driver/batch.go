package driver

import (
	"cmp"
	"fmt"
	"math/bits"
	"slices"
	"sync"

	"github.com/reweighted/reweighted"
	"github.com/reweighted/reweighted/internal/check"
)

// BatchSelector is the optional fast path of an Index for SampleBatch.
//
// SelectSums sets items[k], ranks[k] and keys[k] to what
// SelectSum(targets[k], scale) returns, for every k, bit for bit; the
// targets come sorted in increasing order (equal ones allowed), so one
// traversal of the index can serve them all. The four slices have the same
// length. It writes nothing to the index.
type BatchSelector interface {
	SelectSums(targets []float64, scale float64, items, ranks []int, keys []float64)
}

// BatchUpdater is the optional fast path of an Index for SetBatch.
//
// UpdateBatch replaces the key of items[k] by keys[k] for every k. The
// Driver hands it distinct items, in the order of their last entries in
// the batch, with valid keys each different from the item's current key,
// whose sum with the other keys is within MaxSum. Afterwards the index must hold what Update of each change
// in turn would leave: the same keys in the same canonical order, every
// invariant of the index (its Check) sound. Its sums may be associated
// otherwise than those updates would leave them, as long as they are
// formed by additions within the index's SumDepth, since the Driver's
// exact decisions do not depend on the association.
type BatchUpdater interface {
	UpdateBatch(items []int, keys []float64)
}

// batchScratch is the working memory of SampleBatch and SetBatch, pooled:
// the reads may run concurrently, and a Driver keeps no state of its own
// besides its count of zero keys.
type batchScratch struct {
	heads   []uint64 // SampleBatch: the draws of the head, by u
	spare   []uint64 // and the radix sort's other buffer
	targets []float64
	items   []int
	ranks   []int
	keys    []float64
	seen    []uint64 // SetBatch: the items met, as n bits, clear between calls
	changed []int    // and the changes that remain: items, new and old keys
	news    []float64
	olds    []float64
}

var batchPool = sync.Pool{New: func() any { return new(batchScratch) }}

// grow returns s with length m, reusing its storage when it has room. The
// scratch of a batch of m grows to m at once, so that once a batch of the
// largest size has run, none allocates.
func grow[T any](s []T, m int) []T {
	if cap(s) < m {
		return make([]T, m)
	}
	return s[:m]
}

// SampleBatch maps every us[k] to items[k] and probs[k] as Sample does, bit
// for bit, with one Solve: it satisfies reweighted.BatchSampler, whose doc
// says what it returns. probs may be us itself. With an Index that is a
// BatchSelector, the draws that fall in the head are sorted by u and found
// in one call to SelectSums; with another, each is one SelectSum.
func (d *Driver) SampleBatch(eps float64, us []float64, items []int, probs []float64) error {
	b, err := d.bound(eps)
	if err != nil {
		return err
	}
	m := len(us)
	if len(items) != m || len(probs) != m {
		return fmt.Errorf("%w: %d uniform numbers, %d items and %d probabilities", reweighted.ErrBatch, m, len(items), len(probs))
	}
	for _, u := range us {
		if err := checkU(u); err != nil {
			return err
		}
	}
	if m == 0 {
		return nil
	}
	n := b.n
	if d.zeros == n {
		for k, u := range us {
			items[k], probs[k] = d.uniformItem(u, n)
		}
		return nil
	}
	rho, s := d.solve(b)
	c := b.c(rho)
	scale := headScale(s)
	if d.sel == nil {
		for k, u := range us {
			if u >= c {
				items[k], probs[k] = d.tailItem(b, rho, c, u)
				continue
			}
			item, r, a := d.ix.SelectSum(u/c*(s*scale), scale)
			items[k], probs[k] = d.headItem(b, rho, s, item, r, a)
		}
		return nil
	}
	sc := batchPool.Get().(*batchScratch)
	defer batchPool.Put(sc)
	// A head draw is sorted as one integer: the 16-bit bucket of u in
	// [0, c) above its position k. Two passes of a radix sort order the
	// draws by bucket, in O(m + 2^9), and a pass of insertion sort orders
	// each bucket by u; it gives up, for a comparison sort, if the u are
	// so bunched that it would cost more than a few moves per draw.
	kb := uint(bits.Len(uint(m - 1)))
	low := uint64(1)<<kb - 1
	heads := grow(sc.heads, m)[:0]
	for k, u := range us {
		if u >= c {
			items[k], probs[k] = d.tailItem(b, rho, c, u)
			continue
		}
		// us[k] stays unwritten until the answers come back: probs[k],
		// which may be us[k], is written only for the tail above.
		bucket := min(uint64(u/c*(1<<16)), 1<<16-1)
		heads = append(heads, bucket<<kb|uint64(k))
	}
	sc.heads = heads
	if len(heads) == 0 {
		return nil
	}
	if len(heads) > 32 {
		// Fewer go straight to the insertion sort, whose moves they bound.
		sc.spare = grow(sc.spare, m)
		sortHeads(heads, sc.spare[:len(heads)], kb)
	}
	moves, budget := 0, 4*len(heads)+512
	for j := 1; j < len(heads) && moves <= budget; j++ {
		for q := j; q > 0 && us[heads[q]&low] < us[heads[q-1]&low]; q-- {
			heads[q], heads[q-1] = heads[q-1], heads[q]
			moves++
		}
	}
	if moves > budget {
		slices.SortFunc(heads, func(x, y uint64) int { return cmp.Compare(us[x&low], us[y&low]) })
	}
	// The target is monotone in u (each operation rounds monotonically),
	// so sorting by u sorts the targets.
	h := len(heads)
	sc.targets, sc.items, sc.ranks, sc.keys = grow(sc.targets, m)[:h], grow(sc.items, m)[:h], grow(sc.ranks, m)[:h], grow(sc.keys, m)[:h]
	for j, x := range heads {
		sc.targets[j] = us[x&low] / c * (s * scale)
	}
	d.sel.SelectSums(sc.targets, scale, sc.items, sc.ranks, sc.keys)
	for j, x := range heads {
		k := int(x & low)
		items[k], probs[k] = d.headItem(b, rho, s, sc.items[j], sc.ranks[j], sc.keys[j])
	}
	return nil
}

// sortHeads sorts heads by their 16 bits from bit kb on, stably, by two
// passes of a radix sort through spare, of the same length.
func sortHeads(heads, spare []uint64, kb uint) {
	src, dst := heads, spare
	for pass := range 2 {
		shift := kb + 8*uint(pass)
		var count [257]int
		for _, x := range src {
			count[(x>>shift)&0xff+1]++
		}
		for d := 1; d < len(count); d++ {
			count[d] += count[d-1]
		}
		for _, x := range src {
			d := (x >> shift) & 0xff
			dst[count[d]] = x
			count[d]++
		}
		src, dst = dst, src
	}
	// After an even number of passes the result is back in heads.
}

// SetBatch sets the key of items[k] to keys[k] for every k, all or nothing:
// it satisfies reweighted.BatchSetter, whose doc says what it checks. Every
// index and key is checked in order, as Set checks them, and the exact sum
// of the keys after the whole batch against MaxSum, before anything
// changes; an item that appears more than once takes its last key. The
// changes that remain (distinct items whose key changes, in the order of
// their last entries) go to the Index at once if it is a BatchUpdater,
// else one Update each.
func (d *Driver) SetBatch(items []int, keys []float64) error {
	m := len(items)
	if d.Len() == 0 {
		return reweighted.ErrEmpty
	}
	n := d.Len()
	if _, err := check.Batch(items, keys, n); err != nil {
		return err
	}
	if m == 0 {
		return nil
	}
	sc := batchPool.Get().(*batchScratch)
	defer batchPool.Put(sc)
	// The last entry of each item: the entries from the last back, each
	// item kept the first time it is met, in a bit set of n bits cleared
	// again below. The changes are then put back in the batch's order.
	if w := (n + 63) / 64; len(sc.seen) < w {
		sc.seen = make([]uint64, w)
	}
	seen := sc.seen
	ch, nk, olds := grow(sc.changed, m)[:0], grow(sc.news, m)[:0], grow(sc.olds, m)[:0]
	for k := m - 1; k >= 0; k-- {
		i := items[k]
		if seen[i>>6]&(1<<(i&63)) != 0 {
			continue
		}
		seen[i>>6] |= 1 << (i & 63)
		a := keys[k] + 0 // −0 is stored as 0
		if old := d.ix.Key(i); a != old {
			ch, nk, olds = append(ch, i), append(nk, a), append(olds, old)
		}
	}
	for _, i := range items {
		seen[i>>6] &^= 1 << (i & 63)
	}
	slices.Reverse(ch)
	slices.Reverse(nk)
	slices.Reverse(olds)
	sc.changed, sc.news, sc.olds = ch, nk, olds
	if len(ch) == 0 {
		return nil
	}
	if !d.fitsBatch(olds, nk) {
		return fmt.Errorf("%w: the keys after the batch would sum to more than MaxSum", reweighted.ErrKey)
	}
	for e, a := range nk {
		if olds[e] == 0 {
			d.zeros--
		}
		if a == 0 {
			d.zeros++
		}
	}
	if d.upd != nil {
		d.upd.UpdateBatch(ch, nk)
		return nil
	}
	for e, i := range ch {
		d.ix.Update(i, nk[e])
	}
	return nil
}

// fitsBatch reports whether the exact sum of the keys, with the keys olds
// replaced by the keys news, is at most MaxSum.
func (d *Driver) fitsBatch(olds, news []float64) bool {
	var o, a float64
	for e := range olds {
		o += olds[e]
		a += news[e]
	}
	if a > 2*reweighted.MaxSum {
		// The new keys alone sum to more than MaxSum: a carries at most m
		// roundings.
		return false
	}
	// The float total is within γ_n of the exact one T ≤ MaxSum, o and a
	// within γ_m of theirs (at most MaxSum and 2·MaxSum), and the two
	// operations add a rounding each: in all less than (n + 3m + 4)·2^-53
	// of MaxSum, well inside the band.
	n, m := d.ix.Len(), len(olds)
	t := (d.ix.Total() - o) + a
	eta := float64(n+2*m+8) * 0x1p-50
	switch {
	case t <= reweighted.MaxSum*(1-eta):
		return true
	case t > reweighted.MaxSum*(1+eta):
		return false
	}
	s := scratchPool.Get().(*scratch)
	defer scratchPool.Put(s)
	acc := &s.acc
	acc.Reset()
	for j := range n {
		acc.Add(d.ix.Key(j))
	}
	// Each old key was added above, so the value stays ≥ 0.
	for e := range olds {
		acc.Sub(olds[e])
		acc.Add(news[e])
	}
	return acc.Int(&s.t).Cmp(maxSumUnits) <= 0
}
