package driver

import (
	"math"
	"math/big"
	"math/bits"
	"sync"
)

// digits is the number of 32-bit digits of an exactSum: float64 values span
// 2^-1074 to 2^1024, 2098 bits, and up to 2^31 of them add 31 more.
const digits = 68

// exactSum is an exact accumulator of non-negative float64 values: an integer in
// units of 2^-1074 (every float64 is a whole number of them), held as 32-bit
// digits in int64 words so that carries can wait. Adding a value costs three
// word additions, whatever its exponent; nothing is rounded.
type exactSum struct {
	d    [digits]int64
	adds int // additions since the last carry propagation
}

// Reset sets the accumulator to 0.
func (x *exactSum) Reset() { *x = exactSum{} }

// units returns m and sh with a = m·2^sh units of 2^-1074, for finite a ≥ 0.
func units(a float64) (m uint64, sh int) {
	b := math.Float64bits(a)
	e := int(b >> 52 & 0x7ff)
	m = b & (1<<52 - 1)
	if e == 0 {
		return m, 0 // subnormal: m units
	}
	return m | 1<<52, e - 1
}

// Add adds a finite a ≥ 0.
func (x *exactSum) Add(a float64) {
	k, d0, d1, d2 := digitsOf(a)
	x.d[k] += d0
	x.d[k+1] += d1
	x.d[k+2] += d2
	// Each word gains less than 2^32 per addition: 2^30 additions fit in 62
	// bits.
	if x.adds++; x.adds == 1<<30 {
		x.carry()
	}
}

// Sub subtracts a finite a ≥ 0 that was added before: the digits may go
// negative, and carry brings them back, as long as the value stays ≥ 0.
func (x *exactSum) Sub(a float64) {
	k, d0, d1, d2 := digitsOf(a)
	x.d[k] -= d0
	x.d[k+1] -= d1
	x.d[k+2] -= d2
	if x.adds++; x.adds == 1<<30 {
		x.carry()
	}
}

// digitsOf returns a, finite and ≥ 0, as the 32-bit digits k, k+1 and k+2
// of a value in units of 2^-1074.
func digitsOf(a float64) (k int, d0, d1, d2 int64) {
	m, sh := units(a)
	o := uint(sh % 32)
	lo := m << o
	var hi uint64
	if o > 0 {
		hi = m >> (64 - o)
	}
	return sh / 32, int64(lo & 0xffffffff), int64(lo >> 32), int64(hi)
}

// carry propagates carries so that every digit is in [0, 2^32).
func (x *exactSum) carry() {
	for k := 0; k < digits-1; k++ {
		x.d[k+1] += x.d[k] >> 32
		x.d[k] &= 0xffffffff
	}
	x.adds = 0
}

// Int sets z to the accumulated value in units of 2^-1074 and returns z.
func (x *exactSum) Int(z *big.Int) *big.Int {
	x.carry()
	var words [digits / 2]big.Word
	if bits.UintSize == 64 {
		for k := range words {
			words[k] = big.Word(uint64(x.d[2*k]) | uint64(x.d[2*k+1])<<32)
		}
		return z.SetBits(append(z.Bits()[:0], words[:]...))
	}
	z.SetUint64(0)
	var w big.Int
	for k := digits - 1; k >= 0; k-- {
		z.Lsh(z, 32)
		z.Add(z, w.SetUint64(uint64(x.d[k])))
	}
	return z
}

// unitsInt sets z to a's value in units of 2^-1074 and returns z.
func unitsInt(z *big.Int, a float64) *big.Int {
	m, sh := units(a)
	z.SetUint64(m)
	return z.Lsh(z, uint(sh))
}

// maxSumUnits is MaxSum in units of 2^-1074.
var maxSumUnits = new(big.Int).Lsh(big.NewInt(1), 831+1074)

// scratch is the working memory of the exact decisions, pooled so that
// they allocate nothing once warm.
type scratch struct {
	acc                exactSum // for fits and Load
	lhs, rhs, e, t, kk big.Int
	// Probs' walk: its callback, bound once, writes p of the walked
	// items into dst.
	dst     []float64
	b       bound
	s       float64
	rho     int
	setProb func(int, float64)
}

var scratchPool = sync.Pool{New: func() any {
	s := new(scratch)
	s.setProb = func(i int, a float64) { s.dst[i] = s.b.prob(a, s.s, s.rho) }
	return s
}}

// holdsExact decides a·(1 − kε) ≥ ε·S exactly, for the key a at rank
// r = n − k, the sum S of the r largest keys accumulated in acc, and
// 0 < ε < 1/n. In units of 2^-1074, with A, E and N the integers of a, ε and
// S, both sides times 2^2148 are A·(2^1074 − k·E) and E·N.
func (s *scratch) holdsExact(a, eps float64, k int, acc *exactSum) bool {
	unitsInt(&s.lhs, a)
	unitsInt(&s.e, eps)
	s.t.SetUint64(1)
	s.t.Lsh(&s.t, 1074)
	s.kk.SetUint64(uint64(k))
	s.t.Sub(&s.t, s.rhs.Mul(&s.kk, &s.e))
	s.lhs.Mul(&s.lhs, &s.t)
	acc.Int(&s.t)
	s.rhs.Mul(&s.e, &s.t)
	return s.lhs.Cmp(&s.rhs) >= 0
}
