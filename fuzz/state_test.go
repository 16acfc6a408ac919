package fuzz

import (
	"encoding"
	"encoding/binary"
	"hash/crc32"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/reweighted/reweighted"
	"github.com/reweighted/reweighted/internal/backends"
	"github.com/reweighted/reweighted/levels"
	"github.com/stretchr/testify/require"
)

// stateful is a sampler of either kind that can be saved and restored.
type stateful interface {
	reweighted.Distribution
	encoding.BinaryMarshaler
	encoding.BinaryUnmarshaler
}

// sealState returns body followed by its CRC-32C: the fuzzers mutate what
// the checksum covers, which a mutation of the checksum too would hide
// from them (the kit checks that a wrong checksum is refused).
func sealState(body []byte) []byte {
	return binary.LittleEndian.AppendUint32(slices.Clip(body), crc32.Checksum(body, crc32.MakeTable(crc32.Castagnoli)))
}

// unsealed returns the saved state of s without its checksum.
func unsealed(t testing.TB, s stateful) []byte {
	b, err := s.MarshalBinary()
	require.NoError(t, err)
	return b[:len(b)-4]
}

// requireRestore restores data into every backend's sampler of three keys
// and judges it: refused with ErrFormat and the receiver's saved state
// unchanged, or accepted by DecodeState too, the restored sampler holding
// the decoded keys, passing its Check, and saving a state that restores
// into a sampler that saves the same bytes again. The map-exact backends,
// which read the keys alone, all accept or all refuse, as DecodeState does.
func requireRestore(t *testing.T, data []byte) {
	keys, _, decodeErr := reweighted.DecodeState(data)
	for _, b := range backends.Every() {
		r := b.Dist(3).(stateful)
		for i := range 3 {
			require.NoError(t, r.Set(i, float64(i+1)))
		}
		was, err := r.MarshalBinary()
		require.NoError(t, err)
		if err := r.UnmarshalBinary(data); err != nil {
			require.ErrorIs(t, err, reweighted.ErrFormat, b.Name)
			now, err2 := r.MarshalBinary()
			require.NoError(t, err2)
			require.Equal(t, was, now, "%s: a refused state changed the receiver", b.Name)
			require.False(t, b.MapExact() && decodeErr == nil, "%s refuses what DecodeState accepts: %v", b.Name, err)
			continue
		}
		require.NoError(t, decodeErr, "%s accepts what DecodeState refuses", b.Name)
		got := make([]uint64, r.Len())
		for i := range got {
			got[i] = math.Float64bits(r.Key(i))
		}
		want := make([]uint64, len(keys))
		for i, a := range keys {
			want[i] = math.Float64bits(a)
		}
		require.Equal(t, want, got, "%s: the restored keys", b.Name)
		if c, ok := r.(interface{ Check() error }); ok {
			require.NoError(t, c.Check(), b.Name)
		}
		again, err := r.MarshalBinary()
		require.NoError(t, err)
		r2 := b.Dist(0).(stateful)
		require.NoError(t, r2.UnmarshalBinary(again), b.Name)
		third, err := r2.MarshalBinary()
		require.NoError(t, err)
		require.Equal(t, again, third, "%s: a restored sampler saves what it restored", b.Name)
	}
}

// FuzzState restores arbitrary bytes, under a valid checksum, into every
// backend: never a panic, an error wrapping ErrFormat that changes
// nothing, or a sampler that holds the keys and saves them again.
func FuzzState(f *testing.F) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{0, 1, 5, 40} {
		for _, b := range backends.Every() {
			s := b.Dist(n).(stateful)
			for i := range n {
				require.NoError(f, s.Set(i, []float64{0, 1, 0x1p-1074, rng.ExpFloat64(), reweighted.MaxSum / 64}[rng.IntN(5)]))
			}
			f.Add(unsealed(f, s))
		}
	}
	f.Add([]byte("RWKS\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x10"))
	f.Fuzz(func(t *testing.T, body []byte) {
		requireRestore(t, sealState(body))
	})
}

// layoutStates returns the keys of the saved states that FuzzLayout
// mutates the layouts of: a few items, and a crowded group that splits.
func layoutStates() [][]float64 {
	rng := rand.New(rand.NewPCG(3, 4))
	few := []float64{0, 1, 1.001, 2, 0, 0x1p-1070, 1.002, 5}
	crowd := make([]float64, 600)
	for i := range crowd {
		crowd[i] = 1 + rng.Float64()*0x1p-7
		if i%7 == 0 {
			crowd[i] = rng.ExpFloat64()
		}
	}
	return [][]float64{few, crowd}
}

// FuzzLayout restores the keys of a few fixed states under an arbitrary
// levels layout (the extension after its tag), under a valid checksum:
// never a panic, and either an error wrapping ErrFormat that changes
// nothing or a sampler that passes its Check and saves what it restored.
func FuzzLayout(f *testing.F) {
	states := layoutStates()
	for k, keys := range states {
		s := levels.New(len(keys))
		require.NoError(f, s.Load(keys))
		rng := rand.New(rand.NewPCG(uint64(k), 5))
		for range 3 * len(keys) {
			i := rng.IntN(len(keys))
			require.NoError(f, s.Set(i, keys[rng.IntN(len(keys))]))
		}
		b := unsealed(f, s)
		_, ext, err := reweighted.DecodeState(sealState(b))
		require.NoError(f, err)
		f.Add(uint8(k), ext[4:])
	}
	f.Fuzz(func(t *testing.T, which uint8, layout []byte) {
		keys := states[int(which)%len(states)]
		s := levels.New(len(keys))
		require.NoError(t, s.Load(keys))
		data := reweighted.AppendState(nil, s, func(b []byte) []byte {
			return append(append(b, "LVL1"...), layout...)
		})
		requireRestore(t, data)
	})
}
