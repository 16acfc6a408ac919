package levels

import (
	"math/big"
	"math/rand/v2"
	"reflect"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"
)

// ownedBytes walks v, a scratch or a part of one, and returns the bytes of
// the backing arrays of the slices it holds; the struct itself is counted
// by its size. Pointers may only borrow a sampler's levels (a proposal's),
// and big integers are left aside, as scratch.bytes documents; any other
// reference fails the test, so that a new field must be counted, or said
// to be borrowed, here.
func ownedBytes(t *testing.T, v reflect.Value) int {
	t.Helper()
	switch v.Kind() {
	case reflect.Slice:
		return v.Cap() * int(v.Type().Elem().Size())
	case reflect.Struct:
		if v.Type() == reflect.TypeFor[big.Int]() {
			return 0
		}
		b := 0
		for f := range v.NumField() {
			b += ownedBytes(t, v.Field(f))
		}
		return b
	case reflect.Array:
		b := 0
		for k := range v.Len() {
			b += ownedBytes(t, v.Index(k))
		}
		return b
	case reflect.Pointer:
		require.Equal(t, reflect.TypeFor[*level](), v.Type(), "a pointer the scratch may own")
		return 0
	case reflect.Map, reflect.Chan, reflect.Func, reflect.Interface, reflect.UnsafePointer:
		t.Fatalf("a reference of kind %v in the scratch", v.Kind())
	}
	return 0
}

// giveSlices sets every slice that v holds to a fresh one of a capacity of
// its own (3, 6, 9, … from *next on), so that a term of a bytes method
// that counts a slice twice, not at all, or with another's size shows.
func giveSlices(v reflect.Value, next *int) {
	switch v.Kind() {
	case reflect.Slice:
		*next += 3
		s := reflect.MakeSlice(v.Type(), 0, *next)
		reflect.NewAt(v.Type(), unsafe.Pointer(v.UnsafeAddr())).Elem().Set(s)
	case reflect.Struct:
		if v.Type() == reflect.TypeFor[big.Int]() {
			return
		}
		for f := range v.NumField() {
			giveSlices(v.Field(f), next)
		}
	case reflect.Array:
		for k := range v.Len() {
			giveSlices(v.Index(k), next)
		}
	}
}

// unit.bytes, which Bytes adds for every published and spare unit, is the
// unit's size plus its three arrays, whatever their capacities: against
// the walk by reflection, after slices of capacities all different.
func TestUnitBytesCountsEverySlice(t *testing.T) {
	var u unit
	next := 0
	giveSlices(reflect.ValueOf(&u).Elem(), &next)
	require.Equal(t, 9, next, "three slices found")
	require.Equal(t, int(unsafe.Sizeof(u))+ownedBytes(t, reflect.ValueOf(&u).Elem()), u.bytes())
}

// scratch.bytes, which Bytes adds for the sampler's own scratch, is the
// scratch's size plus the backing arrays of all its slices, whatever
// their capacities: against a walk of the struct that finds every slice,
// after the pool's scratch, and after one whose slices have capacities
// all different. TestBytesMatchesHeap ties Bytes to the heap; the
// scratch's slices are too small a share there for a term left out to
// show.
func TestScratchBytesCountsEverySlice(t *testing.T) {
	sc := scratchPool.Get().(*scratch)
	defer scratchPool.Put(sc)
	size := int(unsafe.Sizeof(*sc))
	require.Equal(t, size+ownedBytes(t, reflect.ValueOf(sc).Elem()), sc.bytes(), "the pool's scratch")

	var own scratch
	next := 0
	giveSlices(reflect.ValueOf(&own).Elem(), &next)
	require.Greater(t, next, 3*9, "slices found")
	want := size + ownedBytes(t, reflect.ValueOf(&own).Elem())
	require.Equal(t, want, own.bytes(), "slices of capacities 3, 6, …, %d", next)
}

// The cost a small sampler pays whatever its keys: New holds at most 9 kB
// besides its 16 bytes an item below 256 items (9.1 kB now: the pools'
// lists and counts by rung are 2.7 kB of it), and a sampler of 1,000
// Exp(1) keys after 10·n updates at most 200 bytes an item (its levels,
// 3.6 kB each, are most of it), its per-level arrays spanning the levels
// its keys have reached and some room, not all 2,098 (84 kB).
func TestFixedCost(t *testing.T) {
	for _, n := range []int{0, 1, 100, 255} {
		require.LessOrEqual(t, New(n).Bytes()-16*n, 9<<10, "New(%d)", n)
	}
	const n = 1000
	s := New(n)
	r := rand.New(rand.NewPCG(1, 2))
	for i := range n {
		require.NoError(t, s.Set(i, r.ExpFloat64()))
	}
	for range 10 * n {
		require.NoError(t, s.Set(r.IntN(n), r.ExpFloat64()))
	}
	require.LessOrEqual(t, s.Bytes(), 200*n)
	require.Less(t, len(s.lv), 128, "per-level arrays")
}
