package reweighted

import (
	"fmt"
	"math/rand/v2"
)

// Stepper is the optional fast path of Step: a Distribution that sets a key
// and draws the next item in one call. Step(eps, i, a, src) must do what
// Set(i, a) followed by Draw(s, eps, src) does, bit for bit: the same item,
// the same p, the same numbers of src, the same keys after; and a rejected
// call returns Step's errors, in Step's order, and changes nothing and uses
// no randomness.
type Stepper interface {
	Step(eps float64, i int, a float64, src rand.Source) (next int, p float64, err error)
}

// Step sets the key of item i to a, then draws the next item at bound eps
// and returns it with its probability p*: SRG's single-sample step, where
// a is the gradient norm of the example i just used. The result is that of
// s.Set(i, a) followed by Draw(s, eps, src), bit for bit (the same item,
// the same p, the same numbers of src), through s's own Step if it has one
// (Stepper), which may share work between the two.
//
// Errors, checked before s changes or src is used, so that a rejected call
// changes nothing: ErrEmpty for a distribution of no items; ErrIndex for i
// out of range and ErrKey for a NaN, infinite, negative a or one above
// MaxSum, as Set; then
// ErrEpsilon for a bound outside [0, 1/n]; then Set's own, such as ErrKey
// for a sum of keys that would exceed MaxSum. Step panics, as Draw does, if
// s is neither a Sampler nor a LawSampler.
func Step(s Distribution, eps float64, i int, a float64, src rand.Source) (next int, p float64, err error) {
	// The fast path in a function of its own (the rest, in step, made
	// this one's frame and its spills of the arguments twice as large).
	if st, ok := any(s).(Stepper); ok { // see probe in draw.go
		return st.Step(eps, i, a, src)
	}
	return step(s, eps, i, a, src)
}

// step is Step for a Distribution that is not a Stepper.
func step(s Distribution, eps float64, i int, a float64, src rand.Source) (next int, p float64, err error) {
	switch any(s).(type) { // see probe in draw.go
	case Sampler, LawSampler:
	default:
		panic(noDraw(s))
	}
	n := s.Len()
	if n == 0 {
		return 0, 0, ErrEmpty
	}
	if i < 0 || i >= n {
		return 0, 0, fmt.Errorf("%w: %d not in [0, %d)", ErrIndex, i, n)
	}
	if !(a >= 0 && a <= MaxSum) { // NaN fails both
		return 0, 0, fmt.Errorf("%w: %v", ErrKey, a)
	}
	if err := check(s, eps); err != nil {
		return 0, 0, err
	}
	if err := s.Set(i, a); err != nil {
		return 0, 0, err
	}
	return Draw(s, eps, src)
}
