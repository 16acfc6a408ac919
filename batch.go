package reweighted

import (
	"fmt"
	"math"
	"sync"
)

// BatchSetter is the optional fast path of SetBatch: a sampler that applies
// many key changes at once, with the semantics of SetBatch.
type BatchSetter interface {
	SetBatch(items []int, keys []float64) error
}

// SetBatch sets the key of items[k] to keys[k] for every k, all or nothing.
// Every index and key is checked as Set checks them, and the sum of the
// keys after the whole batch against MaxSum, before anything changes: a
// rejected batch leaves s exactly as it was. An item that appears more than
// once takes its last key. Afterwards s holds the keys the same Set calls,
// made one by one, would leave.
//
// It returns ErrEmpty for a Sampler with no items (even for an empty batch,
// as DrawBatch does), ErrBatch if items and keys differ in length, ErrIndex or
// ErrKey (wrapped, naming the position in the batch) for the first bad entry,
// and ErrKey if the keys after the batch would sum to more than MaxSum.
//
// s may be any Distribution, of either kind. One with a SetBatch method of
// its own (BatchSetter) is handed the batch. Any other has the sum after
// the batch checked against MaxSum first (by its Solve at ε = 0 when the
// sum is clearly below, else exactly over its keys, O(n)), then is changed
// by Set, first the keys that go down, then the keys that go up, so that
// no intermediate sum exceeds the final one. Should a Set still refuse,
// the keys already set are restored in reverse order. Its working memory
// is pooled: it allocates nothing in steady state, and calls on different
// Samplers may run concurrently.
func SetBatch(s Distribution, items []int, keys []float64) error {
	if s.Len() == 0 {
		return ErrEmpty
	}
	if len(items) != len(keys) {
		return fmt.Errorf("%w: %d items but %d keys", ErrBatch, len(items), len(keys))
	}
	if b, ok := any(s).(BatchSetter); ok { // see probe in draw.go
		return b.SetBatch(items, keys)
	}
	n := s.Len()
	for k, i := range items {
		if i < 0 || i >= n {
			return fmt.Errorf("batch entry %d: %w: %d not in [0, %d)", k, ErrIndex, i, n)
		}
		if a := keys[k]; math.IsNaN(a) || math.IsInf(a, 0) || a < 0 || a > MaxSum {
			return fmt.Errorf("batch entry %d: %w: %v", k, ErrKey, a)
		}
	}
	sc := setPool.Get().(*setScratch)
	defer setPool.Put(sc)
	m := len(items)
	if w := (n + 63) / 64; len(sc.seen) < w {
		sc.seen = make([]uint64, w)
	}
	if cap(sc.last) < m {
		sc.last, sc.old, sc.done = make([]bool, m), make([]float64, m), make([]int, 0, m)
	}
	// last[k] says whether entry k is the last of its item: met first from
	// the end, in a bit set of n bits cleared again at once.
	last, old, done := sc.last[:m], sc.old[:m], sc.done[:0]
	for k := m - 1; k >= 0; k-- {
		w, b := items[k]>>6, uint64(1)<<(items[k]&63)
		last[k] = sc.seen[w]&b == 0
		sc.seen[w] |= b
	}
	for _, i := range items {
		sc.seen[i>>6] &^= 1 << (i & 63)
	}
	inc := 0.0 // what the batch adds to the sum, in float
	for k, i := range items {
		old[k] = s.Key(i)
		if last[k] && keys[k] > old[k] {
			inc += keys[k] - old[k]
		}
	}
	// A refusal of MaxSum is decided here, before any key changes: keys
	// set and restored by Set would leave a sampler whose sums depend on
	// its shape (btree) with sums associated otherwise.
	if inc > 0 && !fitsMaxSum(s, items, keys, last, old, inc) {
		return fmt.Errorf("%w: the keys after the batch would sum to more than MaxSum", ErrKey)
	}
	for _, up := range []bool{false, true} {
		for k, i := range items {
			if !last[k] || (keys[k] > s.Key(i)) != up {
				continue
			}
			if err := s.Set(i, keys[k]); err != nil {
				for d := len(done) - 1; d >= 0; d-- {
					// Each restore returns s to a state it held before, so
					// it is accepted.
					_ = s.Set(items[done[d]], old[done[d]])
				}
				return fmt.Errorf("batch entry %d: %w", k, err)
			}
			done = append(done, k)
		}
	}
	return nil
}

// fitsMaxSum reports whether the keys of s after the batch (the entries
// marked last, whose items held old) sum to at most MaxSum: at once when
// the total that Solve at ε = 0 gives, plus inc, the float sum of the
// increases, lies clearly below (its relative error is far below 2^-16);
// else exactly, in a float of 2,048 bits, which holds every sum of keys
// (multiples of 2^-1074 below 2^862) without rounding.
func fitsMaxSum(s Distribution, items []int, keys []float64, last []bool, old []float64, inc float64) bool {
	if _, total, err := s.Solve(0); err == nil && total+inc <= MaxSum*(1-0x1p-16) {
		return true
	}
	var e exactSum
	e.init()
	for i := range s.Len() {
		e.add(s.Key(i))
	}
	for k := range items {
		if last[k] {
			e.add(keys[k])
			e.sub(old[k])
		}
	}
	return e.fits()
}

// setScratch is the working memory of SetBatch's fallback: the items met,
// as n bits, all clear between calls; which entries are their item's last;
// the old keys; and the entries set, to undo.
type setScratch struct {
	seen []uint64
	last []bool
	old  []float64
	done []int
}

var setPool = sync.Pool{New: func() any { return new(setScratch) }}
