package ost

import "math"

// BytesPerItem exposes bytesPerItem to the tests.
func BytesPerItem() int { return bytesPerItem() }

// Clone returns a deep copy of the sampler, for comparing states.
func (s *Sampler) Clone() *Sampler {
	c := &Sampler{t: s.t}
	c.t.nodes = append([]node(nil), s.t.nodes...)
	c.core.Init(&c.t)
	return c
}

// Height returns the number of nodes on the longest path from the root.
func (s *Sampler) Height() int { return s.t.height(s.t.root) }

func (t *tree) height(v int32) int {
	if v == nilNode {
		return 0
	}
	return 1 + max(t.height(t.nodes[v].left), t.height(t.nodes[v].right))
}

// Corrupt breaks one invariant of New(15), a perfect all-black tree (of
// New(16) for "unreachable"), for testing that Check reports it.
func (s *Sampler) Corrupt(what string) {
	t := &s.t
	r := &t.nodes[t.root]
	switch what {
	case "root red":
		r.setRed(true)
	case "red red":
		for _, c := range []int32{r.left, r.right} {
			t.nodes[c].setRed(true)
			t.nodes[t.nodes[c].left].setRed(true)
		}
	case "black height":
		t.nodes[t.first(t.root)].setRed(true)
	case "size":
		r.setSize(r.size() + 1)
	case "sum":
		r.sum = math.Nextafter(r.sum, math.Inf(1))
	case "parent":
		t.nodes[r.left].parent = r.right
	case "order":
		l := t.last(t.root)
		t.nodes[l].key = 1
		t.fixUp(l)
	case "cycle":
		t.nodes[t.last(t.root)].right = t.root
	case "unreachable":
		// In New(16) the first node is a red leaf: unlinking it keeps
		// every colour and size right.
		f := t.first(t.root)
		p := t.nodes[f].parent
		t.nodes[p].left = nilNode
		t.nodes[f].parent = nilNode
		t.fixUp(p)
	default:
		panic("Corrupt: unknown invariant " + what)
	}
}
