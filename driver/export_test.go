package driver

// Acc is the exact accumulator, for the tests of package driver_test.
type Acc = exactSum

// Carry propagates the carries of x, which Add does every 2^30 additions.
func Carry(x *Acc) { x.carry() }

// NewSortedIndex returns an Index over keys in canonical order, item
// r − 1 at rank r, whose sums are never used: for driving a Cutoff.
func NewSortedIndex(keys []float64) Index { return &sortedIndex{keys} }

// NewCutoff returns the Cutoff that Solve makes for ix at ε, with the
// error bound of sums depth additions deep.
func NewCutoff(ix Index, eps float64, depth int) Cutoff {
	n := ix.Len()
	c := Cutoff{n: n, eps: eps, slack: slack(depth), ix: ix}
	if eps == 1/float64(n) {
		c.uniform, c.top = true, ix.Key(ix.Select(1))
	}
	return c
}
