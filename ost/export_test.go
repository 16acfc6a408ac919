package ost

import "math"

// BytesPerItem exposes bytesPerItem to the tests.
func BytesPerItem() int { return bytesPerItem() }

// Height returns the number of nodes on the longest path from the root.
func (s *Sampler) Height() int { return s.t.height(s.t.root) }

func (t *tree) height(v int32) int {
	if v == nilNode {
		return 0
	}
	return 1 + max(t.height(t.nodes[v].child[0]), t.height(t.nodes[v].child[1]))
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
		for _, c := range r.child {
			t.nodes[c].setRed(true)
			t.nodes[t.nodes[c].child[0]].setRed(true)
		}
	case "black height":
		t.nodes[t.end(t.root, 0)].setRed(true)
	case "size":
		r.setSize(r.size() + 1)
	case "sum":
		r.sum = math.Nextafter(r.sum, math.Inf(1))
	case "parent":
		t.nodes[r.child[0]].parent = r.child[1]
	case "order":
		l := t.end(t.root, 1)
		t.nodes[l].key = 1
		t.fixUp(l)
	case "cycle":
		t.nodes[t.end(t.root, 1)].child[1] = t.root
	case "unreachable":
		// In New(16) the first node is a red leaf: unlinking it keeps
		// every colour and size right.
		f := t.end(t.root, 0)
		p := t.nodes[f].parent
		t.nodes[p].child[0] = nilNode
		t.nodes[f].parent = nilNode
		t.fixUp(p)
	case "infinite key":
		r.key = math.Inf(1)
	case "NaN key":
		r.key = math.NaN()
	case "link out of range":
		r.child[0] = int32(len(t.nodes))
	case "root out of range":
		t.root = int32(len(t.nodes))
	case "root parent":
		r.parent = r.child[0]
	default:
		panic("Corrupt: unknown invariant " + what)
	}
}
