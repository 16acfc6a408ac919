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
