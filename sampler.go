package reweighted

import "errors"

// Sampler is a dynamic importance sampler over n keys: it draws item i with
// the probability p*_i of Lemma 1 and lets any key change between draws.
//
// A call that returns an error leaves the Sampler exactly as it was. Errors
// are checked in one order: ErrEmpty first (n = 0), then the arguments in
// the order of the signature (Prob(i, ε): the index, then ε).
//
// The read methods (Len, Key, Solve, Sample, Prob) of the module's backends
// write nothing and may be called from several goroutines at once; Set may
// not run concurrently with any other call.
type Sampler interface {
	// Len returns n, the number of items.
	Len() int
	// Key returns the key of item i. It panics unless 0 ≤ i < Len().
	Key(i int) float64
	// Set replaces the key of item i by a. It returns ErrIndex for an index
	// out of range and ErrKey for a NaN, infinite or negative key, or one that
	// would make the sum of all keys exceed MaxSum. −0 is stored as 0.
	Set(i int, a float64) error
	// Solve returns ρ in [1, n] and λ = λ(ρ) of Lemma 1 for the bound ε. ρ
	// is exact: the predicate of Lemma 1 is decided as for real numbers
	// from the float keys and ε. With all keys 0 it returns ρ = n and λ = 0.
	Solve(eps float64) (rho int, lambda float64, err error)
	// Sample maps u in [0, 1) to an item as Algorithm 4 does and returns the
	// item together with its probability p*_i, as Prob would return it,
	// which is never 0: an item whose p*_i rounds to 0 is never returned.
	Sample(eps, u float64) (i int, p float64, err error)
	// Prob returns p*_i for the bound ε.
	Prob(i int, eps float64) (float64, error)
}

// MaxSum is the largest sum of keys a Sampler accepts, 2^831 ≈ 1.43e250.
// It is far below math.MaxFloat64/2^32, so λ ≤ n·MaxSum and every partial
// sum, scaled or not, stays finite.
const MaxSum = 0x1p831

// Errors returned by Sampler methods, possibly wrapped with context; match
// them with errors.Is.
var (
	// ErrKey reports a key that is NaN, infinite or negative, or that would
	// push the sum of keys above MaxSum.
	ErrKey = errors.New("reweighted: invalid key")
	// ErrIndex reports an item index outside [0, n).
	ErrIndex = errors.New("reweighted: index out of range")
	// ErrEpsilon reports a lower bound ε outside [0, 1/n] or NaN.
	ErrEpsilon = errors.New("reweighted: epsilon out of range")
	// ErrUniform reports a uniform number u outside [0, 1) or NaN.
	ErrUniform = errors.New("reweighted: u out of range")
	// ErrEmpty reports a Solve, Sample, Prob, Draw, DrawBatch or SetBatch on
	// a sampler with no items.
	ErrEmpty = errors.New("reweighted: no items")
)
