package bench

import (
	"fmt"
	"testing"
)

// Run benchmarks op on each of impls at each size it supports, as
// sub-benchmarks named impl=X/n=N, reporting allocations and bytes per
// item. A backend outside this module is benchmarked, against gonum's
// Weighted at ε = 0, with
//
//	bench.Run(b, bench.Step, bench.Sizes(10, 20), bench.Impl{Name: "mine", MaxN: 1 << 20, New: mine.New})
func Run(b *testing.B, op Op, sizes []int, impls ...Impl) {
	for _, impl := range impls {
		for _, n := range sizes {
			if !impl.Supports(op, n) {
				continue
			}
			b.Run(fmt.Sprintf("impl=%s/n=%d", impl.Name, n), func(b *testing.B) {
				run, perItem, err := Prepare(impl, op, n, 1)
				if err != nil {
					b.Fatal(err)
				}
				b.ReportAllocs()
				for b.Loop() {
					run()
				}
				b.ReportMetric(perItem, "B/item")
			})
		}
	}
}
