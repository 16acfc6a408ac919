package srg_test

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/reweighted/reweighted"
	"github.com/reweighted/reweighted/libsvm"
	"github.com/reweighted/reweighted/ost"
	"github.com/reweighted/reweighted/srg"
)

// Dense rows from a [][]float64: least squares on three examples, solved
// exactly by Solve.
func ExampleNewDense() {
	a, err := srg.NewDense([][]float64{
		{1, 0},
		{0, 1},
		{1, 1},
	})
	if err != nil {
		panic(err)
	}
	p, err := srg.NewProblem(a, []float64{1, 2, 3.5}, srg.Squared, 0)
	if err != nil {
		panic(err)
	}
	sol, err := p.Solve(1e-12)
	if err != nil {
		panic(err)
	}
	fmt.Printf("x* = %.4f\n", sol.X) // the normal equations give (7/6, 13/6)

	// Bad input is an error, and nothing is built.
	_, err = srg.NewDense([][]float64{{1, 2}, {3}})
	fmt.Println(err)
	_, err = srg.NewDense([][]float64{{1, math.NaN()}})
	fmt.Println(err)
	// Output:
	// x* = [1.1667 2.1667]
	// srg: invalid input: dense row 1 has 1 columns, row 0 has 2
	// srg: invalid input: dense value at row 0, column 1 is NaN
}

// Dense rows from a gonum matrix: the rows of the matrix are the examples.
func ExampleDenseFromMatrix() {
	m := mat.NewDense(4, 2, []float64{
		1, 1,
		1, 2,
		1, 3,
		1, 4,
	})
	a, err := srg.DenseFromMatrix(m)
	if err != nil {
		panic(err)
	}
	// y = 1 + 2t for t = 1, …, 4: the first column fits the intercept.
	p, err := srg.NewProblem(a, []float64{3, 5, 7, 9}, srg.Squared, 0)
	if err != nil {
		panic(err)
	}
	sol, err := p.Solve(1e-12)
	if err != nil {
		panic(err)
	}
	fmt.Printf("intercept %.3f, slope %.3f\n", sol.X[0], sol.X[1])
	// Output: intercept 1.000, slope 2.000
}

// The suboptimality F(x_k) − F(x*) of gradient descent (reshuffled SGD with
// one mini-batch of all n examples, step 1/L), SGD and SRG (step 1/(2 Lmax)),
// on the paper's synthetic least-squares problem, whose Cauchy noise makes a
// few examples' gradients dominate. A step of gradient descent costs n
// gradients, a step of SGD or SRG one. At the same constant step, SRG's
// importance sampling keeps its iterates far closer to the optimum than
// SGD's.
func ExampleOptions_suboptimality() {
	ds := libsvm.Synthetic(3, 1000, 10)
	p, err := srg.NewProblem(ds, ds.Labels, srg.Squared, 0)
	if err != nil {
		panic(err)
	}
	sol, err := p.Solve(1e-12)
	if err != nil {
		panic(err)
	}
	gd, err := srg.Run(p, srg.Options{
		Method: srg.Reshuffled, Batch: p.Len(), Schedule: srg.Constant{Alpha: 1 / p.L()},
		Epochs: 20, PerEpoch: 1, XStar: sol.X, Suboptimality: true,
	})
	if err != nil {
		panic(err)
	}
	fmt.Printf("F(x0) − F(x*) = %.1f\n", gd.Subopt[0])
	fmt.Printf("gradient descent after 1, 5 epochs: %.2f, %.1e\n", gd.Subopt[1], gd.Subopt[5])
	// The mean over the last 10 of 30 epochs and 10 seeds.
	tail := map[srg.Method]float64{}
	for _, m := range []srg.Method{srg.SGD, srg.SRG} {
		for seed := range uint64(10) {
			tr, err := srg.Run(p, srg.Options{
				Method: m, Schedule: srg.ExperimentalConstant(p.Len(), p.Lmax()),
				NewSampler: func(n int) reweighted.Distribution { return ost.New(n) },
				Epochs:     30, PerEpoch: 1, XStar: sol.X, Suboptimality: true, Seed: seed,
			})
			if err != nil {
				panic(err)
			}
			for _, s := range tr.Subopt[21:] {
				tail[m] += s / 100
			}
		}
	}
	fmt.Println("SRG's F(x_k) − F(x*) ends at least 10 times below SGD's:", tail[srg.SRG] < tail[srg.SGD]/10)
	// Output:
	// F(x0) − F(x*) = 32.7
	// gradient descent after 1, 5 epochs: 1.35, 5.5e-05
	// SRG's F(x_k) − F(x*) ends at least 10 times below SGD's: true
}
