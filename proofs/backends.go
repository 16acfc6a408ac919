package proofs

import (
	"github.com/reweighted/reweighted"
	"github.com/reweighted/reweighted/naive"
	"github.com/reweighted/reweighted/ost"
	"github.com/reweighted/reweighted/segtree"
)

// backend is a Sampler implementation under test.
type backend struct {
	name string
	new  func(n int) reweighted.Sampler
}

// backends lists every backend whose p* the checks certify; the first, the
// reference, also drives the SRG simulations.
var backends = []backend{
	{"naive", func(n int) reweighted.Sampler { return naive.New(n) }},
	{"ost", func(n int) reweighted.Sampler { return ost.New(n) }},
	{"segtree", func(n int) reweighted.Sampler { return segtree.New(n) }},
}

// load returns a sampler of backend b holding keys.
func load(b backend, keys []float64) (reweighted.Sampler, error) {
	s := b.new(len(keys))
	for i, a := range keys {
		if err := s.Set(i, a); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// probs returns the vector of Prob values of s under ε.
func probs(s reweighted.Sampler, eps float64) ([]float64, error) {
	p := make([]float64, s.Len())
	for i := range p {
		var err error
		if p[i], err = s.Prob(i, eps); err != nil {
			return nil, err
		}
	}
	return p, nil
}
