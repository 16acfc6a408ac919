package ost_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/reweighted/reweighted"
	"github.com/reweighted/reweighted/naive"
	"github.com/reweighted/reweighted/ost"
	"github.com/reweighted/reweighted/samplertest"
)

// randomKey draws a key of one of the kinds the contract names: zero, small
// integers (ties), integers times a power of two, full-mantissa floats,
// subnormals and huge keys, all small enough that n of them stay below
// MaxSum.
func randomKey(rng *rand.Rand, n int) float64 {
	_, top := math.Frexp(reweighted.MaxSum / float64(2*n))
	top -= 21
	m := float64(rng.IntN(1<<20) + 1)
	switch rng.IntN(10) {
	case 0:
		return 0
	case 1, 2:
		return float64(rng.IntN(8))
	case 3:
		return math.Ldexp(m, rng.IntN(top+1075)-1074)
	case 4:
		return math.Ldexp(m, -1074)
	case 5:
		return math.Ldexp(m, top-rng.IntN(8))
	default:
		return rng.Float64() * 100
	}
}

// randomEps draws a valid bound for n items, edges included.
func randomEps(rng *rand.Rand, n int) float64 {
	top := 1 / float64(n)
	switch rng.IntN(8) {
	case 0:
		return 0
	case 1:
		return top
	case 2:
		return math.Nextafter(top, 0)
	case 3:
		return math.Ldexp(1, -30-rng.IntN(1045))
	default:
		return rng.Float64() * top
	}
}

// TestDifferentialNaive runs long random histories on ost and on the naive
// backend and compares every answer. Both may round a boundary differently
// (their sums are associated differently); where they disagree, both must
// still pass samplertest.Verify.
func TestDifferentialNaive(t *testing.T) {
	type run struct{ n, steps int }
	runs := []run{{1, 200}, {2, 500}, {7, 2000}, {64, 3000}, {1000, 3000}}
	if *long {
		runs = append(runs, run{10_000, 100_000}, run{2000, 100_000})
	}
	for k, r := range runs {
		rng := rand.New(rand.NewPCG(uint64(k), 0x5eed))
		tr, nv := ost.New(r.n), naive.New(r.n)
		keys := make([]float64, r.n)
		disagree := 0
		for step := range r.steps {
			i, a := rng.IntN(r.n), randomKey(rng, r.n)
			if rng.IntN(4) == 0 {
				a = keys[rng.IntN(r.n)] // a tie
			}
			require.NoError(t, tr.Set(i, a))
			require.NoError(t, nv.Set(i, a))
			keys[i] = a
			if step%(1+r.n/16) == 0 {
				require.NoError(t, tr.Check(), "n=%d step %d", r.n, step)
			}
			eps, u := randomEps(rng, r.n), rng.Float64()
			j := rng.IntN(r.n)
			if !agree(t, tr, nv, eps, u, j) {
				disagree++
				require.NoError(t, samplertest.Verify(tr, keys, eps, []float64{u}), "ost, n=%d step %d", r.n, step)
				require.NoError(t, samplertest.Verify(nv, keys, eps, []float64{u}), "naive, n=%d step %d", r.n, step)
			}
		}
		require.NoError(t, tr.Check())
		t.Logf("n=%d: %d steps, %d boundary disagreements", r.n, r.steps, disagree)
		require.LessOrEqual(t, disagree, r.steps/100, "n=%d: too many disagreements", r.n)
	}
}

// agree reports whether two samplers give the same Solve, Sample and Prob
// answers at (eps, u) and for item j, up to rounding of λ and p. It fails the
// test on errors.
func agree(t *testing.T, a, b reweighted.Sampler, eps, u float64, j int) bool {
	t.Helper()
	rho1, lam1, err := a.Solve(eps)
	require.NoError(t, err)
	rho2, lam2, err := b.Solve(eps)
	require.NoError(t, err)
	i1, p1, err := a.Sample(eps, u)
	require.NoError(t, err)
	i2, p2, err := b.Sample(eps, u)
	require.NoError(t, err)
	q1, err := a.Prob(j, eps)
	require.NoError(t, err)
	q2, err := b.Prob(j, eps)
	require.NoError(t, err)
	return rho1 == rho2 && i1 == i2 && close(lam1, lam2) && close(p1, p2) && close(q1, q2)
}

// close reports whether x and y agree to a relative 1e-9, or are both
// subnormal-small.
func close(x, y float64) bool {
	return math.Abs(x-y) <= 1e-9*math.Max(math.Abs(x), math.Abs(y))+math.SmallestNonzeroFloat64
}
