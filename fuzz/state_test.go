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

// tagOf returns the tag of the extension that backend b writes in its
// saved states, "" if it writes none.
func tagOf(t testing.TB, b backends.Backend) string {
	_, ext, err := reweighted.DecodeState(sealState(unsealed(t, b.Dist(1).(stateful))))
	require.NoError(t, err)
	if len(ext) < 4 {
		return ""
	}
	return string(ext[:4])
}

// requireRestore restores data into every backend's sampler of three keys
// and judges it: refused with ErrFormat and the receiver's saved state
// unchanged, or accepted by DecodeState too, the restored sampler holding
// the decoded keys, passing its Check, and saving a state that restores
// into a sampler that saves the same bytes again. A map-exact backend
// accepts what DecodeState accepts, unless the extension carries its own
// tag (its shape, which it checks); the others read the keys alone.
func requireRestore(t *testing.T, data []byte) {
	keys, ext, decodeErr := reweighted.DecodeState(data)
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
			own := len(ext) >= 4 && string(ext[:4]) == tagOf(t, b)
			require.False(t, b.MapExact() && decodeErr == nil && !own, "%s refuses what DecodeState accepts: %v", b.Name, err)
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
// mutates the extensions of: a few items, and a crowded group that splits
// (levels), a tree of three levels (ost) or two (btree).
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

// tagged returns the backends that write an extension, and its tag.
func tagged(t testing.TB) (bs []backends.Backend, tags []string) {
	for _, b := range backends.Every() {
		if tag := tagOf(t, b); tag != "" {
			bs, tags = append(bs, b), append(tags, tag)
		}
	}
	return bs, tags
}

// FuzzLayout restores the keys of a few fixed states under an arbitrary
// extension (after its tag) of each backend that reads one — the layout of
// levels, the shape of ost and btree — under a valid checksum: never a
// panic, and either an error wrapping ErrFormat that changes nothing or a
// sampler that passes its Check and saves what it restored. which picks
// the backend and the state.
func FuzzLayout(f *testing.F) {
	states := layoutStates()
	bs, tags := tagged(f)
	require.Len(f, bs, 3, "levels, ost and btree")
	for j, b := range bs {
		for k, keys := range states {
			s := b.Dist(len(keys)).(stateful)
			rng := rand.New(rand.NewPCG(uint64(k), 5))
			for i, a := range keys {
				require.NoError(f, s.Set(i, a))
			}
			for range 3 * len(keys) {
				i := rng.IntN(len(keys))
				require.NoError(f, s.Set(i, keys[rng.IntN(len(keys))]))
			}
			b := unsealed(f, s)
			_, ext, err := reweighted.DecodeState(sealState(b))
			require.NoError(f, err)
			f.Add(uint8(k*len(bs)+j), ext[4:])
		}
	}
	f.Fuzz(func(t *testing.T, which uint8, layout []byte) {
		tag := tags[int(which)%len(bs)]
		keys := states[int(which)/len(bs)%len(states)]
		s := levels.New(len(keys))
		require.NoError(t, s.Load(keys))
		data := reweighted.AppendState(nil, s, func(b []byte) []byte {
			return append(append(b, tag...), layout...)
		})
		requireRestore(t, data)
	})
}
