package reweighted

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
)

// ErrBatch reports a batch that cannot be drawn: items and probs of
// different lengths, or more items without replacement than the sampler
// holds.
var ErrBatch = errors.New("reweighted: invalid batch")

// maxRejections is the number of consecutive draws of items already in the
// batch after which DrawBatch stops rejecting and draws from the explicit
// conditional distribution. With ε > 0 and m ≤ n/2 the items not yet drawn
// keep a mass of at least (n − m)ε ≥ 1/4 at ε = 1/(2n), so 64 rejections in a
// row happen with probability below 0.75⁶⁴ ≈ 1e-8.
const maxRejections = 64

// uniform returns a number in [0, 1) from the 53 high bits of one draw of src.
func uniform(src rand.Source) float64 {
	return float64(src.Uint64()>>11) * 0x1p-53
}

// check returns the error Sample would return for eps, without consuming
// randomness: ErrEmpty for a sampler with no items, ErrEpsilon for ε outside
// [0, 1/n] or NaN.
func check(s Sampler, eps float64) error {
	n := s.Len()
	if n == 0 {
		return ErrEmpty
	}
	if !(eps >= 0 && eps <= 1/float64(n)) {
		return fmt.Errorf("%w: ε = %v with n = %d", ErrEpsilon, eps, n)
	}
	return nil
}

// Draw draws one item of s at bound eps, using one uniform number from src.
//
// The uniform number is u = float64(src.Uint64()>>11)·2⁻⁵³, in [0, 1), and
// the item is s.Sample(eps, u). An invalid sampler or bound (ErrEmpty,
// ErrEpsilon) is reported before src is used, and s is never modified.
func Draw(s Sampler, eps float64, src rand.Source) (i int, p float64, err error) {
	if err := check(s, eps); err != nil {
		return 0, 0, err
	}
	return s.Sample(eps, uniform(src))
}

// DrawBatch fills items and probs (same length m) with m draws at bound eps.
// With replace, the draws are independent. Without, they are successive draws
// from p* restricted to the items not yet drawn (ordered successive sampling):
// items are distinct and m ≤ n. probs[k] is p*_{items[k]}, the unconditional probability.
//
// Without replacement, the k-th item is drawn by rejection: Draw until the
// item is not among the k already drawn, which gives exactly the conditional
// distribution p*_i/(1 − Σ_{j<k} p*_{items[j]}) over the items left. After
// 64 consecutive rejections (likely only when the items drawn hold almost all
// the mass, as at ε = 0 with a few heavy keys) it draws instead from the
// explicit conditional distribution, walking the items left with Prob: one
// more uniform number and O(n log n) work, still exact. If the items left
// all have p* = 0 (possible only at ε = 0), it draws one of them uniformly
// and reports probs[k] = 0. Each draw uses one uniform number of src, as
// Draw does.
//
// The cost is O(m log n) Sample calls in expectation when the items drawn
// keep the mass of those left bounded away from 0 (for instance ε > 0 and
// m ≤ n/2), plus O(m²) integer comparisons for the membership tests; there
// is no allocation.
//
// A call rejected by validation (ErrEmpty, ErrEpsilon, ErrBatch) uses no
// randomness and leaves items, probs and s unchanged. s is never modified.
// An error from s during the draws (which a conforming Sampler does not
// return after validation) leaves items and probs partly written.
func DrawBatch(s Sampler, eps float64, src rand.Source, replace bool, items []int, probs []float64) error {
	if err := check(s, eps); err != nil {
		return err
	}
	m, n := len(items), s.Len()
	if len(probs) != m {
		return fmt.Errorf("%w: %d items but %d probabilities", ErrBatch, m, len(probs))
	}
	if !replace && m > n {
		return fmt.Errorf("%w: %d items without replacement from %d", ErrBatch, m, n)
	}
	for k := range items {
		if replace {
			i, p, err := s.Sample(eps, uniform(src))
			if err != nil {
				return err
			}
			items[k], probs[k] = i, p
			continue
		}
		drawn := false
		for range maxRejections {
			i, p, err := s.Sample(eps, uniform(src))
			if err != nil {
				return err
			}
			if !slices.Contains(items[:k], i) {
				items[k], probs[k], drawn = i, p, true
				break
			}
		}
		if !drawn {
			i, p, err := drawRest(s, eps, src, items[:k])
			if err != nil {
				return err
			}
			items[k], probs[k] = i, p
		}
	}
	return nil
}

// left calls f with each item not in drawn, in index order, and its p*,
// until f returns false.
func left(s Sampler, eps float64, drawn []int, f func(i int, p float64) bool) error {
	for i := range s.Len() {
		if slices.Contains(drawn, i) {
			continue
		}
		p, err := s.Prob(i, eps)
		if err != nil {
			return err
		}
		if !f(i, p) {
			return nil
		}
	}
	return nil
}

// drawRest draws an item not in drawn with probability p*_i/Σ_{j∉drawn} p*_j,
// by inversion over the items left in index order; if they all have p* = 0,
// uniformly among them. It uses one uniform number of src.
func drawRest(s Sampler, eps float64, src rand.Source, drawn []int) (int, float64, error) {
	var total float64
	if err := left(s, eps, drawn, func(_ int, p float64) bool { total += p; return true }); err != nil {
		return 0, 0, err
	}
	u := uniform(src)
	item, p := -1, 0.0
	var err error
	if total == 0 {
		// Every item left has p* = 0: pick the ⌊u·(n − k)⌋-th of them.
		r := int(u * float64(s.Len()-len(drawn)))
		err = left(s, eps, drawn, func(i int, _ float64) bool { item = i; r--; return r >= 0 })
		return item, 0, err
	}
	// Rounding may leave t at or past the last partial sum: the last item
	// with positive probability owns the end of the interval.
	t, acc := u*total, 0.0
	err = left(s, eps, drawn, func(i int, q float64) bool {
		if q > 0 {
			acc += q
			item, p = i, q
		}
		return t >= acc
	})
	return item, p, err
}
