package btree_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/reweighted/reweighted"
	"github.com/reweighted/reweighted/btree"
)

// A saved shape that does not fit the tree is refused with ErrFormat and
// leaves the receiver as it was: a truncated or padded extension, sizes
// that do not add up to the items or to the nodes below, leaves below half
// full or over full, an inner node below half full but at the root, a root
// of one child, empty nodes. (The shape lists each level's nodes, so every
// leaf is at the same depth by construction.) A valid shape other than
// Load's is taken as it is.
func TestStateRefusesBadShapes(t *testing.T) {
	keys := func(n int) []float64 {
		k := make([]float64, n)
		for i := range k {
			k[i] = float64(i%7) + 0.1
		}
		return k
	}
	stateOf := func(n int, shape ...byte) []byte {
		s := btree.New(n)
		require.NoError(t, s.Load(keys(n)))
		return reweighted.AppendState(nil, s, func(b []byte) []byte { return append(append(b, "BTR1"...), shape...) })
	}
	nines := func(m int) []byte { // m nodes of 9
		b := make([]byte, m)
		for k := range b {
			b[k] = 9
		}
		return b
	}
	recv := btree.New(4)
	for i := range 4 {
		require.NoError(t, recv.Set(i, float64(i)))
	}
	was, err := recv.MarshalBinary()
	require.NoError(t, err)

	// 144 items in 16 leaves of 9, under two inner nodes of 8, under a root.
	two := append(nines(16), 8, 8, 2)
	for _, good := range []struct {
		name  string
		n     int
		shape []byte
	}{
		{"one leaf of 1", 1, []byte{1}},
		{"one leaf of 16", 16, []byte{16}},
		{"two leaves", 17, []byte{8, 9, 2}},
		{"a root of 16 leaves", 256, []byte{16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16}},
		{"two inner levels", 144, two},
		{"no items", 0, nil},
	} {
		r := btree.New(3)
		blob := stateOf(good.n, good.shape...)
		require.NoError(t, r.UnmarshalBinary(blob), good.name)
		require.NoError(t, r.Check(), good.name)
		again, err := r.MarshalBinary()
		require.NoError(t, err)
		require.Equal(t, blob, again, "%s: saved as restored", good.name)
	}

	for _, c := range []struct {
		name  string
		n     int
		shape []byte
	}{
		{"no shape", 17, nil},
		{"truncated", 144, two[:len(two)-1]},
		{"a byte more", 17, []byte{8, 9, 2, 0}},
		{"leaves hold too few items", 18, []byte{8, 9, 2}},
		{"leaves hold too many items", 16, []byte{8, 9, 2}},
		{"a leaf below half full", 17, []byte{7, 10, 2}},
		{"a leaf over full", 24, []byte{17, 7, 2}},
		{"an empty leaf", 17, []byte{0, 8, 9, 3}},
		{"a root leaf too small", 17, []byte{1, 16, 2}},
		{"inner nodes over their children", 144, append(nines(16), 8, 9, 2)},
		{"an inner node below half full", 144, append(nines(16), 7, 9, 2)},
		{"a root of one child", 16, []byte{16, 1}},
		{"an inner node of 17 children", 17 * 9, append(nines(17), 17)},
		{"no items, a node", 0, []byte{1}},
	} {
		err := recv.UnmarshalBinary(stateOf(c.n, c.shape...))
		require.ErrorIs(t, err, reweighted.ErrFormat, c.name)
		now, err := recv.MarshalBinary()
		require.NoError(t, err)
		require.Equal(t, was, now, "%s: the receiver changed", c.name)
	}
	require.NoError(t, recv.Check())
}
