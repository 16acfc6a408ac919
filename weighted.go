package reweighted

import (
	"fmt"
	"math/rand/v2"
)

// Weighted is a dynamic proportional sampler: n items with weights a_i ≥ 0,
// drawn with probability p_i = a_i / Σa, items laid out in index order. It
// is the third kind of sampler of the module, the one of Lemma 1 at ε = 0
// without the canonical order: the sum trees of prioritised experience
// replay, of Gillespie simulation and of weighted reservoirs. A Weighted is
// also a WeightedFinder (a map from a uniform number to an item), a
// WeightedDrawer (draws from its own source), or both.
//
// Never is an item of weight 0 found or drawn. With n = 0 or every weight
// 0 there is no distribution, and Total, Find and Draw return ErrEmpty. A
// call that returns an error leaves the sampler exactly as it was.
type Weighted interface {
	// Len returns n, the number of items.
	Len() int
	// Key returns the weight of item i. It panics unless 0 ≤ i < Len().
	Key(i int) float64
	// Set replaces the weight of item i by a, with the key rules and
	// errors of Distribution.Set: ErrEmpty with no items, then ErrIndex
	// for an index out of range,
	// ErrKey for a NaN, infinite or negative weight or one that would make
	// the exact sum of the weights exceed MaxSum. −0 is stored as 0.
	Set(i int, a float64) error
	// Total returns Σa, within relative 1e-9 of the exact sum (or one step
	// of the subnormal grid, where the sum is that small); ErrEmpty if n =
	// 0 or every weight is 0.
	Total() (float64, error)
}

// WeightedFinder is a Weighted that maps a uniform number to an item in
// index order, as a sum tree's prefix-sum search does.
type WeightedFinder interface {
	Weighted
	// Find returns the item i whose exact interval [S_{i−1}, S_i)/S holds
	// u, where S_i = a_0 + … + a_i is the exact prefix sum in index order
	// and S = S_{n−1}; within 1e-9 of an interval's edge either neighbour
	// may be returned, but never an item of weight 0. Errors: ErrEmpty (n =
	// 0 or every weight 0), then ErrUniform unless 0 ≤ u < 1 (NaN
	// rejected).
	Find(u float64) (int, error)
}

// WeightedDrawer is a Weighted that draws with its own use of a source of
// randomness, which may take several numbers per draw.
type WeightedDrawer interface {
	Weighted
	// Draw returns one item drawn from p_i = a_i / Σa, never one of weight
	// 0; ErrEmpty if n = 0 or every weight is 0. It leaves the sampler
	// unchanged.
	Draw(src rand.Source) (int, error)
}

// Proportional returns d as a weighted sampler at ε = 0, where Lemma 1's
// p* is p_i = a_i / Σa: Len, Key and Set are d's, Total is the λ of
// d.Solve(0) (which at ε = 0 is Σa, within the contract's relative 1e-9),
// and Draw is Draw(d, 0, src). It panics if d is neither a Sampler nor a
// LawSampler, as Draw would.
//
// The result is a WeightedDrawer only, never a WeightedFinder: a Sampler
// maps u to an item in the canonical order (keys descending), not in index
// order, so its Sample is not a Find; a LawSampler has no map at all. With
// every key 0, Draw uses one draw of d before it returns ErrEmpty (d would
// draw uniformly there; telling beforehand would cost a Solve a draw).
func Proportional(d Distribution) WeightedDrawer {
	switch any(d).(type) { // see probe
	case Sampler, LawSampler:
	default:
		panic(noDraw(d))
	}
	return proportional{d}
}

// proportional is the weighted sampler of a Distribution at ε = 0.
type proportional struct{ d Distribution }

func (p proportional) Len() int                   { return p.d.Len() }
func (p proportional) Key(i int) float64          { return p.d.Key(i) }
func (p proportional) Set(i int, a float64) error { return p.d.Set(i, a) }

func (p proportional) Total() (float64, error) {
	_, lambda, err := p.d.Solve(0)
	if err != nil {
		return 0, err
	}
	if lambda == 0 {
		return 0, fmt.Errorf("%w: every weight is 0", ErrEmpty)
	}
	return lambda, nil
}

func (p proportional) Draw(src rand.Source) (int, error) {
	i, _, err := Draw(p.d, 0, src)
	if err != nil {
		return 0, err
	}
	// At ε = 0 a draw never returns a key of 0 unless every key is 0,
	// where p* is uniform and a weighted sampler has no law.
	if p.d.Key(i) == 0 {
		return 0, fmt.Errorf("%w: every weight is 0", ErrEmpty)
	}
	return i, nil
}
