package levels

import (
	"math"
	"math/rand/v2"
	"strconv"
	"testing"

	"gonum.org/v1/gonum/stat/sampleuv"
)

// keyLaws are the laws of the benchmarks' keys: Exp(1), like gradient
// norms, and a lognormal exp(N(0, 3²)) spread over about 60 binades.
var keyLaws = []struct {
	name string
	draw func(*rand.Rand) float64
}{
	{"exp", func(r *rand.Rand) float64 { return r.ExpFloat64() }},
	{"lognormal", func(r *rand.Rand) float64 { return math.Exp(3 * r.NormFloat64()) }},
}

var benchSizes = []int{1 << 10, 1 << 16, 1 << 20}

// batchSize is the mini-batch of BenchmarkBatchStep, as in the paper.
const batchSize = 128

// BenchmarkStep is one SRG step: Draw at ε = 1/(2n), then Set of the
// drawn item to a fresh key; beside it gonum's sampleuv.Weighted, Take then
// Reweight (no ε floor). Compare with benchstat -col /impl.
func BenchmarkStep(b *testing.B) {
	for _, law := range keyLaws {
		for _, n := range benchSizes {
			rng := rand.New(rand.NewPCG(1, uint64(n)))
			keys := make([]float64, n)
			for i := range keys {
				keys[i] = law.draw(rng)
			}
			b.Run("keys="+law.name+"/impl=levels/n="+strconv.Itoa(n), func(b *testing.B) {
				s := New(n)
				if err := s.Load(keys); err != nil {
					b.Fatal(err)
				}
				src := rand.NewPCG(2, 3)
				eps := 1 / float64(2*n)
				b.ReportAllocs()
				for b.Loop() {
					i, _, err := s.Draw(eps, src)
					if err != nil {
						b.Fatal(err)
					}
					if err := s.Set(i, law.draw(rng)); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(s.Bytes())/float64(n), "bytes/item")
			})
			b.Run("keys="+law.name+"/impl=gonum/n="+strconv.Itoa(n), func(b *testing.B) {
				w := sampleuv.NewWeighted(keys, rand.NewPCG(2, 3))
				b.ReportAllocs()
				for b.Loop() {
					i, ok := w.Take()
					if !ok {
						b.Fatal("empty")
					}
					w.Reweight(i, law.draw(rng))
				}
			})
		}
	}
}

// BenchmarkBatchStep is one mini-batch step: DrawBatch of 128 items
// without replacement at ε = 1/(2n), then SetBatch of their new keys;
// beside it gonum's 128 Take then 128 Reweight. ns/item is per item of
// the batch.
func BenchmarkBatchStep(b *testing.B) {
	for _, law := range keyLaws {
		for _, n := range benchSizes {
			rng := rand.New(rand.NewPCG(1, uint64(n)))
			keys := make([]float64, n)
			for i := range keys {
				keys[i] = law.draw(rng)
			}
			items, probs, nk := make([]int, batchSize), make([]float64, batchSize), make([]float64, batchSize)
			b.Run("keys="+law.name+"/impl=levels/n="+strconv.Itoa(n), func(b *testing.B) {
				s := New(n)
				if err := s.Load(keys); err != nil {
					b.Fatal(err)
				}
				src := rand.NewPCG(2, 3)
				eps := 1 / float64(2*n)
				b.ReportAllocs()
				for b.Loop() {
					if err := s.DrawBatch(eps, src, false, items, probs); err != nil {
						b.Fatal(err)
					}
					for k := range nk {
						nk[k] = law.draw(rng)
					}
					if err := s.SetBatch(items, nk); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*batchSize), "ns/item")
			})
			b.Run("keys="+law.name+"/impl=gonum/n="+strconv.Itoa(n), func(b *testing.B) {
				w := sampleuv.NewWeighted(keys, rand.NewPCG(2, 3))
				b.ReportAllocs()
				for b.Loop() {
					for k := range items {
						i, ok := w.Take()
						if !ok {
							b.Fatal("empty")
						}
						items[k] = i
					}
					for _, i := range items {
						w.Reweight(i, law.draw(rng))
					}
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*batchSize), "ns/item")
			})
		}
	}
}
