package reweighted

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"math"
	"math/big"
)

// ErrFormat reports bytes that are not the saved state of a sampler:
// truncated or too long, a wrong magic number or version, a checksum
// mismatch, a count of keys the bytes cannot hold, an extension a backend
// cannot read, or keys that Set would refuse (those errors wrap ErrKey
// too).
var ErrFormat = errors.New("reweighted: invalid saved state")

// The saved state of a sampler, written by AppendState and read by
// DecodeState, is specified byte by byte in one place, the module's
// docs/sampler.md ("The saved state, byte by byte"): a magic, a version,
// n, the keys, an extension and a CRC-32C, little endian.
const (
	stateMagic   = "RWKS"
	stateVersion = 1
	stateHeader  = 16 // magic, version, n
	stateFixed   = stateHeader + 8 + 4
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// StateSize returns the length of the saved state of n keys with an
// extension of ext bytes.
func StateSize(n, ext int) int { return stateFixed + 8*n + ext }

// AppendState appends the saved state of d to b and returns it: the keys
// of d, bit for bit, and the extension that ext appends (none if ext is
// nil), checksummed. A backend whose draws depend on
// more than its keys (the order of its items inside its structures)
// writes that in its extension, under a tag of its own; any other reader
// ignores it. AppendState validates nothing: the keys of a Distribution are
// valid.
func AppendState(b []byte, d Distribution, ext func([]byte) []byte) []byte {
	start := len(b)
	n := d.Len()
	b = append(b, stateMagic...)
	b = binary.LittleEndian.AppendUint32(b, stateVersion)
	b = binary.LittleEndian.AppendUint64(b, uint64(n))
	for i := range n {
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(d.Key(i)))
	}
	at := len(b)
	b = binary.LittleEndian.AppendUint64(b, 0)
	if ext != nil {
		b = ext(b)
		binary.LittleEndian.PutUint64(b[at:], uint64(len(b)-at-8))
	}
	return binary.LittleEndian.AppendUint32(b, crc32.Checksum(b[start:], castagnoli))
}

// DecodeState reads the saved state that AppendState writes and returns its
// keys and its extension (nil if empty; it shares data's memory). The keys
// are those Set would accept, −0 turned into 0, and their exact sum is at
// most MaxSum, so any backend's Load takes them. Every error wraps
// ErrFormat (and ErrKey for a key Set would refuse), and nothing is
// allocated unless the bytes hold the keys claimed: the keys returned take
// no more bytes than the input.
func DecodeState(data []byte) (keys []float64, ext []byte, err error) {
	if len(data) < stateFixed {
		return nil, nil, fmt.Errorf("%w: %d bytes, fewer than the %d of an empty state", ErrFormat, len(data), stateFixed)
	}
	if string(data[:4]) != stateMagic {
		return nil, nil, fmt.Errorf("%w: magic %q, not %q", ErrFormat, data[:4], stateMagic)
	}
	if v := binary.LittleEndian.Uint32(data[4:]); v != stateVersion {
		return nil, nil, fmt.Errorf("%w: version %d, not %d", ErrFormat, v, stateVersion)
	}
	n := binary.LittleEndian.Uint64(data[8:])
	if room := uint64(len(data)-stateFixed) / 8; n > room || n > math.MaxInt32 {
		return nil, nil, fmt.Errorf("%w: %d keys claimed, in %d bytes", ErrFormat, n, len(data))
	}
	end := stateHeader + 8*int(n)
	l := binary.LittleEndian.Uint64(data[end:])
	if want := uint64(len(data) - stateFixed - 8*int(n)); l != want {
		return nil, nil, fmt.Errorf("%w: an extension of %d bytes claimed, %d held", ErrFormat, l, want)
	}
	body := len(data) - 4
	if sum, want := crc32.Checksum(data[:body], castagnoli), binary.LittleEndian.Uint32(data[body:]); sum != want {
		return nil, nil, fmt.Errorf("%w: checksum %#08x, computed %#08x", ErrFormat, want, sum)
	}
	keys = make([]float64, n)
	total := 0.0
	for i := range keys {
		a := math.Float64frombits(binary.LittleEndian.Uint64(data[stateHeader+8*i:]))
		if !(a >= 0 && a <= MaxSum) {
			return nil, nil, fmt.Errorf("%w: key of item %d: %w: %v", ErrFormat, i, ErrKey, a)
		}
		keys[i] = a + 0 // −0 → 0
		total += keys[i]
	}
	// The float sum of n ≤ 2^31 keys is within a relative 2^-22 of the
	// exact one: only near MaxSum is the exact sum needed.
	if total > MaxSum*(1-0x1p-16) {
		var e exactSum
		e.init()
		for _, a := range keys {
			e.add(a)
		}
		if !e.fits() {
			return nil, nil, fmt.Errorf("%w: %w: the keys sum to more than MaxSum", ErrFormat, ErrKey)
		}
	}
	if end+8 < body {
		ext = data[end+8 : body]
	}
	return keys, ext, nil
}

// exactSum is an exact sum of keys, in a float of 2,048 bits, which holds
// every sum of keys and of their differences (multiples of 2^-1074 below
// 2^862) without rounding.
type exactSum struct{ sum, x big.Float }

func (e *exactSum) init() {
	e.sum.SetPrec(2048)
	e.x.SetPrec(2048)
}

func (e *exactSum) add(a float64) { e.sum.Add(&e.sum, e.x.SetFloat64(a)) }
func (e *exactSum) sub(a float64) { e.sum.Sub(&e.sum, e.x.SetFloat64(a)) }

// fits reports whether the sum is at most MaxSum.
func (e *exactSum) fits() bool { return e.sum.Cmp(e.x.SetFloat64(MaxSum)) <= 0 }
