package reweighted

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
)

// ErrBatch reports a batch that cannot be drawn or set: slices of different
// lengths, or more items without replacement than the sampler holds.
var ErrBatch = errors.New("reweighted: invalid batch")

// BatchSampler is the optional fast path of DrawBatch, probed as io.Copy
// probes io.WriterTo: a Sampler that maps many uniform numbers to items at
// once, sharing the work that Sample would repeat for each (the Solve, and
// the upper levels of a search tree).
//
// SampleBatch sets items[k] and probs[k] to the item and probability that
// Sample(eps, us[k]) returns, for every k, bit for bit, in the order of us.
// The three slices have the same length; probs may be us itself (the same
// slice), which saves DrawBatch a buffer, and any other overlap is not
// allowed. Errors are those of Sample, checked before anything is written:
// ErrEmpty, then ErrEpsilon, then ErrUniform for the first bad u in order;
// and ErrBatch if the lengths differ. It writes nothing to the Sampler, so
// it may run concurrently with the other read methods.
type BatchSampler interface {
	SampleBatch(eps float64, us []float64, items []int, probs []float64) error
}

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
func check(s Distribution, eps float64) error {
	n := s.Len()
	if n == 0 {
		return ErrEmpty
	}
	if !(eps >= 0 && eps <= 1/float64(n)) {
		return fmt.Errorf("%w: ε = %v not in [0, 1/%d]", ErrEpsilon, eps, n)
	}
	return nil
}

// Draw draws one item of s at bound eps and returns it with its
// probability p*, which is never 0.
//
// For a Sampler, it uses one uniform number from src,
// u = float64(src.Uint64()>>11)·2⁻⁵³ in [0, 1), and the item is
// s.Sample(eps, u). For a LawSampler, it is s.Draw(eps, src), which may use
// several numbers. An invalid sampler or bound (ErrEmpty, ErrEpsilon) is
// reported before src is used, and s is never modified. Draw panics if s is
// neither a Sampler nor a LawSampler; a type that is both is used as a
// Sampler.
func Draw(s Distribution, eps float64, src rand.Source) (i int, p float64, err error) {
	if err := check(s, eps); err != nil {
		return 0, 0, err
	}
	switch s := any(s).(type) { // see probe
	case Sampler:
		return s.Sample(eps, uniform(src))
	case LawSampler:
		return s.Draw(eps, src)
	}
	panic(noDraw(s))
}

// probe: the optional methods are probed on any(s), not on s. The runtime
// caches the answer of each type switch and assertion per site, looked up
// by a hash that a value of a non-empty interface type carries in its
// method table; the table the runtime builds for a conversion between two
// interfaces (a Sampler passed as a Distribution, in a program that never
// converts the concrete type to Distribution) carries hash 0, so the
// lookup misses at every call and the runtime adds the type again, with
// an allocation, at a random one of a thousand calls or more, again and
// again. An any holds the type itself, with its hash: the type is cached
// once, and the probe allocates nothing after.

// noDraw is the panic value for a Distribution that cannot draw.
func noDraw(s Distribution) string {
	return fmt.Sprintf("reweighted: %T is neither a Sampler nor a LawSampler", s)
}

// sampleMany sets items[k], probs[k] to s.Sample(eps, us[k]) for every k,
// through the BatchSampler fast path if s has one; probs may be us.
func sampleMany(s Sampler, eps float64, us []float64, items []int, probs []float64) error {
	if b, ok := any(s).(BatchSampler); ok { // see probe
		return b.SampleBatch(eps, us, items, probs)
	}
	for k, u := range us {
		i, p, err := s.Sample(eps, u)
		if err != nil {
			return err
		}
		items[k], probs[k] = i, p
	}
	return nil
}

// DrawBatch fills items and probs (same length m) with m draws at bound eps
// from s, a Sampler or a LawSampler (it panics for any other Distribution).
// With replace, the draws are independent. Without, they are successive draws
// from p* restricted to the items not yet drawn (ordered successive sampling):
// items are distinct and m ≤ n. probs[k] is p*_{items[k]}, the unconditional probability.
//
// Every draw takes the next uniform number u of src, as Draw does, and
// items[k], probs[k] are what s.Sample(eps, u) returns for the u that made
// draw k. Without replacement, the k-th item is drawn by rejection: the
// next u until Sample's item is not among the k already drawn, which gives
// exactly the conditional distribution p*_i/(1 − Σ_{j<k} p*_{items[j]}) over
// the items left (the batch is the first m distinct items of an i.i.d.
// stream from p*). After 64 consecutive rejections (likely only when the
// items drawn hold almost all the mass, as at ε = 0 with a few heavy keys)
// the next u is used instead to draw from the explicit conditional
// distribution, by inversion over the items left in index order with Prob:
// O(n log n) work, still exact. If the items left all have p* = 0
// (possible only at ε = 0), it draws one of them uniformly and reports
// probs[k] = 0.
//
// A LawSampler is handed the batch after validation (its DrawBatch method),
// and has the same law: its items need not be those Sample would map the
// numbers of src to. The rest of this comment is about a Sampler.
//
// A Sampler that implements BatchSampler maps the uniform numbers of a
// batch at once: all m with replacement, and without, in rounds of as
// many as there are items still to draw, so that src gives exactly the
// numbers it gives one draw at a time. Any other Sampler is called once
// per number. The membership tests take O(1) each, in a pooled bit set of
// n bits: no allocation in steady state, and calls may run concurrently
// on the same s.
//
// The cost is O(m log n) Sample calls in expectation when the items drawn
// keep the mass of those left bounded away from 0 (for instance ε > 0 and
// m ≤ n/2).
//
// A call rejected by validation (ErrEmpty, ErrEpsilon, ErrBatch) uses no
// randomness and leaves items, probs and s unchanged. s is never modified.
// An error from s during the draws (which a conforming Sampler does not
// return after validation) leaves items and probs partly written.
func DrawBatch(s Distribution, eps float64, src rand.Source, replace bool, items []int, probs []float64) error {
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
	var smp Sampler
	switch t := any(s).(type) { // see probe
	case Sampler:
		smp = t
	case LawSampler:
		return t.DrawBatch(eps, src, replace, items, probs)
	default:
		panic(noDraw(s))
	}
	if replace {
		// probs holds the uniform numbers until they are mapped.
		for k := range probs {
			probs[k] = uniform(src)
		}
		return sampleMany(smp, eps, probs, items, probs)
	}
	sc := getDrawScratch(n, m)
	k := 0          // items drawn
	rejections := 0 // consecutive draws of items already drawn
	for k < m {
		// A round: one uniform number per item still needed, mapped into
		// the free tail of items and probs. Every number the one-at-a-time
		// loop would use before filling the last slot is among them, and
		// no more.
		base := k
		us := sc.us[:m-k]
		for j := range us {
			us[j] = uniform(src)
		}
		if err := sampleMany(smp, eps, us, items[base:], probs[base:]); err != nil {
			return err // the scratch is dropped: its set is not clear
		}
		for j, u := range us {
			// Slot k ≤ base + j: the results not yet read are not
			// overwritten.
			i, p := items[base+j], probs[base+j]
			switch {
			case rejections == maxRejections:
				var err error
				if i, p, err = drawRest(s, eps, u, sc, k); err != nil {
					return err
				}
			case sc.has(i):
				rejections++
				continue
			}
			rejections = 0
			sc.add(i)
			items[k], probs[k] = i, p
			k++
		}
	}
	for _, i := range items {
		sc.remove(i)
	}
	drawPool.Put(sc)
	return nil
}

// drawScratch is the working memory of a draw without replacement: the
// set of items drawn, as n bits, all clear between calls, and room for
// the uniform numbers of a round.
type drawScratch struct {
	drawn []uint64
	us    []float64
}

var drawPool = sync.Pool{New: func() any { return new(drawScratch) }}

// getDrawScratch returns a scratch with room for n items and m numbers.
func getDrawScratch(n, m int) *drawScratch {
	sc := drawPool.Get().(*drawScratch)
	if w := (n + 63) / 64; len(sc.drawn) < w {
		sc.drawn = make([]uint64, w)
	}
	if cap(sc.us) < m {
		sc.us = make([]float64, m)
	}
	sc.us = sc.us[:cap(sc.us)]
	return sc
}

func (sc *drawScratch) has(i int) bool { return sc.drawn[i>>6]&(1<<(i&63)) != 0 }
func (sc *drawScratch) add(i int)      { sc.drawn[i>>6] |= 1 << (i & 63) }
func (sc *drawScratch) remove(i int)   { sc.drawn[i>>6] &^= 1 << (i & 63) }

// left calls f with each item not drawn, in index order, and its p*,
// until f returns false.
func left(s Distribution, eps float64, sc *drawScratch, f func(i int, p float64) bool) error {
	for i := range s.Len() {
		if sc.has(i) {
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

// drawRest maps u to an item not drawn (k of them are) with probability
// p*_i/Σ_{j not drawn} p*_j, by inversion over the items left in index
// order, at any scale of their total, subnormal included; if they all have
// p* = 0, uniformly among them.
func drawRest(s Distribution, eps, u float64, sc *drawScratch, k int) (int, float64, error) {
	var total float64
	if err := left(s, eps, sc, func(_ int, p float64) bool { total += p; return true }); err != nil {
		return 0, 0, err
	}
	item, p := -1, 0.0
	var err error
	if total == 0 {
		// Every item left has p* = 0: pick the ⌊u·(n − k)⌋-th of them.
		r := int(u * float64(s.Len()-k))
		err = left(s, eps, sc, func(i int, _ float64) bool { item = i; r--; return r >= 0 })
		return item, 0, err
	}
	// Below the least normal float, u·total would fall on the grid of
	// subnormals, far coarser than u's 2^-53: the inversion runs on every
	// p times 2^1022 instead, exact (a float below 2^-1022 times 2^1022 is
	// below 1) and the same sums scaled, whose products are normal floats.
	scale := 1.0
	if total < restSmall {
		scale = restScale
	}
	// Rounding may leave t at or past the last partial sum: the last item
	// with positive probability owns the end of the interval.
	t, acc := u*(total*scale), 0.0
	err = left(s, eps, sc, func(i int, q float64) bool {
		if q > 0 {
			acc += q * scale
			item, p = i, q
		}
		return t >= acc
	})
	return item, p, err
}

// restSmall is the total of the items left below which drawRest scales
// their p by restScale: the least normal float.
const restSmall = 0x1p-1022

// restScale is the factor of drawRest's p once their total is below
// restSmall: every p becomes a normal float (the least, 2^-1074, becomes
// 2^-52), and the total stays below 1.
const restScale = 0x1p1022
