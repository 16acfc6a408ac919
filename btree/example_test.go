package btree_test

import (
	"fmt"
	"math/rand/v2"

	"github.com/reweighted/reweighted"
	"github.com/reweighted/reweighted/btree"
)

func Example() {
	// A mini-batch of SRG: four distinct examples drawn by ordered
	// successive sampling from p*, each with its probability, for an
	// estimator such as srg.DesRajWeights.
	s := btree.New(6)
	if err := s.Load([]float64{5, 1, 0, 3, 2, 4}); err != nil {
		panic(err)
	}
	items, probs := make([]int, 4), make([]float64, 4)
	if err := reweighted.DrawBatch(s, 0.05, rand.NewPCG(1, 2), false, items, probs); err != nil {
		panic(err)
	}
	fmt.Println(len(items), "distinct:", distinct(items))
	rho, lambda, _ := s.Solve(0.05)
	fmt.Printf("ρ = %d, λ = %.4g\n", rho, lambda)
	// Output:
	// 4 distinct: true
	// ρ = 5, λ = 15.79
}

func distinct(xs []int) bool {
	seen := map[int]bool{}
	for _, x := range xs {
		if seen[x] {
			return false
		}
		seen[x] = true
	}
	return true
}
