package naive_test

import (
	"fmt"

	"github.com/reweighted/reweighted/naive"
)

func Example() {
	// Five examples whose last gradient norms are 4, 0, 1, 3 and 2; every
	// example keeps at least ε = 1/10.
	s := naive.New(5)
	for i, a := range []float64{4, 0, 1, 3, 2} {
		_ = s.Set(i, a) // valid keys: no error
	}
	p, _ := s.Probs(0.1, nil)
	fmt.Printf("p = %.4f\n", p)
	rho, lambda, _ := s.Solve(0.1)
	fmt.Printf("ρ = %d, λ = %.4g\n", rho, lambda)
	// Output:
	// p = [0.3556 0.1000 0.1000 0.2667 0.1778]
	// ρ = 3, λ = 11.25
}
