// Package fuzz holds native Go fuzz targets that drive every backend at
// once and judge them against the exact oracle of package samplertest:
//
//	go test ./fuzz -fuzz FuzzDifferential -fuzztime 5m
//
// The decoders put keys on the cutoff of Lemma 1, or a few ulps off it, at
// every scale (Reader.NearCutoff, samplertest.NearCutoff), where a float
// predicate would pick another ρ than exact arithmetic; every answer is
// judged against the exact ρ and the exact intervals of Algorithm 4, and the
// backends are compared item for item (samplertest.Compare). Plain go test
// replays the seeds of testdata/fuzz: the corpus of earlier fuzzing runs
// (five minutes per target), including the inputs that once failed. The one
// bug fuzzing has found so far, in the harness's own decoding, also has a
// named regression test (TestTinyEpsStaysBelowBound). The tests of this
// package also compare every backend with naive over long seeded histories
// (Histories, which takes any constructor func(n int) reweighted.Sampler, so
// a backend outside this module gets them too) and on 300 near-cutoff instances
// (TestBackendsAgreeNearCutoff), and run the kit's state machine on a few
// hundred items (TestStateMachines), with each backend's Check after every
// step; both run longer with -long. A law-exact backend, which has no
// Sample, gets the same histories through LawHistories (keys, ρ, λ and p*
// against naive, draws and per-attempt law against the exact oracle) and
// the kit's law-mode state machine (TestLawStateMachines, FuzzStateMachine).
package fuzz

import (
	"encoding/binary"

	"github.com/reweighted/reweighted/samplertest"
)

// Reader decodes fuzz bytes into values; past the end it yields zeros, so
// every byte string decodes to some program.
type Reader struct{ b []byte }

// NewReader reads from b.
func NewReader(b []byte) *Reader { return &Reader{b} }

// Len returns the number of bytes left.
func (r *Reader) Len() int { return len(r.b) }

// Byte returns the next byte.
func (r *Reader) Byte() byte {
	if len(r.b) == 0 {
		return 0
	}
	c := r.b[0]
	r.b = r.b[1:]
	return c
}

// Uint64 returns the next 8 bytes, little-endian.
func (r *Reader) Uint64() uint64 {
	var buf [8]byte
	k := copy(buf[:], r.b)
	r.b = r.b[k:]
	return binary.LittleEndian.Uint64(buf[:])
}

// Key decodes a valid key for n items (see samplertest.KeyFromBits).
func (r *Reader) Key(n int) float64 {
	kind := r.Byte()
	return samplertest.KeyFromBits(kind, r.Uint64(), n)
}

// Eps decodes a valid bound for n items (see samplertest.EpsFromBits).
func (r *Reader) Eps(n int) float64 {
	kind := r.Byte()
	return samplertest.EpsFromBits(kind, r.Uint64(), n)
}

// U decodes a uniform number in [0, 1).
func (r *Reader) U() float64 {
	return float64(r.Uint64()>>11) / (1 << 53)
}

// NearCutoff decodes a key vector for n items and a bound whose tail keys
// sit on the cutoff of Lemma 1 or a few ulps off it (see
// samplertest.NearCutoff).
func (r *Reader) NearCutoff(n int) samplertest.Instance {
	return samplertest.NearCutoffFromBits(n, r.Uint64)
}
