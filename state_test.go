package reweighted_test

import (
	"encoding/binary"
	"hash/crc32"
	"math"
	"runtime"
	"testing"

	"github.com/reweighted/reweighted"
	"github.com/reweighted/reweighted/naive"
	"github.com/stretchr/testify/require"
)

// sealed sets the checksum of a saved state b to that of its bytes.
func sealed(b []byte) []byte {
	binary.LittleEndian.PutUint32(b[len(b)-4:], crc32.Checksum(b[:len(b)-4], crc32.MakeTable(crc32.Castagnoli)))
	return b
}

// The saved state holds the keys bit for bit and the extension as written,
// after whatever b held, in the layout the format specifies, which this
// test spells out on its own.
func TestStateLayout(t *testing.T) {
	keys := []float64{0, 1, math.SmallestNonzeroFloat64, 3.5, reweighted.MaxSum / 4}
	s := naive.New(len(keys))
	require.NoError(t, s.Load(keys))
	b := reweighted.AppendState([]byte("xyz"), s, func(b []byte) []byte { return append(b, "TAG1abc"...) })
	require.Len(t, b, 3+reweighted.StateSize(len(keys), 7))
	require.Equal(t, "xyzRWKS", string(b[:7]))
	b = b[3:]
	require.Equal(t, uint32(1), binary.LittleEndian.Uint32(b[4:]))
	require.Equal(t, uint64(len(keys)), binary.LittleEndian.Uint64(b[8:]))
	for i, a := range keys {
		require.Equal(t, math.Float64bits(a), binary.LittleEndian.Uint64(b[16+8*i:]))
	}
	require.Equal(t, uint64(7), binary.LittleEndian.Uint64(b[16+8*len(keys):]))
	require.Equal(t, crc32.Checksum(b[:len(b)-4], crc32.MakeTable(crc32.Castagnoli)), binary.LittleEndian.Uint32(b[len(b)-4:]))
	got, ext, err := reweighted.DecodeState(b)
	require.NoError(t, err)
	require.Equal(t, keys, got)
	require.Equal(t, "TAG1abc", string(ext))

	// No extension: nil. A key −0 written by hand reads as 0.
	b = reweighted.AppendState(nil, s, nil)
	binary.LittleEndian.PutUint64(b[16:], math.Float64bits(math.Copysign(0, -1)))
	got, ext, err = reweighted.DecodeState(sealed(b))
	require.NoError(t, err)
	require.Nil(t, ext)
	require.Equal(t, uint64(0), math.Float64bits(got[0]))
}

// A state of 28 bytes that claims 2^60 keys, or 2^31, is refused with
// ErrFormat before anything of its claim is allocated.
func TestStateClaimAllocatesNothing(t *testing.T) {
	for _, n := range []uint64{1 << 60, 1 << 31, 1} {
		b := reweighted.AppendState(nil, naive.New(0), nil)
		binary.LittleEndian.PutUint64(b[8:], n)
		b = sealed(b)
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		for range 100 {
			_, _, err := reweighted.DecodeState(b)
			require.ErrorIs(t, err, reweighted.ErrFormat)
		}
		runtime.ReadMemStats(&after)
		require.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(100*1024), "n = %d: the errors' bytes only", n)
	}
}

// Keys Set would refuse, in a state whose checksum is right, are errors
// wrapping both ErrFormat and ErrKey; so is a sum past MaxSum, which the
// float sum of the keys cannot decide (MaxSum and one subnormal).
func TestStateRefusesBadKeys(t *testing.T) {
	s := naive.New(2)
	require.NoError(t, s.Load([]float64{reweighted.MaxSum, 0}))
	for _, a := range []float64{math.NaN(), math.Inf(1), math.Inf(-1), -1, -math.SmallestNonzeroFloat64, math.SmallestNonzeroFloat64, math.Nextafter(reweighted.MaxSum, math.Inf(1))} {
		b := reweighted.AppendState(nil, s, nil)
		binary.LittleEndian.PutUint64(b[24:], math.Float64bits(a))
		_, _, err := reweighted.DecodeState(sealed(b))
		require.ErrorIs(t, err, reweighted.ErrFormat, "key %v", a)
		require.ErrorIs(t, err, reweighted.ErrKey, "key %v", a)
	}
	b := reweighted.AppendState(nil, s, nil)
	binary.LittleEndian.PutUint64(b[24:], math.Float64bits(0))
	_, _, err := reweighted.DecodeState(sealed(b))
	require.NoError(t, err, "MaxSum and 0")
}
