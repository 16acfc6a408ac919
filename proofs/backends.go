package proofs

import (
	"github.com/reweighted/reweighted"
	all "github.com/reweighted/reweighted/internal/backends"
)

// backends lists every backend whose p* the checks certify, of either
// kind; the first, the reference, also drives the SRG simulations.
var backends = all.Every()

// load returns a sampler of backend b holding keys.
func load(b all.Backend, keys []float64) (reweighted.Distribution, error) {
	return all.Load(b.Dist, keys)
}

// loadReference returns the reference backend, naive, holding keys, with
// its map from u to an item, which the simulations draw with.
func loadReference(keys []float64) (reweighted.Sampler, error) {
	return all.Load(all.All[0].New, keys)
}

// probs returns the vector of Prob values of s under ε.
func probs(s reweighted.Distribution, eps float64) ([]float64, error) {
	p := make([]float64, s.Len())
	for i := range p {
		var err error
		if p[i], err = s.Prob(i, eps); err != nil {
			return nil, err
		}
	}
	return p, nil
}
