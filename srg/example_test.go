package srg_test

import (
	"fmt"

	"github.com/reweighted/reweighted"
	"github.com/reweighted/reweighted/libsvm"
	"github.com/reweighted/reweighted/ost"
	"github.com/reweighted/reweighted/srg"
)

// SRG against SGD on the paper's synthetic least-squares problem, with the
// same constant step α = 1/(2L) and ε = 1/(2n).
func ExampleRun() {
	ds := libsvm.Synthetic(3, 1000, 10)
	p, err := srg.NewProblem(ds, ds.Labels, srg.Squared, 0)
	if err != nil {
		panic(err)
	}
	sol, err := p.Solve(1e-12)
	if err != nil {
		panic(err)
	}
	sched := srg.Constant{Alpha: 1 / (2 * p.Lmax()), Eps: 1 / (2 * float64(p.Len()))}
	final := map[srg.Method]float64{}
	for _, m := range []srg.Method{srg.SGD, srg.SRG} {
		var mean float64
		for seed := range uint64(10) {
			tr, err := srg.Run(p, srg.Options{
				Method: m, Schedule: sched, Seed: seed, Epochs: 40, XStar: sol.X,
				NewSampler: func(n int) reweighted.Distribution { return ost.New(n) },
			})
			if err != nil {
				panic(err)
			}
			// The stationary level: the mean over the last 20 epochs.
			tail := tr.RelErr[20:]
			for _, e := range tail {
				mean += e / 10 / float64(len(tail))
			}
		}
		final[m] = mean
	}
	fmt.Println("SRG ends at least 10 times closer to x* than SGD:", final[srg.SRG] < final[srg.SGD]/10)
	// Output: SRG ends at least 10 times closer to x* than SGD: true
}
