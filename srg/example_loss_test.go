package srg_test

import (
	"fmt"
	"math"

	"github.com/reweighted/reweighted"
	"github.com/reweighted/reweighted/ost"
	"github.com/reweighted/reweighted/srg"
)

// Huber is the Huber loss of the residual r = t − y: r²/2 for |r| ≤ Delta
// and Delta·(|r| − Delta/2) beyond, so an outlier pulls on the fit with a
// force of at most Delta.
type Huber struct{ Delta float64 }

// Value returns the Huber loss of t − y.
func (h Huber) Value(t, y float64) float64 {
	r := math.Abs(t - y)
	if r <= h.Delta {
		return r * r / 2
	}
	return h.Delta * (r - h.Delta/2)
}

// Deriv returns t − y clamped to [−Delta, Delta].
func (h Huber) Deriv(t, y float64) float64 { return max(-h.Delta, min(h.Delta, t-y)) }

// Curv returns 1 where the loss is quadratic and 0 where it is linear.
func (h Huber) Curv(t, y float64) float64 {
	if math.Abs(t-y) <= h.Delta {
		return 1
	}
	return 0
}

// CurvBounds returns 0 and 1: φ” is 1 near the fit and 0 in the linear
// tails.
func (h Huber) CurvBounds() (lo, hi float64) { return 0, 1 }

// CheckLabel accepts every target.
func (h Huber) CheckLabel(float64) error { return nil }

// A user-defined loss: robust linear regression y ≈ w·a + b with the Huber
// loss, on data with one gross outlier, next to least squares on the same
// rows. Newton's method (Solve) finds both minimisers; SRG, run with the step
// 1/(2 Lmax) that the loss's curvature bound gives, approaches the Huber fit.
func ExampleLoss() {
	// y = 2a + 1, except for the last example.
	var rows [][]float64
	var y []float64
	for k := range 21 {
		a := float64(k) / 4
		rows = append(rows, []float64{a, 1}) // the constant column fits b
		y = append(y, 2*a+1)
	}
	y[20] = -30
	a, err := srg.NewDense(rows)
	if err != nil {
		panic(err)
	}
	const mu = 1e-6 // a little ridge keeps the minimiser unique
	for _, loss := range []srg.Loss{srg.Squared, Huber{Delta: 1}} {
		p, err := srg.NewProblem(a, y, loss, mu)
		if err != nil {
			panic(err)
		}
		sol, err := p.Solve(1e-12)
		if err != nil {
			panic(err)
		}
		if loss == srg.Squared {
			fmt.Printf("least squares: w = %.2f, b = %.2f\n", sol.X[0], sol.X[1])
			continue
		}
		fmt.Printf("Huber:         w = %.2f, b = %.2f\n", sol.X[0], sol.X[1])
		tr, err := srg.Run(p, srg.Options{
			Method:     srg.SRG,
			Schedule:   srg.Constant{Alpha: 1 / (2 * p.Lmax()), Eps: 1 / (2 * float64(p.Len()))},
			NewSampler: func(n int) reweighted.Distribution { return ost.New(n) },
			Epochs:     3000, XStar: sol.X, Seed: 1,
		})
		if err != nil {
			panic(err)
		}
		// RelErr is ‖x − x*‖²/‖x0 − x*‖².
		fmt.Println("SRG ends within 3% of the Huber fit:", tr.RelErr[len(tr.RelErr)-1] < 1e-3)
	}
	// Output:
	// least squares: w = -0.13, b = 4.37
	// Huber:         w = 1.94, b = 1.10
	// SRG ends within 3% of the Huber fit: true
}
