// Package backends lists every backend of the module, the one place where a
// new backend is added: the conformance suite (this package's tests), the
// state machines, histories and fuzz targets of package fuzz, the
// benchmarks, the checks of the paper's claims and the report all range
// over All.
package backends

import (
	"github.com/reweighted/reweighted"
	"github.com/reweighted/reweighted/btree"
	"github.com/reweighted/reweighted/naive"
	"github.com/reweighted/reweighted/ost"
	"github.com/reweighted/reweighted/segtree"
)

// Backend is a named sampler constructor.
type Backend struct {
	// Name identifies the backend in flags, test names and reports.
	Name string
	// New returns a sampler of n items, all keys 0.
	New func(n int) reweighted.Sampler
	// MaxN is the largest n worth benchmarking: naive's Set is O(n).
	MaxN int
	// LinearSet marks a backend whose Set costs O(n) when an item moves:
	// benchmarks fill it in canonical order, so that nothing moves.
	LinearSet bool
	// Exactness is what the backend guarantees of its draws.
	Exactness Exactness
}

// Exactness names what a backend guarantees of the items it draws.
type Exactness string

const (
	// MapExact: for the same keys, ε and u, the item Algorithm 4 maps u to
	// (but within 1e-9 of an interval's edge), so the draws follow p*.
	MapExact Exactness = "map-exact"
	// LawExact: draws distributed as p*, by any map from the random
	// numbers; the same u may give another item than Algorithm 4's.
	LawExact Exactness = "law-exact"
)

// Promise says in a sentence what e guarantees.
func (e Exactness) Promise() string {
	switch e {
	case MapExact:
		return "the same item as Algorithm 4 for the same uniform u (but within 1e-9 of an interval's edge), so its draws follow p* of Lemma 1"
	case LawExact:
		return "draws distributed as p* of Lemma 1, not necessarily the item Algorithm 4 maps the same u to"
	}
	return "not stated"
}

// Guarantee is the backend's exactness and its promise, for reports:
// "map-exact: the same item as …".
func (b Backend) Guarantee() string {
	if b.Exactness == "" {
		return ""
	}
	return string(b.Exactness) + ": " + b.Exactness.Promise()
}

// All lists the backends, the reference (naive) first.
var All = []Backend{
	{Name: "naive", New: func(n int) reweighted.Sampler { return naive.New(n) }, MaxN: 1 << 16, LinearSet: true, Exactness: MapExact},
	{Name: "ost", New: func(n int) reweighted.Sampler { return ost.New(n) }, MaxN: 1 << 20, Exactness: MapExact},
	{Name: "segtree", New: func(n int) reweighted.Sampler { return segtree.New(n) }, MaxN: 1 << 20, Exactness: MapExact},
	{Name: "btree", New: func(n int) reweighted.Sampler { return btree.New(n) }, MaxN: 1 << 20, Exactness: MapExact},
}

// ByName returns the backend called name.
func ByName(name string) (Backend, bool) {
	for _, b := range All {
		if b.Name == name {
			return b, true
		}
	}
	return Backend{}, false
}

// Names lists the names of All.
func Names() []string {
	names := make([]string, len(All))
	for k, b := range All {
		names[k] = b.Name
	}
	return names
}

// Load returns a sampler made by newSampler holding keys: through its Load
// method when it has one, else by Set in index order.
func Load(newSampler func(n int) reweighted.Sampler, keys []float64) (reweighted.Sampler, error) {
	s := newSampler(len(keys))
	if l, ok := s.(interface{ Load([]float64) error }); ok {
		return s, l.Load(keys)
	}
	for i, a := range keys {
		if err := s.Set(i, a); err != nil {
			return nil, err
		}
	}
	return s, nil
}
