package reweighted

import (
	"errors"
	"math/rand/v2"
)

// Distribution holds n keys and the law p* of Lemma 1 over them: the keys,
// the solution ρ, λ and the probability of each item. It is what both kinds
// of sampler share, and what Draw, DrawBatch and SetBatch take:
//
//   - a Sampler (map-exact: naive, ost, segtree, btree) also maps a uniform
//     number u to an item as Algorithm 4 does, the same item for the same u
//     in every backend;
//   - a LawSampler (law-exact: levels) draws with its own use of a source of
//     randomness, with exactly the law p*, and has no map from u to an item.
//
// A call that returns an error leaves the Distribution exactly as it was.
// Errors are checked in one order: ErrEmpty first (n = 0), then the
// arguments in the order of the signature (Prob(i, ε): the index, then ε).
//
// The read methods (Len, Key, Solve, Prob) of the module's backends write
// nothing and may be called from several goroutines at once; Set may not
// run concurrently with any other call.
type Distribution interface {
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
	// Prob returns p*_i for the bound ε.
	Prob(i int, eps float64) (float64, error)
}

// Sampler is a map-exact dynamic importance sampler: a Distribution that
// also maps a uniform number to an item exactly as Algorithm 4 does, on the
// canonical order (key descending, equal keys by index ascending), so that
// every Sampler returns the same item for the same keys, ε and u.
//
// The read methods (Len, Key, Solve, Sample, Prob) of the module's backends
// write nothing and may be called from several goroutines at once.
type Sampler interface {
	Distribution
	// Sample maps u in [0, 1) to an item as Algorithm 4 does and returns the
	// item together with its probability p*_i, as Prob would return it,
	// which is never 0: an item whose p*_i rounds to 0 is never returned.
	Sample(eps, u float64) (i int, p float64, err error)
}

// LawSampler is a law-exact dynamic importance sampler: a Distribution
// whose draws have exactly the law p* (up to the rounding of an inversion,
// as Algorithm 4's), made with its own use of a source of randomness, which
// may take several numbers per draw. It has no map from a uniform number to
// an item, and two LawSamplers, or a LawSampler and a Sampler, need not
// return the same item for the same source: only the same law.
//
// Draw returns an item drawn from p* at bound ε and its probability, as
// Prob returns it, never 0. DrawBatch has the semantics of the package's
// DrawBatch function, law for law: m independent draws with replace, else
// ordered successive sampling without replacement with its explicit
// fallback, the same errors in the same order, and a call rejected by
// validation uses no randomness and writes nothing. Both leave the sampler
// unchanged and may run concurrently with the other read methods.
type LawSampler interface {
	Distribution
	Draw(eps float64, src rand.Source) (i int, p float64, err error)
	DrawBatch(eps float64, src rand.Source, replace bool, items []int, probs []float64) error
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
	// ErrEmpty reports a call that needs an item, made on a sampler with
	// no items (n = 0).
	ErrEmpty = errors.New("reweighted: no items")
)
