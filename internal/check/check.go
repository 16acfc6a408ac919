// Package check holds the argument checks that package driver and the
// law-exact backends share, so that a key, an index or a batch is refused
// with the same sentinel and the same words whichever backend refuses it.
package check

import (
	"fmt"
	"math"

	"github.com/reweighted/reweighted"
)

// Key validates a key for Set and returns it with −0 turned into 0:
// ErrKey for NaN, ±Inf, a negative key or one above MaxSum.
func Key(a float64) (float64, error) {
	// NaN fails both comparisons, +Inf the second: one test for the keys
	// that pass, inlined into every Set.
	if !(a >= 0 && a <= reweighted.MaxSum) {
		return 0, keyError(a)
	}
	return a + 0, nil // a + 0 turns −0 into +0
}

// keyError is the error of a key that Key refuses.
func keyError(a float64) error {
	if math.IsNaN(a) || math.IsInf(a, 0) || a < 0 {
		return fmt.Errorf("%w: %v", reweighted.ErrKey, a)
	}
	return fmt.Errorf("%w: %v exceeds MaxSum", reweighted.ErrKey, a)
}

// Index returns ErrIndex unless 0 ≤ i < n.
func Index(i, n int) error {
	if i < 0 || i >= n {
		return fmt.Errorf("%w: %d not in [0, %d)", reweighted.ErrIndex, i, n)
	}
	return nil
}

// Batch validates a batch of SetBatch for n ≥ 1 items: ErrBatch if items
// and keys differ in length, then ErrIndex or ErrKey for the first bad
// entry, wrapped with its position. It returns the largest key of a valid
// batch (0 if empty), for the caller's check of the sum against MaxSum.
func Batch(items []int, keys []float64, n int) (float64, error) {
	if len(keys) != len(items) {
		return 0, fmt.Errorf("%w: %d items but %d keys", reweighted.ErrBatch, len(items), len(keys))
	}
	// On the bits: a key is valid when its bits are at most MaxSum's (a
	// float ≥ 0 orders as its bits) or are −0's; NaN, +Inf and negative
	// keys lie above. The largest key is the largest of the bits without
	// the sign. A float comparison and max with its NaN and signed-zero
	// rules took twice the instructions.
	var most uint64
	for k, i := range items {
		b := math.Float64bits(keys[k])
		if !BatchEntry(i, b, n) {
			return 0, batchError(k, i, keys[k], n)
		}
		most = max(most, b<<1>>1)
	}
	return math.Float64frombits(most), nil
}

// BatchEntry reports whether Batch accepts an entry of item i and key bits
// b for n items, for a caller that checks a batch in a pass of its own
// (and takes Batch's error for a refused one): inlined.
func BatchEntry(i int, b uint64, n int) bool {
	return uint(i) < uint(n) && (b <= maxSumBits || b == negZero)
}

const (
	maxSumBits = 0x73e0000000000000 // math.Float64bits(reweighted.MaxSum)
	negZero    = 1 << 63            // math.Float64bits(−0)
)

// batchError is the error of batch entry k, item i with key a, which Batch
// refuses: its index first.
func batchError(k, i int, a float64, n int) error {
	if err := Index(i, n); err != nil {
		return fmt.Errorf("batch entry %d: %w", k, err)
	}
	return fmt.Errorf("batch entry %d: %w", k, keyError(a))
}
