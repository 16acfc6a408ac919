package reweighted_test

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/reweighted/reweighted"
	"github.com/reweighted/reweighted/btree"
	"github.com/reweighted/reweighted/levels"
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

// SRG on a toy problem, the loop of the README, on the default sampler
// (levels): minimise the mean of f_i(x) = (x − b_i)²/2, whose minimiser is
// the mean of b. Each step draws an example from p*, takes the
// importance-weighted gradient step and stores the example's new gradient
// norm as its key.
func Example_srg() {
	b := []float64{1, 2, 3, 4, 50}
	n, steps, alpha := len(b), 2000, 0.01
	x := 0.0

	s := levels.New(n)      // n items, all keys 0: the first draws are uniform
	eps := 1 / float64(2*n) // every item keeps probability at least ε
	src := rand.NewPCG(1, 2)
	i, p, err := reweighted.Draw(s, eps, src) // item i, drawn with probability p
	if err != nil {
		panic(err)
	}
	for range steps {
		g := x - b[i]                     // the gradient of example i
		x -= alpha / (float64(n) * p) * g // the unbiased importance-weighted step
		// The new key of item i, then the next item: Set, then Draw, in one call.
		if i, p, err = reweighted.Step(s, eps, i, math.Abs(g), src); err != nil {
			panic(err) // NaN, ±Inf or negative, or the sum would pass MaxSum
		}
	}
	fmt.Println("x within 1 of the mean of b, 12:", math.Abs(x-12) < 1)
	// Output:
	// x within 1 of the mean of b, 12: true
}

// The same toy problem with mini-batches of m: m independent draws from p*,
// the averaged importance-weighted gradient, then the m new keys in one
// all-or-nothing SetBatch (an item drawn twice takes its last key).
func Example_batch() {
	b := []float64{1, 2, 3, 4, 50}
	n, m, steps, alpha := len(b), 2, 1000, 0.01
	x := 0.0

	s := btree.New(n)
	eps := 1 / float64(2*n)
	src := rand.NewPCG(1, 2)
	items, probs, keys := make([]int, m), make([]float64, m), make([]float64, m)
	for range steps {
		// replace = true: independent draws; false: m distinct items.
		if err := reweighted.DrawBatch(s, eps, src, true, items, probs); err != nil {
			panic(err)
		}
		step := 0.0
		for k, i := range items {
			g := x - b[i]
			step += alpha / (float64(n*m) * probs[k]) * g
			keys[k] = math.Abs(g)
		}
		x -= step
		if err := reweighted.SetBatch(s, items, keys); err != nil {
			panic(err)
		}
	}
	fmt.Println("x within 1 of the mean of b, 12:", math.Abs(x-12) < 1)
	// Output:
	// x within 1 of the mean of b, 12: true
}
