package main

import (
	"encoding/json"
	"errors"
	"strconv"
	"testing"
	"time"

	"github.com/reweighted/reweighted"
	"github.com/stretchr/testify/require"
)

// countingSource counts the numbers taken from it and returns 12345 each
// time.
type countingSource struct{ taken int }

func (c *countingSource) Uint64() uint64 { c.taken++; return 12345 }

// lastSeed returns the seed of the last request sent to g, which must be a
// draw request.
func lastSeed(t *testing.T, g *Program) uint64 {
	t.Helper()
	require.NotEmpty(t, g.recent)
	var req struct {
		Op   string
		Seed uint64
	}
	require.NoError(t, json.Unmarshal([]byte(g.recent[len(g.recent)-1].req), &req))
	require.Equal(t, "draw", req.Op)
	return req.Seed
}

// Property (PROTOCOL.md, what the checker relies on): a draw request that
// the contract rejects — n = 0, a bad ε, without replacement more items
// than n, or slices of two lengths — is still sent, with seed 0, and takes
// no number from the kit's generator; a draw that must succeed, ε = 1/n
// included, takes exactly one and sends it as the seed.
func TestRejectedDrawTakesNoSeed(t *testing.T) {
	g := NewProgram([]string{ref, "-kind", "law"}, 10*time.Second)
	defer g.Close()
	for _, c := range []struct {
		name         string
		n            int
		eps          float64
		replace      bool
		items, probs int
		err          error
	}{
		{"empty with replacement", 0, 0, true, 1, 1, reweighted.ErrEmpty},
		{"empty, no items", 0, 0, false, 0, 0, reweighted.ErrEmpty},
		{"slices of two lengths", 2, 0.25, true, 2, 1, reweighted.ErrBatch},
		{"ε above 1/n", 2, 0.75, true, 1, 1, reweighted.ErrEpsilon},
		{"ε negative", 2, -0.25, true, 1, 1, reweighted.ErrEpsilon},
		{"more items than n without replacement", 2, 0.25, false, 3, 3, reweighted.ErrBatch},
	} {
		s := lawSampler{g.newBase(c.n)}
		src := &countingSource{}
		err := s.DrawBatch(c.eps, src, c.replace, make([]int, c.items), make([]float64, c.probs))
		require.ErrorIs(t, err, c.err, c.name)
		require.Zero(t, lastSeed(t, g), "%s: the seed sent", c.name)
		require.Zero(t, src.taken, "%s: numbers taken from the source", c.name)
	}
	for _, c := range []struct {
		n       int
		eps     float64
		replace bool
		m       int
	}{{2, 0.5, true, 3}, {2, 0, false, 2}, {1, 1, true, 1}, {3, 0, true, 0}} {
		s := lawSampler{g.newBase(c.n)}
		require.NoError(t, s.Set(0, 1))
		src := &countingSource{}
		require.NoError(t, s.DrawBatch(c.eps, src, c.replace, make([]int, c.m), make([]float64, c.m)), "%+v", c)
		require.Equal(t, uint64(12345), lastSeed(t, g), "%+v: the seed sent", c)
		require.Equal(t, 1, src.taken, "%+v: numbers taken from the source", c)
	}
}

// catch returns the protocol error f panics with, nil if it returns.
func catch(f func()) (perr *ProtocolError) {
	defer func() {
		if x := recover(); x != nil {
			perr = x.(*ProtocolError)
		}
	}()
	f()
	return nil
}

// Property: an item drawn outside [0, n) breaks the protocol, with the item
// and the range named; every item of [0, n) is accepted.
func TestItemOutOfRange(t *testing.T) {
	req := []byte(`{"op":"sample","eps":0,"u":0.5}`)
	for _, i := range []int{-1, 3, 4} {
		s := &base{g: NewProgram(nil, time.Second), n: 3}
		perr := catch(func() { s.inRange(req, i) })
		require.NotNil(t, perr, "item %d", i)
		require.Equal(t, `request {"op":"sample","eps":0,"u":0.5}: item `+strconv.Itoa(i)+` drawn, out of [0, 3)`, perr.Error())
	}
	s := &base{g: NewProgram(nil, time.Second), n: 3}
	for i := range 3 {
		require.Nil(t, catch(func() { s.inRange(req, i) }), "item %d", i)
	}
	require.Nil(t, s.g.broken)
}

// Property: a protocol error matches errProtocol and no error of the
// contract, so that it can never pass for a sampler's rejection.
func TestProtocolErrorMatchesOnlyItself(t *testing.T) {
	var err error = &ProtocolError{Request: "(none)", Problem: "broken"}
	require.True(t, errors.Is(err, errProtocol))
	for name, sentinel := range errorNames {
		require.False(t, errors.Is(err, sentinel), name)
	}
	require.False(t, errors.Is(err, errors.New("protocol")))
}

// sent returns how many requests g sends while f runs.
func sent(g *Program, f func()) int {
	before := g.count
	f()
	return g.count - before
}

// Property: samplers share the copies of the program only when there are
// more of them than copies. Each of three samplers gets a copy of its own,
// and goes on with it without a replay; a fourth takes the copy used
// longest ago, whose sampler alone is restored, with new and its one set.
func TestSamplersKeepTheirCopies(t *testing.T) {
	g := NewProgram([]string{ref}, 10*time.Second)
	defer g.Close()
	var s [4]mapSampler
	for k := range 3 {
		s[k] = mapSampler{g.newBase(2)}
		require.NoError(t, s[k].Set(0, float64(k+1)))
	}
	require.Len(t, g.procs, 3)
	for k := range 3 {
		require.Equal(t, 1, sent(g, func() { _, _, _ = s[k].Solve(0.25) }), "sampler %d", k)
	}
	// Sampler 0 was used longest ago now; use it again, so that sampler 1 is.
	require.Equal(t, 1, sent(g, func() { _, _ = s[0].Prob(0, 0.25) }))
	require.Equal(t, 1, sent(g, func() { s[3] = mapSampler{g.newBase(2)} }), "new on a copy")
	require.Len(t, g.procs, 3)
	require.Equal(t, 1, sent(g, func() { _, _, _ = s[3].Solve(0.5) }))
	require.Equal(t, 1, sent(g, func() { _, _, _ = s[0].Solve(0.5) }))
	require.Equal(t, 1, sent(g, func() { _, _, _ = s[2].Solve(0.5) }))
	var rho int
	var lambda float64
	require.Equal(t, 3, sent(g, func() { rho, lambda, _ = s[1].Solve(0.5) }), "new, set, solve")
	// Keys 2, 0 at ε = 1/2: ρ = 1, λ = 2/(1 − 1/2).
	require.Equal(t, 1, rho)
	require.Equal(t, 4.0, lambda)
}
