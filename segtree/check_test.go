package segtree

import (
	"fmt"
	"math"
	"testing"

	"github.com/reweighted/reweighted/samplertest"
	"github.com/stretchr/testify/require"
)

// The checker itself: each corruption of a valid tree is reported, with the
// invariant it breaks.
func TestCheckCatches(t *testing.T) {
	build := func() *trie {
		s := New(12)
		for i, a := range []float64{3, 0, 1, 1, 0x1p-1074, 7, 7, 2.5, 0, 1e10, 1, 4} {
			require.NoError(t, s.Set(i, a))
		}
		require.NoError(t, s.Check())
		return &s.t
	}
	// An internal node with an internal child 1, and the last item, whose
	// slot holds no internal node.
	tr := build()
	last := int32(tr.Select(len(tr.nodes)))
	inner := int32(-1)
	for s := range tr.nodes {
		if int32(s) != last && tr.nodes[s].child[1] >= 0 {
			inner = int32(s)
		}
	}
	require.NotEqual(t, int32(-1), inner)
	// An internal node whose halves are both leaves, and an internal child
	// of the root.
	twoLeaves, sub := int32(-1), int32(-1)
	for s := range tr.nodes {
		nd := &tr.nodes[s]
		if int32(s) != last && nd.child[0] < 0 && nd.child[1] < 0 {
			twoLeaves = int32(s)
		}
	}
	for _, c := range tr.nodes[tr.root].child {
		if c >= 0 {
			sub = c
		}
	}
	require.NotEqual(t, int32(-1), twoLeaves)
	require.NotEqual(t, int32(-1), sub)
	n := int32(len(tr.nodes))
	cases := []struct {
		name    string
		corrupt func(tr *trie)
		want    string
	}{
		{"sum drift", func(tr *trie) {
			nd := &tr.nodes[tr.root]
			nd.sum[0] = math.Nextafter(nd.sum[0], math.Inf(1))
		}, "sums to"},
		{"count", func(tr *trie) { tr.nodes[inner].cnt[1]++ }, "counts"},
		{"negative zero", func(tr *trie) { tr.nodes[1].key = math.Copysign(0, -1) }, "invalid key"},
		{"infinite key", func(tr *trie) { tr.nodes[1].key = math.Inf(1) }, "invalid key"},
		{"NaN key", func(tr *trie) { tr.nodes[1].key = math.NaN() }, "invalid key"},
		{"parent link", func(tr *trie) { tr.nodes[inner].up = last }, "parent link"},
		{"critical bit order", func(tr *trie) { tr.nodes[tr.nodes[inner].child[1]].crit = tr.nodes[inner].crit }, "critical bit"},
		{"swapped halves", func(tr *trie) {
			nd := &tr.nodes[tr.root]
			nd.child[0], nd.child[1] = nd.child[1], nd.child[0]
			nd.sum[0], nd.sum[1] = nd.sum[1], nd.sum[0]
			nd.cnt[0], nd.cnt[1] = nd.cnt[1], nd.cnt[0]
		}, "split"},
		{"key changed under the trie", func(tr *trie) {
			// Item 9 (key 1e10, rank 1) takes the key 0.5, which belongs
			// elsewhere in the order, and the sums on its path are
			// recomputed: only the order is broken.
			_, _, p, _ := tr.leafParent(9)
			tr.nodes[9].key = 0.5
			tr.fix(p)
		}, "split at bit"},
		{"stale free slot", func(tr *trie) { tr.nodes[last].crit = 5 }, "stale"},
		{"leaf link out of range", func(tr *trie) { tr.nodes[inner].child[0] = ^n }, fmt.Sprintf("segtree: slot %d: link %d to no item", inner, ^n)},
		{"nil link", func(tr *trie) { tr.nodes[inner].child[0] = nilRef }, fmt.Sprintf("segtree: slot %d: link %d to no item", inner, int32(nilRef))},
		{"slot link out of range", func(tr *trie) { tr.nodes[inner].child[1] = n }, fmt.Sprintf("segtree: slot %d: link to slot %d out of range", inner, n)},
		{"leaf linked twice", func(tr *trie) {
			nd := &tr.nodes[twoLeaves]
			nd.child[1] = nd.child[0]
		}, fmt.Sprintf("segtree: leaf of item %d reached twice", ^tr.nodes[twoLeaves].child[0])},
		{"critical bit too large", func(tr *trie) { tr.nodes[inner].crit = wordBits }, "critical bit 96 not in"},
		{"root of a subtree", func(tr *trie) {
			// A valid subtree of the whole: every check below the root
			// passes, but it misses items.
			tr.nodes[sub].up = noUp
			tr.root = sub
		}, fmt.Sprintf("segtree: root counts %d items, want 12", tr.count(sub))},
		{"subtree linked twice", func(tr *trie) {
			nd := &tr.nodes[inner]
			nd.child[0] = nd.child[1]
		}, "segtree: node at slot"},
	}
	want, corrupt := map[string]string{}, map[string]func(*trie){}
	for _, c := range cases {
		want[c.name], corrupt[c.name] = c.want, c.corrupt
	}
	samplertest.CheckCatches(t, want, func(name string) (samplertest.Checker, func()) {
		tr := build()
		return tr, func() { corrupt[name](tr) }
	})
}
