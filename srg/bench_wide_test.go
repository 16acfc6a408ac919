package srg

import (
	"fmt"
	"testing"

	"github.com/reweighted/reweighted/libsvm"
)

// BenchmarkIterationWide times one iteration (batch 1) of SGD, SRG and SVRG
// (no refresh of its reference point: the per-iteration part) on logistic
// regression with μ = 1/n over sparse rows of about 75 non-zeros, at
// d = 10⁴ and d = 10⁶: the ℓ2 shrinkage and SVRG's dense term are lazy, so
// the time per iteration does not grow with d.
func BenchmarkIterationWide(b *testing.B) {
	const n = 1 << 12
	for _, d := range []int{1e4, 1e6} {
		var p *Problem
		setup := func(b *testing.B) {
			if p != nil {
				return
			}
			ds := libsvm.TextLike(1, libsvm.Shape{N: n, D: d, RowNNZ: 75})
			var err error
			if p, err = NewProblem(ds, ds.Labels, Logistic, 1.0/n); err != nil {
				b.Fatal(err)
			}
		}
		for _, m := range []Method{SGD, SRG, SVRG} {
			b.Run(fmt.Sprintf("impl=%v/d=%d", m, d), func(b *testing.B) {
				setup(b)
				benchSteps(b, p, Options{Method: m, Schedule: Constant{Alpha: 1, Eps: 0.5 / n}, Q: 1e-300, X0: make([]float64, d)}, m == SRG)
			})
		}
	}
}
