package levels_test

import (
	"fmt"
	"math/rand/v2"

	"github.com/reweighted/reweighted"
	"github.com/reweighted/reweighted/levels"
)

func Example() {
	// SRG's inner loop on a law-exact sampler: draw an example with
	// probability p*, compute its gradient, store the new gradient norm.
	// The norms here are made up.
	s := levels.New(4) // four items, all keys 0
	if err := s.Load([]float64{4, 3, 2, 1}); err != nil {
		panic(err)
	}
	const eps = 1.0 / 8 // every item keeps probability at least ε = 1/(2n)
	for i := range s.Len() {
		p, _ := s.Prob(i, eps)
		fmt.Printf("item %d: key %g, p* = %.4f\n", i, s.Key(i), p)
	}
	src := rand.NewPCG(1, 2)
	i, p, err := reweighted.Draw(s, eps, src)
	if err != nil {
		panic(err)
	}
	want, _ := s.Prob(i, eps)
	fmt.Println("the draw returns its item's p*:", p == want)
	if err := s.Set(i, 0.5); err != nil { // its new gradient norm
		panic(err)
	}
	// Output:
	// item 0: key 4, p* = 0.3889
	// item 1: key 3, p* = 0.2917
	// item 2: key 2, p* = 0.1944
	// item 3: key 1, p* = 0.1250
	// the draw returns its item's p*: true
}
