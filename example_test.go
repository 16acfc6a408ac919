package reweighted_test

import (
	"fmt"

	"github.com/reweighted/reweighted"
	"github.com/reweighted/reweighted/naive"
)

func Example() {
	// Four examples whose last gradient norms are 6, 2, 1 and 0.
	var s reweighted.Sampler = naive.New(4)
	for i, a := range []float64{6, 2, 1, 0} {
		if err := s.Set(i, a); err != nil {
			panic(err)
		}
	}
	eps := 1.0 / 8 // every example keeps at least 1/(2n)
	rho, lambda, _ := s.Solve(eps)
	fmt.Printf("ρ = %d, λ = %.4g\n", rho, lambda)
	for i := range s.Len() {
		p, _ := s.Prob(i, eps)
		fmt.Printf("p[%d] = %.4f\n", i, p)
	}
	// u in [0, 1) comes from the caller's random source.
	for _, u := range []float64{0.3, 0.7, 0.8} {
		i, p, _ := s.Sample(eps, u)
		fmt.Printf("u = %.1f draws item %d with p = %.4f\n", u, i, p)
	}
	// Output:
	// ρ = 2, λ = 10.67
	// p[0] = 0.5625
	// p[1] = 0.1875
	// p[2] = 0.1250
	// p[3] = 0.1250
	// u = 0.3 draws item 0 with p = 0.5625
	// u = 0.7 draws item 1 with p = 0.1875
	// u = 0.8 draws item 3 with p = 0.1250
}
