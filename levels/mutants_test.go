package levels

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// One Draw and one Set at a time at ε = 0 on subnormal keys, the least of
// them 2^-1074 (the lowest level there is, which the integer proposal
// then counts from) and never changed, the others set often to 0: the
// solution and the integer proposal the writer keeps are a Solve's and a
// new one (Check), and the law after each step is the oracle's.
func TestKeptAtZeroOnTheLowestLevel(t *testing.T) {
	const n, steps = 12, 300
	rng := rand.New(rand.NewPCG(21, 22))
	key := func() float64 {
		switch rng.IntN(4) {
		case 0:
			return 0
		case 1:
			return math.Ldexp(float64(1+rng.IntN(8)), -1074)
		case 2:
			return math.Ldexp(float64(1+rng.IntN(1<<20)), -1074)
		default:
			return math.Ldexp(1+rng.Float64(), -1040+rng.IntN(20))
		}
	}
	keys := make([]float64, n)
	keys[0] = 0x1p-1074
	for i := 1; i < n; i++ {
		keys[i] = key()
	}
	s := load(t, keys)
	src := rand.NewPCG(23, 24)
	for step := range steps {
		_, _, err := s.Draw(0, src)
		require.NoError(t, err)
		i := 1 + rng.IntN(n-1)
		keys[i] = key()
		require.NoError(t, s.Set(i, keys[i]))
		require.NoError(t, s.Check(), "step %d: item %d set to %v", step, i, keys[i])
		requireLaw(t, s, keys, 0)
	}
}

// At ε = 0 the integer proposal holds while its total weight, in units of
// the lowest level's 2^(ℓ−6), stays below 2^62. Keys in the top group of
// every level from 1 to 2^55 (the lowest twice) weigh 2^7·2^d at a shift
// d of 0 to 54, 2^62 in all: with the top key 0 the total is 2^61, and the
// Set that brings it back reaches 2^62 exactly, where the writer must give
// the proposal up as a new one would (Check); the law is the oracle's
// either way.
func TestKeptAtZeroIntegerTotalAtItsLimit(t *testing.T) {
	keys := []float64{math.Nextafter(2, 0)}
	for d := range 55 {
		keys = append(keys, math.Nextafter(math.Ldexp(1, d+1), 0))
	}
	top := len(keys) - 1
	a := keys[top]
	keys[top] = 0
	s := load(t, keys)
	src := rand.NewPCG(25, 26)
	for range 3 {
		_, _, err := s.Draw(0, src)
		require.NoError(t, err)
		if keys[top] == 0 {
			keys[top] = a
		} else {
			keys[top] = 0
		}
		require.NoError(t, s.Set(top, keys[top]))
		require.NoError(t, s.Check())
		requireLaw(t, s, keys, 0)
	}
}
