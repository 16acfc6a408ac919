package ost_test

import (
	"fmt"

	"github.com/reweighted/reweighted/ost"
)

func Example() {
	// SRG's inner loop: draw an example, compute its gradient, store the new
	// gradient norm. The norms here are made up; u comes from the caller's
	// random source.
	s := ost.New(5)
	if err := s.Load([]float64{4, 0, 1, 3, 2}); err != nil {
		panic(err)
	}
	const eps = 0.1
	for _, u := range []float64{0.5, 0.1, 0.95} {
		i, p, err := s.Sample(eps, u)
		if err != nil {
			panic(err)
		}
		fmt.Printf("u = %.2f draws item %d with p = %.4f\n", u, i, p)
		if err := s.Set(i, 0.5); err != nil { // its new gradient norm
			panic(err)
		}
	}
	// Output:
	// u = 0.50 draws item 3 with p = 0.2667
	// u = 0.10 draws item 0 with p = 0.4571
	// u = 0.95 draws item 1 with p = 0.1000
}
