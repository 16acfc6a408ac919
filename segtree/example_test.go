package segtree_test

import (
	"fmt"

	"github.com/reweighted/reweighted/segtree"
)

func Example() {
	// The trie's shape depends on the keys alone: two histories that end
	// at the same keys answer bit for bit alike.
	a, b := segtree.New(3), segtree.New(3)
	for i, k := range []float64{0.1, 0.2, 0.3} {
		_ = a.Set(i, k)
	}
	_ = b.Set(2, 7)
	_ = b.Load([]float64{0.1, 0.2, 0.3})
	rhoA, lambdaA, _ := a.Solve(0.2)
	rhoB, lambdaB, _ := b.Solve(0.2)
	fmt.Println(rhoA == rhoB, lambdaA == lambdaB)
	i, p, _ := a.Sample(0.2, 0.99)
	fmt.Printf("u = 0.99 draws item %d with p = %.2f\n", i, p)
	// Output:
	// true true
	// u = 0.99 draws item 0 with p = 0.20
}
