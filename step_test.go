package reweighted_test

import (
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/reweighted/reweighted"
	"github.com/reweighted/reweighted/internal/backends"
	"github.com/reweighted/reweighted/naive"
	"github.com/stretchr/testify/require"
)

// Hidden forms of a sampler of either kind: the same methods but Step, so
// that reweighted.Step takes its fallback, Set then Draw.
type (
	lawOnly struct{ reweighted.LawSampler }
	mapOnly struct{ reweighted.Sampler }
)

func hide(d reweighted.Distribution) reweighted.Distribution {
	if m, ok := d.(reweighted.Sampler); ok {
		return mapOnly{m}
	}
	return lawOnly{d.(reweighted.LawSampler)}
}

// stepError is the error Step must return, from the spec alone: ErrEmpty,
// then ErrIndex, ErrKey for the key itself, ErrEpsilon, then ErrKey if the
// exact sum of the keys after the Set would pass MaxSum (over).
func stepError(n, i int, a, eps float64, over bool) error {
	switch {
	case n == 0:
		return reweighted.ErrEmpty
	case i < 0 || i >= n:
		return reweighted.ErrIndex
	case !(a >= 0 && a <= reweighted.MaxSum):
		return reweighted.ErrKey
	case !(eps >= 0 && eps <= 1/float64(n)):
		return reweighted.ErrEpsilon
	case over:
		return reweighted.ErrKey
	}
	return nil
}

// Step is Set then Draw, bit for bit: over random histories of valid and
// rejected steps on every backend, a sampler stepped by reweighted.Step
// (through its own Step, where it has one) and its twin stepped by the
// fallback return the same items, the same p and the same errors, draw
// the same numbers from their sources and hold the same keys after each
// step; a rejected step changes no key and draws no number; the errors are
// the spec's (stepError).
func TestStepIsSetThenDraw(t *testing.T) {
	for _, b := range backends.Every() {
		t.Run(b.Name, func(t *testing.T) {
			valid := 0 // steps that set and drew, not rejected
			for seed := range uint64(40) {
				r := rand.New(rand.NewPCG(seed, 99))
				n := r.IntN(24)
				if seed%10 == 0 {
					n = 0
				}
				fast, slow := b.Dist(n), hide(b.Dist(n))
				srcF, srcS := &countingSource{Source: rand.NewPCG(seed, 1)}, &countingSource{Source: rand.NewPCG(seed, 1)}
				keys := make([]float64, n)
				next := 0
				for step := range 300 {
					i := next
					switch r.IntN(10) {
					case 0:
						i = r.IntN(n+2) - 1 // out of range now and then
					case 1:
						i = r.IntN(max(n, 1))
					}
					var a float64
					switch r.IntN(12) {
					case 0:
						a = 0
					case 1:
						a = []float64{math.NaN(), -1, math.Inf(1), math.Nextafter(reweighted.MaxSum, math.Inf(1))}[r.IntN(4)]
					case 2:
						a = reweighted.MaxSum
					default:
						a = float64(r.IntN(1 << r.IntN(40)))
					}
					eps := 0.0
					if n > 0 {
						switch r.IntN(8) {
						case 0:
						case 1:
							eps = 2 / float64(n) // invalid
						case 2:
							eps = 1 / float64(n)
						default:
							eps = 1 / float64(2*n)
						}
					}
					sum := new(big.Float).SetPrec(1000)
					for k, x := range keys {
						if k == i {
							x = a
						}
						if !math.IsNaN(x) {
							sum.Add(sum, big.NewFloat(x))
						}
					}
					want := stepError(n, i, a, eps, sum.Cmp(big.NewFloat(reweighted.MaxSum)) > 0)
					msg := fmt.Sprintf("%s seed %d step %d: Step(ε %v, i %d, a %v) on %v", b.Name, seed, step, eps, i, a, keys)
					before := srcF.calls
					iF, pF, errF := reweighted.Step(fast, eps, i, a, srcF)
					iS, pS, errS := reweighted.Step(slow, eps, i, a, srcS)
					if want != nil {
						require.ErrorIs(t, errF, want, msg)
						require.ErrorIs(t, errS, want, msg)
						require.Equal(t, before, srcF.calls, "a rejected step drew numbers: %s", msg)
					} else {
						require.NoError(t, errF, msg)
						require.NoError(t, errS, msg)
						keys[i] = a + 0
						require.Equal(t, iF, iS, msg)
						require.Equal(t, math.Float64bits(pF), math.Float64bits(pS), msg)
						require.Positive(t, pF, msg)
						next = iF
						valid++
					}
					require.Equal(t, srcS.calls, srcF.calls, msg)
					for k, x := range keys {
						if fast.Key(k) != x || slow.Key(k) != x {
							require.FailNow(t, "keys", "item %d: %v and %v, not %v: %s", k, fast.Key(k), slow.Key(k), x, msg)
						}
					}
				}
			}
			require.Greater(t, valid, 6000, "most steps valid")
		})
	}
}

// Step panics on a Distribution that cannot draw, as Draw does, before it
// sets anything.
func TestStepNeitherKind(t *testing.T) {
	d := bare{naive.New(3)}
	require.Panics(t, func() { _, _, _ = reweighted.Step(d, 0, 1, 5, rand.NewPCG(1, 1)) })
	require.Zero(t, d.Key(1))
}
