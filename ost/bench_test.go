package ost_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/stat/sampleuv"

	"github.com/reweighted/reweighted/ost"
)

// BenchmarkStep times one step of SRG's sampler: draw an item at
// ε = 1/(2n), then give it a new key. gonum's Weighted, a heap of subtree
// sums without the ε floor, does the same work with Take and Reweight.
func BenchmarkStep(b *testing.B) {
	for k := 10; k <= 20; k++ {
		n := 1 << k
		b.Run(fmt.Sprintf("impl=ost/n=%d", n), func(b *testing.B) {
			rng := rand.New(rand.NewPCG(uint64(n), 2))
			tr := ost.New(n)
			for i := range n {
				if err := tr.Set(i, rng.ExpFloat64()); err != nil {
					b.Fatal(err)
				}
			}
			eps := 1 / float64(2*n)
			b.ReportAllocs()
			b.ReportMetric(float64(ost.BytesPerItem()), "B/item")
			for b.Loop() {
				i, _, err := tr.Sample(eps, rng.Float64())
				if err != nil {
					b.Fatal(err)
				}
				if err := tr.Set(i, rng.ExpFloat64()); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("impl=gonum-weighted/n=%d", n), func(b *testing.B) {
			rng := rand.New(rand.NewPCG(uint64(n), 2))
			w := make([]float64, n)
			for i := range w {
				w[i] = rng.ExpFloat64()
			}
			ws := sampleuv.NewWeighted(w, rand.NewPCG(uint64(n), 3))
			b.ReportAllocs()
			// Weighted keeps the weights and a heap of sums, both float64.
			b.ReportMetric(16, "B/item")
			for b.Loop() {
				i, ok := ws.Take()
				if !ok {
					b.Fatal("Take: empty")
				}
				ws.Reweight(i, rng.ExpFloat64()) // Take removed it; this puts it back
			}
		})
	}
}
