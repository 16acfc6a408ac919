package driver

import (
	"math"
	"math/big"
)

// digits is the number of 32-bit digits of an Acc: float64 values span
// 2^-1074 to 2^1024, 2098 bits, and up to 2^31 of them add 31 more.
const digits = 68

// Acc is an exact accumulator of non-negative float64 values: an integer in
// units of 2^-1074 (every float64 is a whole number of them), held as 32-bit
// digits in int64 words so that carries can wait. Adding a value costs three
// word additions, whatever its exponent; nothing is rounded.
type Acc struct {
	d    [digits]int64
	adds int // additions since the last carry propagation
}

// Reset sets the accumulator to 0.
func (x *Acc) Reset() { *x = Acc{} }

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
func (x *Acc) Add(a float64) {
	m, sh := units(a)
	k, o := sh/32, uint(sh%32)
	lo := m << o
	var hi uint64
	if o > 0 {
		hi = m >> (64 - o)
	}
	x.d[k] += int64(lo & 0xffffffff)
	x.d[k+1] += int64(lo >> 32)
	x.d[k+2] += int64(hi)
	// Each word gains less than 2^32 per addition: 2^30 additions fit in 62
	// bits.
	if x.adds++; x.adds == 1<<30 {
		x.carry()
	}
}

// carry propagates carries so that every digit is in [0, 2^32).
func (x *Acc) carry() {
	for k := 0; k < digits-1; k++ {
		x.d[k+1] += x.d[k] >> 32
		x.d[k] &= 0xffffffff
	}
	x.adds = 0
}

// Int sets z to the accumulated value in units of 2^-1074 and returns z.
func (x *Acc) Int(z *big.Int) *big.Int {
	x.carry()
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

// holdsExact decides a·(1 − kε) ≥ ε·S exactly, for the key a at rank
// r = n − k, the sum S of the r largest keys accumulated in acc, and
// 0 < ε < 1/n. In units of 2^-1074, with A, E and N the integers of a, ε and
// S, both sides times 2^2148 are A·(2^1074 − k·E) and E·N.
func holdsExact(a, eps float64, k int, acc *Acc) bool {
	var lhs, rhs, e, t big.Int
	unitsInt(&lhs, a)
	unitsInt(&e, eps)
	t.Lsh(big.NewInt(1), 1074)
	t.Sub(&t, rhs.Mul(big.NewInt(int64(k)), &e))
	lhs.Mul(&lhs, &t)
	acc.Int(&t)
	rhs.Mul(&e, &t)
	return lhs.Cmp(&rhs) >= 0
}
