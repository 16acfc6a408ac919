package proofs

import (
	"github.com/reweighted/reweighted"
	all "github.com/reweighted/reweighted/internal/backends"
)

// backends lists every backend whose p* the checks certify; the first, the
// reference, also drives the SRG simulations.
var backends = all.All

// load returns a sampler of backend b holding keys.
func load(b all.Backend, keys []float64) (reweighted.Sampler, error) {
	return all.Load(b.New, keys)
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
