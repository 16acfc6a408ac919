package segtree

import (
	"fmt"
	"math"
)

// check verifies every invariant of the tree from scratch and reports the
// first one broken, naming the node: trie order (each node's halves differ
// first at its critical bit, and critical bits increase downward), the
// pairing of internal nodes with slots, counts and sums recomputed from the
// leaves, every item's leaf reached exactly once and the parent links.
func (t *trie) Check() error {
	n := len(t.nodes)
	for i := range t.nodes {
		a := t.nodes[i].key
		if math.IsNaN(a) || math.IsInf(a, 0) || a < 0 || math.Signbit(a) {
			return fmt.Errorf("segtree: item %d: invalid key %v", i, a)
		}
	}
	if n == 0 {
		return nil // every method stops at its index or ε check
	}
	c := checker{t: t, leaf: make([]bool, n), slot: make([]bool, n)}
	s, err := c.walk(t.root, noUp, -1)
	if err != nil {
		return err
	}
	// The counts passed, so the root counts the leaves reached, each once:
	// n of them make all n items, under n − 1 internal nodes (each has two
	// halves), each in the slot of the last item of its half 0, which the
	// last item of all never is.
	if got := int(t.count(t.root)); got != n {
		return fmt.Errorf("segtree: root counts %d items, want %d", got, n)
	}
	if nd := t.nodes[s.last]; nd != (node{key: nd.key}) {
		return fmt.Errorf("segtree: slot %d of the last item holds stale node fields", s.last)
	}
	return nil
}

type checker struct {
	t    *trie
	leaf []bool // leaf of the item seen
	slot []bool // internal node of the slot seen
}

// subtree is what check returns for a subtree: its first and last items in
// canonical order.
type subtree struct{ first, last int32 }

// walk checks the subtree at link ref, whose parent is slot up with critical
// bit crit (−1 above the root). Once both halves of a node pass, their
// stored counts and sums are those of their leaves, so checking the node's
// against them checks them against its leaves.
func (c *checker) walk(ref, up int32, crit int) (subtree, error) {
	t := c.t
	n := int32(len(t.nodes))
	if ref < 0 {
		i := ^ref
		if ref == nilRef || i >= n {
			return subtree{}, fmt.Errorf("segtree: slot %d: link %d to no item", up, ref)
		}
		if c.leaf[i] {
			return subtree{}, fmt.Errorf("segtree: leaf of item %d reached twice", i)
		}
		c.leaf[i] = true
		return subtree{i, i}, nil
	}
	if ref >= n {
		return subtree{}, fmt.Errorf("segtree: slot %d: link to slot %d out of range", up, ref)
	}
	if c.slot[ref] {
		return subtree{}, fmt.Errorf("segtree: internal node at slot %d reached twice", ref)
	}
	c.slot[ref] = true
	nd := &t.nodes[ref]
	if nd.up != up {
		return subtree{}, fmt.Errorf("segtree: node at slot %d: parent link %d, want %d", ref, nd.up, up)
	}
	if int(nd.crit) <= crit || nd.crit >= wordBits {
		return subtree{}, fmt.Errorf("segtree: node at slot %d: critical bit %d not in (%d, %d)", ref, nd.crit, crit, wordBits)
	}
	var h [2]subtree
	for d := range h {
		s, err := c.walk(nd.child[d], ref, int(nd.crit))
		if err != nil {
			return subtree{}, err
		}
		h[d] = s
		if want := t.count(nd.child[d]); nd.cnt[d] != want {
			return subtree{}, fmt.Errorf("segtree: node at slot %d: half %d counts %d, want %d", ref, d, nd.cnt[d], want)
		}
		if want := t.total(nd.child[d]); nd.sum[d] != want {
			return subtree{}, fmt.Errorf("segtree: node at slot %d: half %d sums to %v, want %v", ref, d, nd.sum[d], want)
		}
	}
	// Every leaf of a half agrees with the half's last (first) item above
	// the half's critical bit, which comes after nd.crit; so the two halves
	// agree above nd.crit and split on it iff these two items do.
	a, b := h[0].last, h[1].first
	hi, lo := t.word(a)
	if got := t.critBit(a, b); got != nd.crit || wordBit(hi, lo, got) != 0 {
		return subtree{}, fmt.Errorf("segtree: node at slot %d: halves split at bit %d (items %d, %d), critical bit %d", ref, got, a, b, nd.crit)
	}
	if a != ref {
		return subtree{}, fmt.Errorf("segtree: node at slot %d: not paired with item %d, the last of its half 0", ref, a)
	}
	return subtree{h[0].first, h[1].last}, nil
}
