package main

import (
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"

	"github.com/reweighted/reweighted"
	"github.com/reweighted/reweighted/internal/backends"
	"github.com/reweighted/reweighted/samplertest"
	"pgregory.net/rapid"
)

// confState is one random state: keys, the bounds and the uniform numbers
// every backend is checked at.
type confState struct {
	keys []float64
	eps  []float64
	us   []float64
	near bool // keys on the cutoff of Lemma 1 (samplertest.NearCutoff)
}

// drawState draws state k from seed with samplertest's generators: n up to
// maxN, keys with ties, zeros, subnormals and huge values, the edge bounds
// and a few random ones, the edge u and a few random ones.
func drawState(seed uint64, k, maxN int) confState {
	base := int(seed%(1<<30))*7919 + k*101
	n := rapid.IntRange(1, maxN).Example(base)
	st := confState{keys: samplertest.Keys(n).Example(base + 1)}
	st.eps = append(st.eps, samplertest.EdgeEps(n)...)
	for j := range 4 {
		st.eps = append(st.eps, samplertest.Eps(n).Example(base+2+j))
	}
	st.us = append(st.us, samplertest.EdgeU...)
	for j := range 8 {
		st.us = append(st.us, samplertest.U().Example(base+10+j))
	}
	return st
}

// nearState draws state k of the near-cutoff kind: keys on the cutoff of
// Lemma 1 or a few ulps off it (samplertest.NearCutoff), at their bound and
// the edge bounds, with u at the edges of every exact interval.
func nearState(seed uint64, k, maxN int) confState {
	rng := rand.New(rand.NewPCG(seed, uint64(k)))
	n := 2 + rng.IntN(max(1, maxN-1))
	in := samplertest.NearCutoffFromBits(n, rng.Uint64)
	st := confState{keys: in.Keys, eps: append([]float64{in.Eps}, samplertest.EdgeEps(n)...), near: true}
	ex := samplertest.Oracle(in.Keys, in.Eps)
	st.us = append(st.us, samplertest.EdgeU...)
	for _, r := range []int{1, ex.Rho, min(ex.Rho+1, n), n} {
		lo, hi := ex.Interval(ex.Order[r-1], ex.Rho)
		for _, x := range []*big.Rat{lo, hi} {
			f, _ := x.Float64()
			for _, u := range []float64{math.Nextafter(f, 0), f, math.Nextafter(f, 1)} {
				if u >= 0 && u < 1 {
					st.us = append(st.us, u)
				}
			}
		}
	}
	return st
}

// The conformance kit's two modes; a variable so that the command's tests
// can check what the report does with a kit's verdict without running the
// whole kit, which internal/backends' tests run on every backend.
var (
	mapKit = samplertest.Check
	lawKit = samplertest.CheckLaw
)

// conformanceUnits is the number of progress steps of the conformance
// stage: the kit's two modes on each backend, then one per state.
func conformanceUnits(backends, states int) int { return 2*backends + states }

// checkConformance runs the conformance kit on every backend — the map
// mode (samplertest.Check) on the map-exact ones and the law mode
// (samplertest.CheckLaw) on the law-exact ones — then samplertest.Verify (VerifyLaw for a
// law-exact backend) on states states: random ones of up to maxN items
// (every tenth of up to bigN, for deeper trees) alternating with
// near-cutoff ones; and it compares the map-exact backends with each
// other, item for item, and with the exact map of Algorithm 4 on the same
// states.
func checkConformance(seed uint64, states, maxN, bigN int, pr *progress) ([]Conformance, Differential) {
	bs := backends.Every()
	conf := make([]Conformance, len(bs))
	pr.Start("conformance", conformanceUnits(len(bs), states))
	for b, be := range bs {
		conf[b].Backend = be.Name
		conf[b].Guarantee = be.Guarantee()
		conf[b].Kit = "pass"
		if !be.MapExact() {
			conf[b].Kit = "law-exact: no map"
		} else if err := mapKit(be.New); err != nil {
			conf[b].Kit = err.Error()
		}
		pr.Step()
		// The map mode implies the law of a map-exact backend's draws (each
		// is the item of its u's exact interval), and internal/backends'
		// tests run the law mode on those too: here it runs where it is
		// the only kit.
		conf[b].LawKit = "pass"
		if be.MapExact() {
			conf[b].LawKit = "by the map mode"
		} else if err := lawKit(be.Dist); err != nil {
			conf[b].LawKit = err.Error()
		}
		pr.Step()
	}
	var diff Differential
	for k := range states {
		var st confState
		switch {
		case k%2 == 1:
			st = nearState(seed, k, maxN)
		case k%10 == 8:
			st = drawState(seed, k, bigN)
		default:
			st = drawState(seed, k, maxN)
		}
		// The map-exact samplers of this state, and their names beside them.
		var samplers []reweighted.Sampler
		var names []string
		for b, be := range bs {
			c := &conf[b]
			c.States++
			if st.near {
				c.NearCutoff++
			}
			s, err := backends.Load(be.Dist, st.keys)
			if err != nil {
				c.Checks++
				c.fail(fmt.Sprintf("state %d (n = %d): %v", k, len(st.keys), err))
				if be.MapExact() {
					samplers, names = append(samplers, nil), append(names, be.Name)
				}
				continue
			}
			m, isMap := s.(reweighted.Sampler)
			if isMap {
				samplers, names = append(samplers, m), append(names, be.Name)
			}
			for _, eps := range st.eps {
				c.Checks++
				if isMap {
					err = samplertest.Verify(m, st.keys, eps, st.us)
				} else {
					err = samplertest.VerifyLaw(s, st.keys, eps)
				}
				if err != nil {
					c.fail(fmt.Sprintf("state %d (n = %d): %v", k, len(st.keys), err))
				}
			}
		}
		differential(&diff, k, st, samplers, names)
		pr.Step()
	}
	failures := diff.Failures
	for _, c := range conf {
		failures += c.Failures
		if c.KitFailed() {
			failures++
		}
	}
	pr.Done(fmt.Sprintf("%d failures", failures))
	return conf, diff
}

// KitFailed reports whether a conformance kit failed on the backend.
func (c *Conformance) KitFailed() bool {
	return (c.Kit != "pass" && c.Kit != "law-exact: no map") || (c.LawKit != "pass" && c.LawKit != "by the map mode")
}

func (c *Conformance) fail(msg string) {
	if c.Failures == 0 {
		c.FirstFailure = msg
	}
	c.Failures++
}

func (d *Differential) fail(msg string) {
	if d.Failures == 0 {
		d.FirstFailure = msg
	}
	d.Failures++
}

// differential compares the map-exact samplers of one state, named by
// names, with the first one
// (samplertest.Compare: the same ρ, the same item for each u but within
// samplertest.UDist of an exact interval's edge), and counts the draws
// that are the exact map's item.
func differential(d *Differential, k int, st confState, samplers []reweighted.Sampler, names []string) {
	for _, s := range samplers {
		if s == nil {
			return // loading failed; already reported
		}
	}
	d.States++
	if st.near {
		d.NearCutoff++
	}
	for _, eps := range st.eps {
		ex := samplertest.Oracle(st.keys, eps)
		for b, s := range samplers {
			d.Solves++
			if b > 0 {
				edges, err := samplertest.Compare(samplers[0], s, st.keys, eps, st.us)
				d.AtEdge += edges
				if err != nil {
					d.fail(fmt.Sprintf("state %d (n = %d), %s vs %s: %v", k, len(st.keys), names[0], names[b], err))
				}
			}
			for _, u := range st.us {
				d.Samples++
				if i, _, err := s.Sample(eps, u); err == nil && i == ex.Locate(u) {
					d.ExactItems++
				}
			}
		}
	}
}
