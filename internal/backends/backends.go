// Package backends lists every backend of the module, the one place where a
// new backend is added: the conformance suite (this package's tests), the
// state machines, histories and fuzz targets of package fuzz, the
// benchmarks, the checks of the paper's claims and the report all range
// over All (the map-exact backends, which have Sample) or Every (those and
// the law-exact ones, which draw only by their law); every one of them is
// also a weighted sampler at ε = 0 (Backend.Weighted).
package backends

import (
	"github.com/reweighted/reweighted"
	"github.com/reweighted/reweighted/btree"
	"github.com/reweighted/reweighted/levels"
	"github.com/reweighted/reweighted/naive"
	"github.com/reweighted/reweighted/ost"
	"github.com/reweighted/reweighted/segtree"
)

// Backend is a named sampler constructor.
type Backend struct {
	// Name identifies the backend in flags, test names and reports.
	Name string
	// New returns a map-exact sampler of n items, all keys 0; nil for a
	// law-exact backend.
	New func(n int) reweighted.Sampler
	// Law returns a law-exact sampler of n items, all keys 0; nil for a
	// map-exact backend.
	Law func(n int) reweighted.Distribution
	// MaxN is the largest n worth benchmarking: naive's Set is O(n).
	MaxN int
	// LinearSet marks a backend whose Set costs O(n) when an item moves:
	// benchmarks fill it in canonical order, so that nothing moves.
	LinearSet bool
}

// All lists the map-exact backends, the reference (naive) first.
var All = []Backend{
	{Name: "naive", New: func(n int) reweighted.Sampler { return naive.New(n) }, MaxN: 1 << 16, LinearSet: true},
	{Name: "ost", New: func(n int) reweighted.Sampler { return ost.New(n) }, MaxN: 1 << 20},
	{Name: "segtree", New: func(n int) reweighted.Sampler { return segtree.New(n) }, MaxN: 1 << 20},
	{Name: "btree", New: func(n int) reweighted.Sampler { return btree.New(n) }, MaxN: 1 << 20},
}

// Dist returns a sampler of n items, all keys 0, of either kind.
func (b Backend) Dist(n int) reweighted.Distribution {
	if b.New != nil {
		return b.New(n)
	}
	return b.Law(n)
}

// Weighted returns a weighted sampler of n items, all weights 0: the
// backend at ε = 0 through reweighted.Proportional, which draws from
// p_i = a_i/Σa and has no Find (a map-exact backend maps u in canonical
// order, not index order).
func (b Backend) Weighted(n int) reweighted.Weighted {
	return reweighted.Proportional(b.Dist(n))
}

// MapExact reports whether the backend has Sample, Algorithm 4's map from
// a uniform number to an item.
func (b Backend) MapExact() bool { return b.New != nil }

// Guarantee says in a few words what the backend's draws promise.
func (b Backend) Guarantee() string {
	if b.MapExact() {
		return "map-exact: the same item for the same uniform number as Algorithm 4, in every map-exact backend"
	}
	return "law-exact: draws with exactly the law p*, with its own use of the random source; no map from a uniform number to an item"
}

// Law lists the law-exact backends.
var Law = []Backend{
	{Name: "levels", Law: func(n int) reweighted.Distribution { return levels.New(n) }, MaxN: 1 << 20},
}

// Every returns the map-exact backends, then the law-exact ones.
func Every() []Backend { return append(append([]Backend(nil), All...), Law...) }

// ByName returns the backend called name, of either kind.
func ByName(name string) (Backend, bool) {
	for _, b := range Every() {
		if b.Name == name {
			return b, true
		}
	}
	return Backend{}, false
}

// Names lists the names of Every().
func Names() []string {
	var names []string
	for _, b := range Every() {
		names = append(names, b.Name)
	}
	return names
}

// Load returns a sampler made by newSampler holding keys: through its Load
// method when it has one, else by Set in index order.
func Load[S reweighted.Distribution](newSampler func(n int) S, keys []float64) (S, error) {
	s := newSampler(len(keys))
	if l, ok := any(s).(interface{ Load([]float64) error }); ok {
		return s, l.Load(keys)
	}
	for i, a := range keys {
		if err := s.Set(i, a); err != nil {
			var zero S
			return zero, err
		}
	}
	return s, nil
}
