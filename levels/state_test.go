package levels

import (
	"encoding/binary"
	"hash/crc32"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"sync"
	"testing"

	"github.com/reweighted/reweighted"
	"github.com/stretchr/testify/require"
)

// stateKey returns a key of one of the classes that give levels its
// layouts: 0, a key of one crowded group (which splits, and merges when
// it thins out), Exp(1) keys over a few levels, and subnormal ones.
func stateKey(rng *rand.Rand) float64 {
	switch rng.IntN(8) {
	case 0:
		return 0
	case 1, 2, 3:
		return 1 + rng.Float64()*0x1p-7
	case 4:
		return rng.Float64() * 0x1p-1060
	}
	return rng.ExpFloat64()
}

// mess gives s, of n items, a long history of single and batch updates
// mixed with draws (after which the writers keep a solution and publish
// sorted units), so that its groups hold their items in an order that
// Load would not give them, some split, some merged again.
func mess(t testing.TB, s *Sampler, rng *rand.Rand, steps int) {
	n := s.Len()
	src := rand.NewPCG(rng.Uint64(), rng.Uint64())
	items, probs := make([]int, 8), make([]float64, 8)
	eps := 1 / float64(2*n)
	for step := range steps {
		if step%(steps/4+1) == 0 {
			// A phase that empties the crowded group, or fills it.
			thin := rng.IntN(2) == 0
			for i := range n {
				a := s.Key(i)
				if thin && a >= 1 && a < 2 && rng.IntN(4) > 0 {
					require.NoError(t, s.Set(i, 3+rng.Float64()))
				} else if !thin && rng.IntN(3) == 0 {
					require.NoError(t, s.Set(i, 1+rng.Float64()*0x1p-7))
				}
			}
		}
		switch rng.IntN(5) {
		case 0:
			_, _, err := s.Draw(eps, src)
			require.NoError(t, err)
		case 1:
			require.NoError(t, s.DrawBatch(eps, src, rng.IntN(2) == 0, items, probs))
		case 2:
			ks := make([]float64, len(items))
			its := make([]int, len(items))
			for k := range its {
				its[k], ks[k] = rng.IntN(n), stateKey(rng)
			}
			require.NoError(t, s.SetBatch(its, ks))
		default:
			require.NoError(t, s.Set(rng.IntN(n), stateKey(rng)))
		}
	}
	require.NoError(t, s.Check())
}

// drive makes a fixed sequence of draws and updates on s, from the seed,
// and returns what the draws returned: items and the bits of their p.
func drive(t testing.TB, s *Sampler, seed uint64, steps int) []uint64 {
	rng := rand.New(rand.NewPCG(seed, 1))
	src := rand.NewPCG(seed, 2)
	n := s.Len()
	var out []uint64
	items, probs := make([]int, 16), make([]float64, 16)
	for range steps {
		eps := []float64{0, 1 / float64(2*n), 1 / float64(n)}[rng.IntN(3)]
		switch rng.IntN(4) {
		case 0:
			i, p, err := s.Draw(eps, src)
			require.NoError(t, err)
			out = append(out, uint64(i), math.Float64bits(p))
		case 1:
			require.NoError(t, s.DrawBatch(eps, src, rng.IntN(2) == 0, items, probs))
			for k := range items {
				out = append(out, uint64(items[k]), math.Float64bits(probs[k]))
			}
		case 2:
			its, ks := make([]int, 8), make([]float64, 8)
			for k := range its {
				its[k], ks[k] = rng.IntN(n), stateKey(rng)
			}
			require.NoError(t, s.SetBatch(its, ks))
		default:
			require.NoError(t, s.Set(rng.IntN(n), stateKey(rng)))
		}
	}
	return out
}

// reload returns a new sampler restored from the saved state of s.
func reload(t testing.TB, s *Sampler) *Sampler {
	b, err := s.MarshalBinary()
	require.NoError(t, err)
	r := New(0)
	require.NoError(t, r.UnmarshalBinary(b))
	require.NoError(t, r.Check())
	return r
}

// A levels sampler saved after a long history and restored, or cloned,
// then given the same draws and updates with identically seeded sources,
// returns the same items and probabilities, bit for bit, as the original.
// Without the layout (the keys alone, laid out by Load) it does not.
func TestRestoreDrawsAsTheSaved(t *testing.T) {
	for seed := range uint64(3) {
		rng := rand.New(rand.NewPCG(seed, 7))
		requireRestoreDraws(t, New(1500+rng.IntN(500)), rng, 6000)
	}
}

// The same from 2^18 items on, where DrawBatch makes its attempts 32 at a
// time (-long: about a second).
func TestRestoreDrawsAsTheSavedLarge(t *testing.T) {
	if !*long {
		t.Skip("with -long")
	}
	rng := rand.New(rand.NewPCG(9, 7))
	requireRestoreDraws(t, New(touchMin+rng.IntN(1000)), rng, 20000)
}

// requireRestoreDraws gives s a history of steps steps, then checks that
// a restore and a clone of it draw what it draws, and a sampler loaded
// with its keys alone does not.
func requireRestoreDraws(t *testing.T, s *Sampler, rng *rand.Rand, steps int) {
	n := s.Len()
	mess(t, s, rng, steps)
	require.Positive(t, splitGroups(s), "a split group")
	r, c := reload(t, s), s.Clone()
	require.NoError(t, c.Check())
	canon := New(n)
	require.NoError(t, canon.Load(slices.Clone(s.keys)))
	seed := rng.Uint64()
	want := drive(t, s, seed, 300)
	require.Equal(t, want, drive(t, r, seed, 300), "restored")
	require.Equal(t, want, drive(t, c, seed, 300), "cloned")
	require.NotEqual(t, want, drive(t, canon, seed, 300), "laid out by Load, the draws differ")
	for _, x := range []*Sampler{s, r, c} {
		require.NoError(t, x.Check())
	}
}

// A clone shares nothing mutable with its original: after a long history
// on one, and on the other from another goroutine, each still holds its
// own keys and draws what a sampler restored from its own saved state
// draws.
func TestCloneIsIndependent(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 7))
	n := 1500
	s := New(n)
	mess(t, s, rng, 4000)
	before, err := s.MarshalBinary()
	require.NoError(t, err)
	// Clone runs beside reads of s, which publish units and fill caches.
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		src := rand.NewPCG(2, 2)
		for range 100 {
			_, _, _ = s.Draw(1/float64(3*n), src)
		}
	}()
	c := s.Clone()
	wg.Wait()
	wg.Add(1)
	go func() {
		defer wg.Done()
		mess(t, c, rand.New(rand.NewPCG(12, 7)), 4000)
	}()
	// Reads of s alongside.
	src := rand.NewPCG(1, 1)
	for range 200 {
		_, _, err := s.Draw(1/float64(2*n), src)
		require.NoError(t, err)
	}
	wg.Wait()
	after, err := s.MarshalBinary()
	require.NoError(t, err)
	require.Equal(t, before, after, "s unchanged by its clone's writes")
	cb, err := c.MarshalBinary()
	require.NoError(t, err)
	r := New(0)
	require.NoError(t, r.UnmarshalBinary(before))
	rc := New(0)
	require.NoError(t, rc.UnmarshalBinary(cb))
	// Now the other way: heavy writes to s leave c as it was.
	mess(t, s, rand.New(rand.NewPCG(13, 7)), 4000)
	require.Equal(t, drive(t, rc, 5, 300), drive(t, c, 5, 300), "the clone draws as its own saved state")
	sb, err := s.MarshalBinary()
	require.NoError(t, err)
	rs := New(0)
	require.NoError(t, rs.UnmarshalBinary(sb))
	require.Equal(t, drive(t, rs, 6, 300), drive(t, s, 6, 300), "the original draws as its own saved state")
	require.NoError(t, r.Check())
}

// Clone and UnmarshalBinary (adopt) name every field of Sampler: a field
// added to it must be given its treatment in both (copied deeply, moved,
// or made afresh), then named here.
func TestCloneKnowsEveryField(t *testing.T) {
	known := []string{"keys", "pos", "zeros", "lv", "ls", "lo", "occ", "occW", "free", "subs", "spare", "made", "dropped", "liveBig",
		"cur", "stale", "want", "unitLv", "evict", "spareU", "spareSc", "big", "bigHeld", "kept", "far", "ver", "id",
		"asked", "solves"}
	typ := reflect.TypeFor[Sampler]()
	var fields []string
	for k := range typ.NumField() {
		fields = append(fields, typ.Field(k).Name)
	}
	require.Equal(t, known, fields, "Sampler's fields: give a new one its place in Clone and adopt")
}

// rechecksum sets the checksum of a saved state b to the one of its bytes.
func rechecksum(b []byte) []byte {
	binary.LittleEndian.PutUint32(b[len(b)-4:], crc32.Checksum(b[:len(b)-4], crc32.MakeTable(crc32.Castagnoli)))
	return b
}

// A layout that does not fit its keys, checksummed as valid, is an error
// wrapping ErrFormat that leaves the receiver as it was.
func TestRestoreRefusesBadLayouts(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 7))
	n := 1500
	s := New(n)
	mess(t, s, rng, 3000)
	// Two crowded groups, split.
	for i := range 1200 {
		require.NoError(t, s.Set(i, float64(1+i/600)*(1+rng.Float64()*0x1p-7)))
	}
	good, err := s.MarshalBinary()
	require.NoError(t, err)
	lay := reweighted.StateSize(n, 0) - 4 + 4 // the layout, after its tag
	items := lay                              // the items' order
	splits := items + 4*n                     // m, then the split groups
	m := int(binary.LittleEndian.Uint32(good[splits:]))
	// A group of level 12 or more holding few items, and a level below 12.
	few := -1
	for l := 2 * bB; l < nLevels && few < 0; l++ {
		if lv := s.level(l); lv != nil && s.stat(l).n > 0 {
			for j := range nG {
				if lv.cnt[j] > 0 && lv.cnt[j] < kMerge {
					few = l*nG + j
					break
				}
			}
		}
	}
	require.GreaterOrEqual(t, few, 0)
	put := func(b []byte, at int, v uint32) []byte {
		binary.LittleEndian.PutUint32(b[at:], v)
		return b
	}
	cases := map[string]func(b []byte) []byte{
		"item out of range": func(b []byte) []byte { return put(b, items+8, uint32(n)) },
		"item repeated":     func(b []byte) []byte { return put(b, items+8, binary.LittleEndian.Uint32(b[items+12:])) },
		"split count too large": func(b []byte) []byte {
			return put(b, splits, uint32(m+1))
		},
		"split groups not increasing": func(b []byte) []byte {
			if m < 2 {
				return put(b, splits+4, binary.LittleEndian.Uint32(b[splits+4:])) // caught by the require below
			}
			x, y := binary.LittleEndian.Uint32(b[splits+4:]), binary.LittleEndian.Uint32(b[splits+8:])
			return put(put(b, splits+4, y), splits+8, x)
		},
		"split of a narrow level": func(b []byte) []byte { return put(b, splits+4, 5*nG) },
		"split of a level past the last": func(b []byte) []byte {
			return put(b, splits+4*m, nLevels*nG)
		},
		"split of a group of few items": func(b []byte) []byte {
			if uint32(few) < binary.LittleEndian.Uint32(b[splits+4:]) {
				return put(b, splits+4, uint32(few))
			}
			return put(b, splits+4*m, uint32(few))
		},
		"a large group left whole": func(b []byte) []byte {
			// Drop the first split group, which holds more than kSplit
			// items here (the test asks below), from the list.
			b = put(b, splits, uint32(m-1))
			b = append(b[:splits+4], b[splits+8:]...)
			binary.LittleEndian.PutUint64(b[reweighted.StateSize(n, 0)-12:], uint64(len(b)-reweighted.StateSize(n, 0)))
			return b
		},
		"truncated layout": func(b []byte) []byte {
			b = append(b[:splits], b[len(b)-4:]...)
			binary.LittleEndian.PutUint64(b[reweighted.StateSize(n, 0)-12:], uint64(len(b)-reweighted.StateSize(n, 0)))
			return b
		},
	}
	require.GreaterOrEqual(t, m, 2, "two split groups")
	first := int(binary.LittleEndian.Uint32(good[splits+4:]))
	require.Greater(t, s.level(first / nG).cnt[first%nG], int32(kSplit), "the first split group holds more than kSplit items")
	for name, bad := range cases {
		r := New(3)
		require.NoError(t, r.Load([]float64{1, 2, 3}))
		was, err := r.MarshalBinary()
		require.NoError(t, err)
		b := rechecksum(bad(slices.Clone(good)))
		err = r.UnmarshalBinary(b)
		require.ErrorIs(t, err, reweighted.ErrFormat, name)
		now, err2 := r.MarshalBinary()
		require.NoError(t, err2)
		require.Equal(t, was, now, "%s: the receiver unchanged", name)
		require.NoError(t, r.Check())
	}
}
