package samplertest

import (
	"encoding"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"math"
	"reflect"
	"sync"

	"github.com/reweighted/reweighted"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// The checks of saving, restoring and copying a sampler, for one that has
// the methods: encoding.BinaryMarshaler, BinaryAppender and
// BinaryUnmarshaler in the format of reweighted.AppendState, and Clone()
// returning its own type. A sampler without them skips the checks. obs
// observes a sampler (Observe for a map-exact one, ObserveLaw else), and
// mapExact says whether its keys decide everything it answers, draws
// included, up to the rounding of sums that may depend on its shape, or
// only its keys, Solve and Prob (a law-exact sampler's draws may depend on
// a layout the keys alone do not give). A round trip through a sampler's
// own saved state observes bit for bit.

// stateMethods returns the three methods of a sampler that can be saved
// and restored, or ok = false if it lacks one.
func stateMethods(s any) (m encoding.BinaryMarshaler, a encoding.BinaryAppender, u encoding.BinaryUnmarshaler, ok bool) {
	m, ok1 := s.(encoding.BinaryMarshaler)
	a, ok2 := s.(encoding.BinaryAppender)
	u, ok3 := s.(encoding.BinaryUnmarshaler)
	return m, a, u, ok1 && ok2 && ok3
}

// cloneOf returns s.Clone(), or ok = false if s has no Clone method. A
// Clone that takes arguments or returns another type than the sampler's
// own fails the check.
func cloneOf(t TB, s reweighted.Distribution) (c reweighted.Distribution, ok bool) {
	v := reflect.ValueOf(s)
	m := v.MethodByName("Clone")
	if !m.IsValid() {
		return nil, false
	}
	mt := m.Type()
	require.True(t, mt.NumIn() == 0 && mt.NumOut() == 1 && mt.Out(0) == v.Type(), "Clone must be func() %v, is %v", v.Type(), mt)
	return m.Call(nil)[0].Interface().(reweighted.Distribution), true
}

// saved returns the saved state of s.
func saved(t TB, s any) []byte {
	m, _, _, ok := stateMethods(s)
	require.True(t, ok)
	b, err := m.MarshalBinary()
	require.NoError(t, err)
	return b
}

// stateHistory gives s, of n items, keys by Set in index order and then
// rapid-drawn updates by Set and SetBatch, and returns its keys. A Set
// that MaxSum refuses is left out.
func stateHistory(t *rapid.T, s reweighted.Distribution) []float64 {
	n := s.Len()
	keys := make([]float64, n)
	set := func(i int, a float64) {
		if err := s.Set(i, a); err == nil {
			keys[i] = a + 0
		} else {
			require.ErrorIs(t, err, reweighted.ErrKey)
		}
	}
	for i := range n {
		set(i, Key(n).Draw(t, "key"))
	}
	for range rapid.IntRange(0, 3*n).Draw(t, "updates") {
		set(rapid.IntRange(0, n-1).Draw(t, "item"), Key(n).Draw(t, "update"))
	}
	if rapid.Bool().Draw(t, "batch") {
		items := rapid.SliceOfN(rapid.IntRange(0, n-1), 1, n).Draw(t, "batch items")
		nk := rapid.SliceOfN(Key(n), len(items), len(items)).Draw(t, "batch keys")
		if err := reweighted.SetBatch(s, items, nk); err == nil {
			for k, i := range items {
				keys[i] = nk[k] + 0
			}
		} else {
			require.ErrorIs(t, err, reweighted.ErrKey)
		}
	}
	return keys
}

// requireKeysRestored requires of r, restored from the keys alone of s (a
// state with no extension or one of an unknown tag), what such a restore
// promises: the keys of s bit for bit, and the same state up to the
// contract's rounding, not bit for bit, since a backend's sums may depend
// on its shape as well as its keys (a tree Load built, not the one the
// history grew), and a law-exact sampler may draw otherwise. At each edge
// bound: the same ρ; for a map-exact sampler, by Compare, λ within
// 2·RelLambda and the same item, but within UDist of an interval's edge,
// with p within 1e-9; for any other, λ within 2·RelLambda and every Prob
// within a relative 1e-9 of the saved sampler's. At the edge bound
// verifyAt it also passes Verify (VerifyLaw) against the exact oracle
// (the oracle is the costly part; rapid's cases visit every bound).
func requireKeysRestored(t TB, s, r reweighted.Distribution, want Snapshot, obs func(reweighted.Distribution) Snapshot, mapExact bool, verifyAt int) {
	got := obs(r)
	require.Equal(t, want.Keys, got.Keys, "the keys restored from the keys alone")
	n := s.Len()
	keys := make([]float64, n)
	for i := range keys {
		keys[i] = s.Key(i)
	}
	for k, eps := range EdgeEps(n) {
		if mapExact {
			a, b := s.(reweighted.Sampler), r.(reweighted.Sampler)
			_, err := Compare(a, b, keys, eps, EdgeU)
			require.NoError(t, err, "restored from the keys alone, against the saved sampler, at ε = %v", eps)
			if k == verifyAt {
				require.NoError(t, Verify(b, keys, eps, EdgeU), "restored from the keys alone")
			}
			continue
		}
		rs, ls, errS := s.Solve(eps)
		rr, lr, errR := r.Solve(eps)
		require.NoError(t, errors.Join(errS, errR))
		require.Equal(t, rs, rr, "restored from the keys alone: ρ at ε = %v", eps)
		require.True(t, closeFloat(ls, lr, 2*RelLambda), "restored from the keys alone: λ = %v, saved %v, at ε = %v", lr, ls, eps)
		for i := range n {
			ps, errS := s.Prob(i, eps)
			pr, errR := r.Prob(i, eps)
			require.NoError(t, errors.Join(errS, errR))
			require.True(t, closeFloat(ps, pr, 1e-9), "restored from the keys alone: Prob(%d) = %v, saved %v, at ε = %v", i, pr, ps, eps)
		}
		if k == verifyAt {
			require.NoError(t, VerifyLaw(r, keys, eps), "restored from the keys alone")
		}
	}
}

// requireChecks runs the Check of each sampler that has one.
func requireChecks(t TB, ss ...reweighted.Distribution) {
	for _, s := range ss {
		if c, ok := s.(Checker); ok {
			require.NoError(t, c.Check())
		}
	}
}

// saveRestoreProperty: after a random history, the saved state is the
// shared format (DecodeState gives the keys bit for bit), AppendBinary
// appends what MarshalBinary returns, and the state restored into a new
// sampler of no items, or into one of other keys and size, observes as
// the saved one, bit for bit, and saves the same bytes again. The keys
// alone (a state another backend writes, with no extension or one of an
// unknown tag) restore the same state up to the contract's rounding, as
// requireKeysRestored checks.
func saveRestoreProperty(nd NewDist, obs func(reweighted.Distribution) Snapshot, mapExact bool) func(*rapid.T) {
	return func(t *rapid.T) {
		n := rapid.IntRange(1, 40).Draw(t, "n")
		s := nd(n)
		keys := stateHistory(t, s)
		b := saved(t, s)
		got, _, err := reweighted.DecodeState(b)
		require.NoError(t, err)
		require.Equal(t, bitsOf(keys), bitsOf(got), "the saved keys")
		_, a, _, _ := stateMethods(s)
		pre, err := a.AppendBinary([]byte("prefix"))
		require.NoError(t, err)
		require.Equal(t, append([]byte("prefix"), b...), pre, "AppendBinary appends MarshalBinary's bytes")
		want := obs(s)
		m := rapid.IntRange(0, 5).Draw(t, "receiver size")
		for _, r := range []reweighted.Distribution{nd(0), nd(m)} {
			for i := range r.Len() {
				require.NoError(t, r.Set(i, float64(i+1)))
			}
			_, _, u, _ := stateMethods(r)
			require.NoError(t, u.UnmarshalBinary(b))
			requireChecks(t, r)
			require.Equal(t, want, obs(r), "restored into a sampler of %d items", r.Len())
			require.Equal(t, b, saved(t, r), "a restored sampler saves the same bytes")
		}
		plain := reweighted.AppendState(nil, s, nil)
		foreign := reweighted.AppendState(nil, s, func(b []byte) []byte { return append(b, "ZZZZ, a layout of no one"...) })
		for _, blob := range [][]byte{plain, foreign} {
			r := nd(0)
			_, _, u, _ := stateMethods(r)
			require.NoError(t, u.UnmarshalBinary(blob))
			requireChecks(t, r)
			verifyAt := rapid.IntRange(0, len(EdgeEps(n))-1).Draw(t, "verified edge bound")
			requireKeysRestored(t, s, r, want, obs, mapExact, verifyAt)
		}
	}
}

// bitsOf returns the bits of keys.
func bitsOf(keys []float64) []uint64 {
	b := make([]uint64, len(keys))
	for i, a := range keys {
		b[i] = math.Float64bits(a)
	}
	return b
}

// cloneProperty: after a random history, a clone observes as its
// original; updates to the clone from another goroutine, while the
// original is read, leave the original as it was, and updates to the
// original leave the clone as it was; the clone then observes as a
// sampler restored from its own saved state.
func cloneProperty(nd NewDist, obs func(reweighted.Distribution) Snapshot) func(*rapid.T) {
	return func(t *rapid.T) {
		n := rapid.IntRange(1, 40).Draw(t, "n")
		s := nd(n)
		stateHistory(t, s)
		c, _ := cloneOf(t, s)
		want := obs(s)
		require.Equal(t, want, obs(c), "a clone observes as its original")
		requireChecks(t, c)
		items := rapid.SliceOfN(rapid.IntRange(0, n-1), 1, 4*n).Draw(t, "clone's items")
		nk := rapid.SliceOfN(Key(n), len(items), len(items)).Draw(t, "clone's keys")
		var wg sync.WaitGroup
		var errs []error
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k, i := range items {
				if err := c.Set(i, nk[k]); err != nil && !errors.Is(err, reweighted.ErrKey) {
					errs = append(errs, err)
				}
			}
			_ = obs(c) // the clone's reads, its caches filled
		}()
		got := obs(s)
		wg.Wait()
		require.Empty(t, errs)
		require.Equal(t, want, got, "the original read while its clone changes")
		require.Equal(t, want, obs(s), "the original after its clone changed")
		cloneWant := obs(c)
		for k, i := range items {
			if err := s.Set(i, nk[len(nk)-1-k]); err != nil {
				require.ErrorIs(t, err, reweighted.ErrKey)
			}
		}
		require.Equal(t, cloneWant, obs(c), "the clone after its original changed")
		requireChecks(t, s, c)
		if _, _, _, ok := stateMethods(c); ok {
			r := nd(0)
			_, _, u, _ := stateMethods(r)
			require.NoError(t, u.UnmarshalBinary(saved(t, c)))
			require.Equal(t, cloneWant, obs(r), "the clone restored from its own saved state")
		}
	}
}

// seal sets the checksum of a saved state to that of its bytes.
func seal(b []byte) []byte {
	binary.LittleEndian.PutUint32(b[len(b)-4:], crc32.Checksum(b[:len(b)-4], crc32.MakeTable(crc32.Castagnoli)))
	return b
}

// testBadState: bytes of every kind that are not a valid saved state are
// refused with an error wrapping ErrFormat (and ErrKey for keys Set would
// refuse) and leave the receiver as it was: the state truncated at every
// length, each bit flipped, a byte appended, a wrong magic or version,
// a checksum mismatch, a count of keys the bytes cannot hold, NaN,
// infinite and negative keys and a sum past MaxSum, each with a checksum
// computed anew where it would otherwise catch them. An extension
// changed, byte by byte, under a valid checksum, is refused likewise or
// restores the keys, a sampler that passes its Check.
func testBadState(t TB, nd NewDist, obs func(reweighted.Distribution) Snapshot) {
	src := nd(5)
	if _, _, _, ok := stateMethods(src); !ok {
		t.Skip("no MarshalBinary, AppendBinary and UnmarshalBinary")
	}
	for i, a := range []float64{3, 0, math.SmallestNonzeroFloat64, 1, 3} {
		require.NoError(t, src.Set(i, a))
	}
	good := saved(t, src)
	recv := nd(6)
	for i := range 6 {
		require.NoError(t, recv.Set(i, float64(i%3)))
	}
	before, was := obs(recv), saved(t, recv)
	_, _, u, _ := stateMethods(recv)
	refused := func(b []byte, key bool, format string, args ...any) {
		t.Helper()
		what := fmt.Sprintf(format, args...)
		err := u.UnmarshalBinary(b)
		require.ErrorIs(t, err, reweighted.ErrFormat, what)
		if key {
			require.ErrorIs(t, err, reweighted.ErrKey, what)
		}
		require.Equal(t, was, saved(t, recv), "%s: the receiver changed", what)
	}
	clone := func() []byte { return append([]byte(nil), good...) }
	for k := range good {
		refused(good[:k], false, "truncated to %d bytes", k)
	}
	for bit := range 8 * len(good) {
		b := clone()
		b[bit/8] ^= 1 << (bit % 8)
		refused(b, false, "bit %d flipped", bit)
	}
	refused(append(clone(), 0), false, "a byte appended")
	refused(seal(append(clone(), 0)), false, "a byte appended, checksummed")
	b := clone()
	copy(b, "RWKT")
	refused(seal(b), false, "a wrong magic")
	b = clone()
	binary.LittleEndian.PutUint32(b[4:], 2)
	refused(seal(b), false, "version 2")
	b = clone()
	b[len(b)-1] ^= 0x80
	refused(b, false, "a checksum mismatch")
	for _, n := range []uint64{6, 1 << 31, 1 << 60, math.MaxUint64} {
		b = clone()
		binary.LittleEndian.PutUint64(b[8:], n)
		refused(seal(b), false, "n = %d", n)
	}
	for _, a := range []float64{math.NaN(), math.Inf(1), math.Inf(-1), -1, -math.SmallestNonzeroFloat64, math.Nextafter(reweighted.MaxSum, math.Inf(1))} {
		b = clone()
		binary.LittleEndian.PutUint64(b[16+8*2:], math.Float64bits(a))
		refused(seal(b), true, "a key %v", a)
	}
	b = clone()
	binary.LittleEndian.PutUint64(b[16:], math.Float64bits(reweighted.MaxSum))
	refused(seal(b), true, "MaxSum beside positive keys")
	// An extension with a byte changed and a valid checksum.
	_, ext, err := reweighted.DecodeState(good)
	require.NoError(t, err)
	start := len(good) - 4 - len(ext)
	for k := range ext {
		for _, x := range []byte{1, 0x80, 0xff} {
			b = clone()
			b[start+k] ^= x
			r := nd(0)
			_, _, ru, _ := stateMethods(r)
			if err := ru.UnmarshalBinary(seal(b)); err != nil {
				require.ErrorIs(t, err, reweighted.ErrFormat, "extension byte %d ^ %#x", k, x)
				require.Zero(t, r.Len(), "extension byte %d ^ %#x: the receiver changed", k, x)
				continue
			}
			requireChecks(t, r)
			keys, _, _ := reweighted.DecodeState(b)
			require.Equal(t, bitsOf(keys), obs(r).Keys, "extension byte %d ^ %#x: the keys", k, x)
		}
	}
	require.Equal(t, before, obs(recv), "the receiver after every refusal")
	requireChecks(t, recv)
}

// The checks of both modes, on a map-exact sampler (Run) and on a sampler
// of either kind (RunLaw). A sampler without the methods skips them, a
// test's skip, outside rapid.
func mapSaveRestore(t TB, nw New) { stateCheck(t, asDist(nw), false, observeMap, true) }
func mapClone(t TB, nw New)       { stateCheck(t, asDist(nw), true, observeMap, true) }
func mapBadState(t TB, nw New)    { testBadState(t, asDist(nw), observeMap) }
func lawSaveRestore(t TB, nd NewDist) {
	stateCheck(t, nd, false, ObserveLaw, false)
}
func lawClone(t TB, nd NewDist)    { stateCheck(t, nd, true, ObserveLaw, false) }
func lawBadState(t TB, nd NewDist) { testBadState(t, nd, ObserveLaw) }

// stateCheck runs cloneProperty (clone) or saveRestoreProperty if the
// sampler has the methods it checks.
func stateCheck(t TB, nd NewDist, clone bool, obs func(reweighted.Distribution) Snapshot, mapExact bool) {
	s := nd(1)
	if clone {
		if _, ok := cloneOf(t, s); !ok {
			t.Skip("no Clone")
		}
		rapid.Check(t, cloneProperty(nd, obs))
		return
	}
	if _, _, _, ok := stateMethods(s); !ok {
		t.Skip("no MarshalBinary, AppendBinary and UnmarshalBinary")
	}
	rapid.Check(t, saveRestoreProperty(nd, obs, mapExact))
}

// asDist returns the constructor nw as a NewDist.
func asDist(nw New) NewDist {
	return func(n int) reweighted.Distribution { return nw(n) }
}

// observeMap is Observe for a Distribution that is a Sampler.
func observeMap(d reweighted.Distribution) Snapshot { return Observe(d.(reweighted.Sampler)) }
