package main

import (
	"fmt"
	"math"
	"math/big"

	"github.com/reweighted/reweighted"
	"github.com/reweighted/reweighted/bench"
	"github.com/reweighted/reweighted/samplertest"
	"pgregory.net/rapid"
)

// diffRel is how far the backends' λ may differ, relatively: twice the
// contract's tolerance to the exact λ, since each may be off by that much.
const diffRel = 2 * samplertest.RelLambda

// backend is a sampler under conformance check.
type backend struct {
	name string
	new  func(n int) reweighted.Sampler
}

// backends lists the samplers of bench.Impls (gonum's Weighted is no
// reweighted.Sampler and is not checked).
func backends() []backend {
	var bs []backend
	for _, impl := range bench.Impls {
		if impl.New != nil {
			bs = append(bs, backend{impl.Name, impl.New})
		}
	}
	return bs
}

// confState is one random state: keys, the bounds and the uniform numbers
// every backend is checked at.
type confState struct {
	keys []float64
	eps  []float64
	us   []float64
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

// fill returns a sampler of len(keys) items holding keys.
func fill(newSampler func(int) reweighted.Sampler, keys []float64) (reweighted.Sampler, error) {
	s := newSampler(len(keys))
	for i, a := range keys {
		if err := s.Set(i, a); err != nil {
			return nil, fmt.Errorf("Set(%d, %v): %w", i, a, err)
		}
	}
	return s, nil
}

// checkConformance runs samplertest.Verify on every backend at states
// random states of up to maxN items (every tenth of up to bigN, for deeper
// trees), and compares the backends with each other on the same states.
func checkConformance(seed uint64, states, maxN, bigN int, pr *progress) ([]Conformance, Differential) {
	bs := backends()
	conf := make([]Conformance, len(bs))
	for b := range bs {
		conf[b].Backend = bs[b].name
	}
	var diff Differential
	pr.Start("conformance", states)
	for k := range states {
		limit := maxN
		if k%10 == 9 {
			limit = bigN
		}
		st := drawState(seed, k, limit)
		samplers := make([]reweighted.Sampler, len(bs))
		for b, be := range bs {
			c := &conf[b]
			c.States++
			s, err := fill(be.new, st.keys)
			if err != nil {
				c.Checks++
				c.fail(fmt.Sprintf("state %d (n = %d): %v", k, len(st.keys), err))
				continue
			}
			samplers[b] = s
			for _, eps := range st.eps {
				c.Checks++
				if err := samplertest.Verify(s, st.keys, eps, st.us); err != nil {
					c.fail(fmt.Sprintf("state %d (n = %d): %v", k, len(st.keys), err))
				}
			}
		}
		differential(&diff, k, st, bs, samplers)
		pr.Step()
	}
	failures := diff.Failures
	for _, c := range conf {
		failures += c.Failures
	}
	pr.Done(fmt.Sprintf("%d failures", failures))
	return conf, diff
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

// differential compares the samplers of one state with the first one: the
// same ρ, λ within diffRel, and the same item for each u, unless u lies
// within samplertest.UDist of an edge of the exact interval of an item
// drawn (there the contract lets floating point move the boundary).
func differential(d *Differential, k int, st confState, bs []backend, samplers []reweighted.Sampler) {
	for _, s := range samplers {
		if s == nil {
			return // filling failed; already reported
		}
	}
	d.States++
	ref := samplers[0]
	where := func(b int, eps float64) string {
		return fmt.Sprintf("state %d (n = %d), ε = %v: %s vs %s", k, len(st.keys), eps, bs[0].name, bs[b].name)
	}
	for _, eps := range st.eps {
		rho0, lam0, err0 := ref.Solve(eps)
		var ex *samplertest.Exact
		for b := 1; b < len(samplers); b++ {
			d.Solves++
			rho, lam, err := samplers[b].Solve(eps)
			if (err == nil) != (err0 == nil) || rho != rho0 || !closeRel(lam, lam0, diffRel) {
				d.fail(fmt.Sprintf("%s: Solve = (%d, %v, %v) vs (%d, %v, %v)", where(b, eps), rho0, lam0, err0, rho, lam, err))
				continue
			}
			for _, u := range st.us {
				d.Samples++
				i0, _, err0 := ref.Sample(eps, u)
				i, _, err := samplers[b].Sample(eps, u)
				if err != nil || err0 != nil {
					d.fail(fmt.Sprintf("%s: Sample(u = %v) errors %v, %v", where(b, eps), u, err0, err))
					continue
				}
				if i == i0 {
					continue
				}
				if ex == nil {
					ex = samplertest.Oracle(st.keys, eps)
				}
				if nearEdge(ex, u, i0, rho0) || nearEdge(ex, u, i, rho) {
					d.AtEdge++
					continue
				}
				d.fail(fmt.Sprintf("%s: Sample(u = %v) = item %d vs %d", where(b, eps), u, i0, i))
			}
		}
	}
}

// nearEdge reports whether u lies within samplertest.UDist of an end of
// item i's exact interval under rho.
func nearEdge(ex *samplertest.Exact, u float64, i, rho int) bool {
	lo, hi := ex.Interval(i, rho)
	for _, e := range []*big.Rat{lo, hi} {
		f, _ := e.Float64()
		if math.Abs(u-f) <= samplertest.UDist {
			return true
		}
	}
	return false
}

// closeRel reports whether x and y agree within rel, relatively.
func closeRel(x, y, rel float64) bool {
	if x == y {
		return true
	}
	// A subnormal λ carries few significant bits; one step of the smallest
	// subnormal is as close as two floats there can be.
	d := math.Abs(x - y)
	return d <= rel*math.Max(math.Abs(x), math.Abs(y)) || d <= 2*math.SmallestNonzeroFloat64
}
