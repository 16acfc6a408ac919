package srg

import (
	"fmt"
	"testing"

	"github.com/reweighted/reweighted/libsvm"
)

// BenchmarkIterationWide times one iteration (batch 1) of SGD, SRG and SVRG
// (no refresh of its reference point: the per-iteration part) on logistic
// regression with μ = 1/n over sparse rows of about 75 (rcv1) and 450
// (news20) non-zeros, at d = 10⁴ and d = 10⁶: the ℓ2 shrinkage and SVRG's
// dense term are lazy, so the time per iteration does not grow with d, and
// SRG's sampler step is a smaller share of longer rows.
func BenchmarkIterationWide(b *testing.B) {
	const n = 1 << 12
	for _, c := range []struct{ d, nnz int }{{1e4, 75}, {1e6, 75}, {1e6, 450}} {
		d := c.d
		var p *Problem
		setup := func(b *testing.B) {
			if p != nil {
				return
			}
			ds := libsvm.TextLike(1, libsvm.Shape{N: n, D: d, RowNNZ: c.nnz})
			var err error
			if p, err = NewProblem(ds, ds.Labels, Logistic, 1.0/n); err != nil {
				b.Fatal(err)
			}
		}
		for _, m := range []Method{SGD, SRG, SVRG} {
			b.Run(fmt.Sprintf("impl=%v/d=%d/nnz=%d", m, d, c.nnz), func(b *testing.B) {
				setup(b)
				benchSteps(b, p, Options{Method: m, Schedule: Constant{Alpha: 1, Eps: 0.5 / n}, Q: 1e-300, X0: make([]float64, d)}, m == SRG)
			})
		}
	}
}

// BenchmarkSolve times Solve with each solver on logistic regression
// (μ = 1/n) over 2,000 sparse rows of about 40 non-zeros, for d around
// DenseMaxDim: where the two take about as long is the switch point.
func BenchmarkSolve(b *testing.B) {
	for _, d := range []int{100, 200, 300, 400, 600} {
		ds := libsvm.TextLike(1, libsvm.Shape{N: 2000, D: d, RowNNZ: 40})
		p, err := NewProblem(ds, ds.Labels, Logistic, 1.0/2000)
		if err != nil {
			b.Fatal(err)
		}
		for _, s := range []Solver{DenseNewton, NewtonCG} {
			b.Run(fmt.Sprintf("impl=%s/d=%d", map[Solver]string{DenseNewton: "dense", NewtonCG: "cg"}[s], d), func(b *testing.B) {
				for b.Loop() {
					if _, err := p.SolveWith(1e-12, s); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
