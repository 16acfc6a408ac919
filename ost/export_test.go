package ost

// Check exposes check to the tests of package ost_test.
func (t *Tree) Check() error { return t.check() }

// BytesPerItem exposes bytesPerItem to the tests.
func BytesPerItem() int { return bytesPerItem() }

// Clone returns a deep copy of the tree, for comparing states.
func (t *Tree) Clone() *Tree {
	c := *t
	c.nodes = append([]node(nil), t.nodes...)
	return &c
}

// Height returns the number of nodes on the longest path from the root.
func (t *Tree) Height() int { return t.height(t.root) }

func (t *Tree) height(v int32) int {
	if v == nilNode {
		return 0
	}
	return 1 + max(t.height(t.nodes[v].left), t.height(t.nodes[v].right))
}
