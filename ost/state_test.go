package ost_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/reweighted/reweighted"
	"github.com/reweighted/reweighted/ost"
)

// spec is a tree shape for the tests, written as a saved state writes it.
type spec struct {
	l, r *spec
	red  bool
}

// bits appends the preorder bits of the shape: left child, right child,
// red.
func (s *spec) bits(out []bool) []bool {
	if s == nil {
		return out
	}
	out = append(out, s.l != nil, s.r != nil, s.red)
	return s.r.bits(s.l.bits(out))
}

// pack packs bits from the low bit of each byte up.
func pack(bits []bool) []byte {
	b := make([]byte, (len(bits)+7)/8)
	for k, x := range bits {
		if x {
			b[k/8] |= 1 << (k % 8)
		}
	}
	return b
}

// perfect returns a perfect tree of the given height, its levels red from
// redFrom on.
func perfect(height, redFrom int) *spec {
	var build func(d int) *spec
	build = func(d int) *spec {
		if d == height {
			return nil
		}
		return &spec{build(d + 1), build(d + 1), d >= redFrom}
	}
	return build(0)
}

// chain returns m nodes, each the right child of the one before.
func chain(m int, red func(d int) bool) *spec {
	var s *spec
	for d := m - 1; d >= 0; d-- {
		s = &spec{r: s, red: red(d)}
	}
	return s
}

// stateOf returns a saved state of keys with ext as its extension.
func stateOf(keys []float64, ext []byte) []byte {
	s := ost.New(len(keys))
	if err := s.Load(keys); err != nil {
		panic(err)
	}
	return reweighted.AppendState(nil, s, func(b []byte) []byte { return append(b, ext...) })
}

// A saved shape that breaks the tree is refused with ErrFormat and leaves
// the receiver as it was: a truncated or padded extension, too few or too
// many nodes, a red root, a red node with a red child, black heights that
// differ, an unbalanced chain (a valid search tree, but too deep for the
// error bound of the sums), and bits set past the last node. A valid shape
// other than Load's is taken as it is.
func TestStateRefusesBadShapes(t *testing.T) {
	keys := func(n int) []float64 {
		k := make([]float64, n)
		for i := range k {
			k[i] = float64(i%5) + 0.1
		}
		return k
	}
	tag := []byte("OST1")
	ext := func(s *spec) []byte { return append(append([]byte(nil), tag...), pack(s.bits(nil))...) }
	allBlack := perfect(3, 3) // 7 nodes; New(7) colours none red either
	redLeaves := perfect(3, 2)
	recv := ost.New(4)
	for i := range 4 {
		require.NoError(t, recv.Set(i, float64(i)))
	}
	was, err := recv.MarshalBinary()
	require.NoError(t, err)

	for _, good := range []struct {
		name string
		n    int
		s    *spec
	}{{"all black", 7, allBlack}, {"red leaves", 7, redLeaves}, {"one red child", 2, &spec{l: &spec{red: true}}}, {"no items", 0, nil}} {
		r := ost.New(0)
		blob := stateOf(keys(good.n), ext(good.s))
		require.NoError(t, r.UnmarshalBinary(blob), good.name)
		require.NoError(t, r.Check(), good.name)
		again, err := r.MarshalBinary()
		require.NoError(t, err)
		require.Equal(t, blob, again, "%s: saved as restored", good.name)
	}

	bad := []struct {
		name string
		n    int
		ext  []byte
	}{
		{"truncated", 7, ext(allBlack)[:len(ext(allBlack))-1]},
		{"a byte more", 7, append(ext(allBlack), 0)},
		{"no shape", 7, tag},
		{"fewer nodes", 7, ext(perfect(2, 2))},
		{"fewer nodes, as many bytes", 7, ext(&spec{l: perfect(2, 1), r: &spec{l: &spec{red: true}}})},
		{"more nodes", 3, ext(&spec{l: &spec{}, r: &spec{r: &spec{red: true}}})},
		{"red root", 7, ext(perfect(3, 0))},
		{"red red", 7, ext(perfect(3, 1))},
		{"black heights differ", 3, ext(&spec{l: &spec{}, r: &spec{r: &spec{}}})},
		{"chain of 3", 3, ext(chain(3, func(d int) bool { return d == 2 }))},
		{"chain of 100", 100, ext(chain(100, func(d int) bool { return d%2 == 1 }))},
		{"bits past the last node", 7, func() []byte { b := ext(allBlack); b[len(b)-1] |= 0x80; return b }()},
		{"no items, a node", 0, append(append([]byte(nil), tag...), 0)},
	}
	for _, c := range bad {
		err := recv.UnmarshalBinary(stateOf(keys(c.n), c.ext))
		require.ErrorIs(t, err, reweighted.ErrFormat, c.name)
		now, err := recv.MarshalBinary()
		require.NoError(t, err)
		require.Equal(t, was, now, "%s: the receiver changed", c.name)
	}
	require.NoError(t, recv.Check())
}
