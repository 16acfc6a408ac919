package driver_test

import (
	"fmt"
	"sort"
	"testing"

	"github.com/reweighted/reweighted"
	"github.com/reweighted/reweighted/bench"
	"github.com/reweighted/reweighted/driver"
	"github.com/reweighted/reweighted/fuzz"
	"github.com/reweighted/reweighted/samplertest"
)

// sorted is an index written outside the module: the items in canonical
// order in a slice, with prefix sums added left to right. An update moves
// one item to its place and adds the sums again: O(n), and correct.
type sorted struct {
	key   []float64 // by item
	order []int     // order[r-1] is the item of rank r
	rank  []int     // rank[i] is the rank of item i
	sum   []float64 // sum[r] is the sum of the keys of ranks 1, …, r
}

func newSorted(n int) *sorted {
	x := &sorted{key: make([]float64, n), order: make([]int, n), rank: make([]int, n), sum: make([]float64, n+1)}
	for i := range n {
		x.order[i], x.rank[i] = i, i+1 // all keys 0: index order
	}
	return x
}

func (x *sorted) before(i, j int) bool {
	return driver.Before(x.key[i], int32(i), x.key[j], int32(j))
}

// swap exchanges the items of ranks r and r + 1.
func (x *sorted) swap(r int) {
	i, j := x.order[r-1], x.order[r]
	x.order[r-1], x.order[r] = j, i
	x.rank[i], x.rank[j] = r+1, r
}

func (x *sorted) Len() int          { return len(x.key) }
func (x *sorted) Key(i int) float64 { return x.key[i] }
func (x *sorted) Total() float64    { return x.sum[len(x.key)] }
func (x *sorted) Rank(i int) int    { return x.rank[i] }
func (x *sorted) Select(r int) int  { return x.order[r-1] }
func (x *sorted) SumDepth() int     { return len(x.key) } // left to right: n roundings at most
func (x *sorted) Build(keys []float64) {
	for i, a := range keys {
		x.Update(i, a)
	}
}

// Resize makes x an index of n items, all keys 0 (driver.Resizer), so
// that the Driver's UnmarshalBinary restores a saved state of any size.
func (x *sorted) Resize(n int) { *x = *newSorted(n) }

func (x *sorted) Update(i int, a float64) {
	x.sums(x.move(i, a))
}

// UpdateBatch is the fast path of a batch (driver.BatchUpdater): it moves
// every item to its place, then adds the sums again once, from the lowest
// rank any move touched.
func (x *sorted) UpdateBatch(items []int, keys []float64) {
	from := len(x.key)
	for k, i := range items {
		from = min(from, x.move(i, keys[k]))
	}
	x.sums(from)
}

// move gives item i the key a and moves it to its rank; it returns the
// lowest rank whose item changed.
func (x *sorted) move(i int, a float64) int {
	x.key[i] = a
	from := x.rank[i]
	for r := x.rank[i]; r > 1 && x.before(i, x.order[r-2]); r-- {
		x.swap(r - 1)
	}
	for r := x.rank[i]; r < len(x.key) && x.before(x.order[r], i); r++ {
		x.swap(r)
	}
	return min(from, x.rank[i])
}

// sums adds the partial sums again from rank from on; those before stay.
func (x *sorted) sums(from int) {
	for r := from - 1; r < len(x.key); r++ {
		x.sum[r+1] = x.sum[r] + x.key[x.order[r]]
	}
}

func (x *sorted) SelectSum(target, scale float64) (int, int, float64) {
	r := sort.Search(len(x.key), func(k int) bool { return x.sum[k+1]*scale > target }) + 1
	if r > len(x.key) {
		return -1, r, 0
	}
	return x.order[r-1], r, x.key[x.order[r-1]]
}

func (x *sorted) Cut(c driver.Cutoff) (int, float64) {
	// The predicate holds on a prefix of ranks, rank 1 included.
	r := sort.Search(len(x.key), func(k int) bool { return !c.Holds(x.key[x.order[k]], x.sum[k+1], k+1) })
	return r, x.sum[r]
}

func (x *sorted) Walk(from, to int, f func(item int, key float64)) {
	for r := from; r <= to; r++ {
		f(x.order[r-1], x.key[x.order[r-1]])
	}
}

// newSortedSampler is the constructor a backend hands the suite.
func newSortedSampler(n int) reweighted.Sampler {
	d := driver.New(newSorted(n))
	return &d
}

// A sampler made from an index written outside the module passes the whole
// conformance kit, exact oracle included, through the public interface.
func Example_index() {
	s := newSortedSampler(3)
	for i, a := range []float64{1, 2, 0} {
		if err := s.Set(i, a); err != nil {
			panic(err)
		}
	}
	i, p, _ := s.Sample(0, 0.5)
	fmt.Printf("u = 0.5 draws item %d with p = %.4f\n", i, p)
	fmt.Println("conformance:", samplertest.Check(newSortedSampler))
	// Output:
	// u = 0.5 draws item 1 with p = 0.6667
	// conformance: <nil>
}

// The same constructor gets the module's long histories, compared item for
// item with naive and checked against the exact oracle, and its benchmarks.
func TestOutsideBackend(t *testing.T) {
	fuzz.Histories(t, newSortedSampler, false)
}

func BenchmarkOutsideBackend(b *testing.B) {
	bench.Run(b, bench.Step, bench.Sizes(10, 14), bench.Impl{Name: "sorted", MaxN: 1 << 14, New: newSortedSampler})
}
