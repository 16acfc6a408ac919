package samplertest

import (
	"math/big"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/reweighted/reweighted"
	"github.com/stretchr/testify/require"
)

// weightedSizes sets the kit's sizes for a test of the weighted kind: 30
// rapid checks a property and 20,000 draws (5,000 a χ² test), 1,000
// checks, 10^6 draws and 2·10^6 updates with -long.
func weightedSizes(t *testing.T) {
	kitSizes(t, 30, 20_000)
	if *long {
		SetDefaultFlag(t, "samplertest.updates", "2000000")
	}
}

// Property: the sound float64 sum tree passes the weighted kind, with Find
// and Draw, with Find only and with Draw only.
func TestRunWeightedSoundTree(t *testing.T) {
	weightedSizes(t)
	t.Run("both", func(t *testing.T) {
		RunWeighted(t, func(n int) reweighted.Weighted { return newSumTree(n, sound) })
	})
	t.Run("find only", func(t *testing.T) {
		RunWeighted(t, func(n int) reweighted.Weighted { return findOnly{newSumTree(n, sound)} })
	})
	t.Run("draw only", func(t *testing.T) {
		RunWeighted(t, func(n int) reweighted.Weighted { return drawOnly{newSumTree(n, sound)} })
	})
}

// Property: a sampler with neither Find nor Draw fails Kind, and the checks
// that need them skip it rather than fail.
func TestWeightedNeither(t *testing.T) {
	nw := func(n int) reweighted.Weighted { return neither{newSumTree(n, sound)} }
	var failed []string
	planted(t, func() { failed = weightedFailures("Kind", weightedKind, nw) })
	require.Len(t, failed, 1)
	require.Contains(t, failed[0], "neither Find")
	for _, name := range []string{"FindEdges", "ChiSquare", "Edges", "Drift"} {
		require.Empty(t, weightedFailures(name, checkNamed(t, name), nw), name)
	}
	err := CheckWeighted(nw)
	require.ErrorContains(t, err, "Kind: ")
	require.Equal(t, 1, strings.Count(err.Error(), "\n")+1, "only Kind fails: %v", err)
}

// checkNamed returns the weighted check called name.
func checkNamed(t *testing.T, name string) func(TB, NewWeighted) {
	for _, c := range WeightedChecks() {
		if c.Name == name {
			return c.Run
		}
	}
	t.Fatalf("no weighted check %q", name)
	return nil
}

// Property: each bug of the sum trees of prioritised replay, planted in
// the tree, is caught by the check one expects, with a message that names
// the broken property; the draw-only cases show what a sampler without
// Find is caught by.
func TestWeightedCatches(t *testing.T) {
	weightedSizes(t)
	cases := []struct {
		bug      treeBug
		drawOnly bool
		check    string
		msg      string
	}{
		{float32Sums, false, "Edges", "Total() = "},
		{deltaSums, false, "Drift", "Total() = "},
		{deltaSums, false, "ManyUpdates", "after "},
		{deltaSums, true, "ChiSquare", "after weight 0 was set to 1e20 and back"},
		{zeroLeaf, false, "Edges", "an item of weight 0"},
		{paddingLeaf, false, "Edges", "out of range [0, 5) (a padding leaf?)"},
		{heapOrder, false, "Capacities", "not index order"},
		{heapOrder, false, "Edges", "not index order"},
	}
	for _, c := range cases {
		name := bugNames[c.bug] + "/" + c.check
		if c.drawOnly {
			name += "/draw only"
		}
		t.Run(name, func(t *testing.T) {
			nw := func(n int) reweighted.Weighted { return newSumTree(n, c.bug) }
			if c.drawOnly {
				nw = func(n int) reweighted.Weighted { return drawOnly{newSumTree(n, c.bug)} }
			}
			var failed []string
			planted(t, func() { failed = weightedFailures(c.check, checkNamed(t, c.check), nw) })
			require.NotEmpty(t, failed, "%s passed %s", bugNames[c.bug], c.check)
			require.Contains(t, strings.Join(failed, "\n"), c.msg)
		})
	}
}

// Property: the heap-ordered tree with the wrong order still draws with
// the right law: order matters to Find alone.
func TestWeightedHeapOrderDrawsRight(t *testing.T) {
	weightedSizes(t)
	nw := func(n int) reweighted.Weighted { return drawOnly{newSumTree(n, heapOrder)} }
	require.Empty(t, weightedFailures("ChiSquare", weightedChiSquare, nw))
}

// Property: OracleWeighted's Locate and CheckFind agree with a brute force
// over exact rationals: the item whose interval [S_{i−1}, S_i)/S holds u.
func TestOracleWeightedLocate(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, c := range weightedCases() {
		ex := OracleWeighted(c.keys)
		total := new(big.Rat)
		for _, a := range c.keys {
			total.Add(total, new(big.Rat).SetFloat64(a))
		}
		us := append(ex.EdgeUs(len(c.keys)), NearEdgeU...)
		for range 50 {
			us = append(us, rng.Float64())
		}
		for _, u := range us {
			x := new(big.Rat).Mul(new(big.Rat).SetFloat64(u), total)
			want, sum := -1, new(big.Rat)
			for i, a := range c.keys {
				sum.Add(sum, new(big.Rat).SetFloat64(a))
				if x.Cmp(sum) < 0 {
					want = i
					break
				}
			}
			require.Equal(t, want, ex.Locate(u), "%s: u = %v", c.name, u)
			require.NotZero(t, c.keys[want])
			require.NoError(t, ex.CheckFind(u, want))
			for _, i := range []int{-1, len(c.keys)} {
				require.Error(t, ex.CheckFind(u, i))
			}
			// An item of weight 0 is never right, even at an edge.
			for i, a := range c.keys {
				if a == 0 {
					require.ErrorContains(t, ex.CheckFind(u, i), "weight 0")
				}
			}
		}
		f, _ := total.Float64()
		require.NoError(t, ex.CheckTotal(f), c.name)
		if f > 0x1p-1000 { // a relative 1e-8 is no step of the subnormal grid
			require.Error(t, ex.CheckTotal(f*(1+1e-8)), c.name)
		}
	}
}

// ChiSquare has the power the default -samplertest.draws (10^5, 25,000 a
// case) gives it: it catches a tree whose odd items are drawn as if their
// weights were 10% heavier (failing on "ties and zeros" with p-value
// 5·10^-10), and passes them 7% heavier: a bias spread over many items is
// the mass tests' to find. A sound tree passes.
func TestWeightedChiSquareHasPower(t *testing.T) {
	old := *drawsFlag
	*drawsFlag = 100_000
	defer func() { *drawsFlag = old }()
	over := func(f float64) NewWeighted {
		return func(n int) reweighted.Weighted {
			s := newSumTree(n, sound)
			s.over = f
			return drawOnly{s}
		}
	}
	planted(t, func() { require.NotEmpty(t, weightedFailures("ChiSquare", weightedChiSquare, over(1.1))) })
	require.Empty(t, weightedFailures("ChiSquare", weightedChiSquare, over(1.07)))
	require.Empty(t, weightedFailures("ChiSquare", weightedChiSquare, over(0)))
	require.Len(t, weightedCases(), 14, "28 χ² tests, as weightedMinPValue's failure chance counts")
}
