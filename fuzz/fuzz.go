// Package fuzz holds native Go fuzz targets that drive every backend at
// once and judge them against the exact oracle of package samplertest:
//
//	go test ./fuzz -fuzz FuzzDifferential -fuzztime 5m
//
// Plain go test replays the seeds of testdata/fuzz: the corpus of earlier
// fuzzing runs, including the inputs that once failed. The one bug fuzzing
// has found so far, in the harness's own decoding, also has a named
// regression test (TestTinyEpsStaysBelowBound).
package fuzz

import (
	"encoding/binary"

	"github.com/reweighted/reweighted"
	"github.com/reweighted/reweighted/naive"
	"github.com/reweighted/reweighted/ost"
	"github.com/reweighted/reweighted/samplertest"
	"github.com/reweighted/reweighted/segtree"
)

// Backend is a named sampler constructor.
type Backend struct {
	// Name identifies the backend in test names and failure messages.
	Name string
	// New returns an empty sampler of n items (all keys 0).
	New func(n int) reweighted.Sampler
}

// Backends lists every backend of the module.
var Backends = []Backend{
	{"naive", func(n int) reweighted.Sampler { return naive.New(n) }},
	{"ost", func(n int) reweighted.Sampler { return ost.New(n) }},
	{"segtree", func(n int) reweighted.Sampler { return segtree.New(n) }},
}

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
