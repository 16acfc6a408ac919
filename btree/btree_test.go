package btree_test

import (
	"flag"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/reweighted/reweighted"
	"github.com/reweighted/reweighted/btree"
	"github.com/reweighted/reweighted/samplertest"
)

var long = flag.Bool("long", false, "run the long state-machine and differential sweeps (several minutes: use -timeout 30m)")

func TestNewIsValid(t *testing.T) {
	for n := range 600 {
		s := btree.New(n)
		require.NoError(t, s.Check(), "n=%d", n)
		require.Equal(t, n, s.Len())
		for i := range n {
			require.Zero(t, s.Key(i))
		}
	}
	for _, n := range []int{4095, 4096, 4097, 100_000} {
		require.NoError(t, btree.New(n).Check(), "n=%d", n)
	}
}

func TestNewPanics(t *testing.T) {
	require.Panics(t, func() { btree.New(-1) })
}

func TestKeyPanicsOutOfRange(t *testing.T) {
	s := btree.New(3)
	require.Panics(t, func() { s.Key(3) })
	require.Panics(t, func() { s.Key(-1) })
}

// randomKey draws a key of every kind the contract names (zeros, ties,
// subnormals, huge keys), small enough that n of them stay below MaxSum.
func randomKey(rng *rand.Rand, n int) float64 {
	return samplertest.KeyFromBits(byte(rng.IntN(6)), rng.Uint64(), n)
}

// TestRandomHistoryInvariants checks every invariant after every Set of
// long seeded histories on trees of one to three inner levels, so that
// leaves and inner nodes split, borrow and merge, with keys whose sums
// round, so that a sum left stale shows up as a rounding difference.
func TestRandomHistoryInvariants(t *testing.T) {
	steps := 3000
	if *long {
		steps = 30_000
	}
	for _, n := range []int{1, 2, 3, 5, 8, 17, 33, 100, 150, 200, 300, 1000, 5000} {
		rng := rand.New(rand.NewPCG(uint64(n), 1))
		s := btree.New(n)
		keys := make([]float64, n)
		heights := map[int]bool{}
		for step := range steps {
			i := rng.IntN(n)
			a := randomKey(rng, n)
			switch rng.IntN(4) {
			case 0:
				a = keys[rng.IntN(n)]
			case 1:
				a = rng.Float64()
			case 2:
				// Keys in a narrow band pile items into a few leaves,
				// which then split; moving them away merges leaves.
				a = float64(rng.IntN(3)) + 0.5
			}
			require.NoError(t, s.Set(i, a))
			keys[i] = a
			if n < 1000 || step%37 == 0 {
				require.NoError(t, s.Check(), "n=%d step %d", n, step)
			}
			require.Equal(t, a, s.Key(i))
			heights[s.Height()] = true
		}
		require.NoError(t, s.Check())
		require.NoError(t, samplertest.Verify(s, keys, 1/float64(2*n), []float64{rng.Float64()}))
		t.Logf("n=%d: heights %v, %.1f items per leaf", n, heights, s.Fill())
	}
}

// TestInvariantsStateMachine runs the kit's state machine, whose invariant
// is Check after every action, on up to a few hundred items: two inner
// levels, with splits, borrows and merges (its SetBand action crowds a run
// of items into a narrow band of keys).
func TestInvariantsStateMachine(t *testing.T) {
	samplertest.RunStateMachine(t, newSampler, 400, 3000, *long)
}

// FuzzInvariants drives the state machine of TestInvariantsStateMachine
// from fuzzer input; plain go test replays the seeds.
func FuzzInvariants(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{0, 5, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16})
	f.Add([]byte("\x10\xff\x00\x80\x7f\x01\x02\xfe\x33\x44\x55\x66\x77\x88\x99"))
	f.Fuzz(rapid.MakeFuzz(samplertest.StateMachineN(newSampler, 300)))
}

func newSampler(n int) reweighted.Sampler { return btree.New(n) }
