package fuzz

import (
	"errors"
	"math"
	"math/big"
	"testing"

	"github.com/reweighted/reweighted"
	"github.com/reweighted/reweighted/samplertest"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// FuzzDifferential decodes a byte string into a sequence of Set, Sample,
// Solve and Prob calls applied to every backend, and checks every answer
// against the exact oracle to the contract's accuracy.
func FuzzDifferential(f *testing.F) {
	f.Add([]byte{3, 0, 0, 2, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 1, 3, 0, 1, 2, 3, 4, 5, 6, 7, 8})
	f.Add([]byte{7, 0, 1, 3, 1, 2, 0, 0, 0, 0, 0, 0, 0, 0, 1, 2, 5, 4, 3, 2, 1, 0, 0, 0, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		r := NewReader(data)
		n := 1 + int(r.Byte()%32)
		samplers := make([]reweighted.Sampler, len(Backends))
		for k, b := range Backends {
			samplers[k] = b.New(n)
		}
		keys := make([]float64, n)
		for steps := 0; r.Len() > 0 && steps < 64; steps++ {
			switch r.Byte() % 4 {
			case 0, 1: // Set, twice as often as a query
				i, a := int(r.Byte())%n, r.Key(n)
				for k, s := range samplers {
					require.NoError(t, s.Set(i, a), "%s: Set(%d, %v)", Backends[k].Name, i, a)
				}
				keys[i] = a
			default: // a query: Verify calls Solve, Prob and Sample
				eps, u := r.Eps(n), r.U()
				for k, s := range samplers {
					require.NoError(t, samplertest.Verify(s, keys, eps, []float64{u}), "%s", Backends[k].Name)
				}
			}
		}
		eps := r.Eps(n)
		for k, s := range samplers {
			require.NoError(t, samplertest.Verify(s, keys, eps, samplertest.EdgeU), "%s at the end", Backends[k].Name)
		}
	})
}

// FuzzBadInput feeds arbitrary float bits as keys, bounds and uniform
// numbers: no call panics, each error is the contract's, and a rejected call
// leaves the sampler as it was.
func FuzzBadInput(f *testing.F) {
	f.Add(uint8(3), uint8(1), math.Float64bits(math.NaN()), math.Float64bits(-1), math.Float64bits(1))
	f.Add(uint8(1), uint8(0), math.Float64bits(math.Inf(1)), math.Float64bits(1), math.Float64bits(0.5))
	f.Add(uint8(4), uint8(9), math.Float64bits(reweighted.MaxSum), math.Float64bits(0.25), math.Float64bits(math.Nextafter(1, 0)))
	f.Fuzz(func(t *testing.T, size, index uint8, keyBits, epsBits, uBits uint64) {
		n := int(size % 8)
		a, eps, u := math.Float64frombits(keyBits), math.Float64frombits(epsBits), math.Float64frombits(uBits)
		i := int(index%16) - 4
		for _, b := range Backends {
			s := b.New(n)
			for j := range n {
				require.NoError(t, s.Set(j, float64(j)))
			}
			before := samplertest.Observe(s)

			err := s.Set(i, a)
			switch {
			case i < 0 || i >= n:
				require.ErrorIs(t, err, reweighted.ErrIndex, "%s: Set(%d)", b.Name, i)
			case math.IsNaN(a) || math.IsInf(a, 0) || a < 0 || a > reweighted.MaxSum:
				require.ErrorIs(t, err, reweighted.ErrKey, "%s: Set(%d, %v)", b.Name, i, a)
			case a > reweighted.MaxSum*(1-0x1p-40):
				// The other keys sum to at most 28, below the rounding of the
				// sum of keys at MaxSum: either answer keeps the contract.
				require.True(t, err == nil || errors.Is(err, reweighted.ErrKey), "%s: Set(%d, %v): %v", b.Name, i, a, err)
			default:
				require.NoError(t, err, "%s: Set(%d, %v)", b.Name, i, a)
				require.False(t, math.Signbit(s.Key(i)), "%s: stored key keeps the sign of −0", b.Name)
			}
			if err != nil {
				require.Equal(t, before, samplertest.Observe(s), "%s: rejected Set(%d, %v) changed the sampler", b.Name, i, a)
			}
			before = samplertest.Observe(s)

			epsOK := n > 0 && eps >= 0 && eps <= 1/float64(n)
			uOK := u >= 0 && u < 1
			_, _, errSolve := s.Solve(eps)
			_, _, errSample := s.Sample(eps, u)
			_, errProb := s.Prob(0, eps)
			switch {
			case n == 0:
				require.ErrorIs(t, errSolve, reweighted.ErrEmpty)
				require.ErrorIs(t, errSample, reweighted.ErrEmpty)
				require.True(t, errors.Is(errProb, reweighted.ErrEmpty) || errors.Is(errProb, reweighted.ErrIndex))
			case !epsOK:
				require.ErrorIs(t, errSolve, reweighted.ErrEpsilon, "%s: Solve(%v)", b.Name, eps)
				require.ErrorIs(t, errSample, reweighted.ErrEpsilon, "%s: Sample(%v)", b.Name, eps)
				require.ErrorIs(t, errProb, reweighted.ErrEpsilon, "%s: Prob(0, %v)", b.Name, eps)
			default:
				require.NoError(t, errSolve)
				require.NoError(t, errProb)
				if uOK {
					require.NoError(t, errSample, "%s: Sample(%v, %v)", b.Name, eps, u)
				} else {
					require.ErrorIs(t, errSample, reweighted.ErrUniform, "%s: Sample(%v, %v)", b.Name, eps, u)
				}
			}
			require.Equal(t, before, samplertest.Observe(s), "%s: queries changed the sampler", b.Name)
		}
	})
}

// FuzzBoundary places u at, or a few floats next to, the exact edge of an
// item's interval, where rounding is most likely to pick the wrong item.
func FuzzBoundary(f *testing.F) {
	f.Add([]byte{5, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}, uint8(2), int8(0))
	f.Add([]byte{2, 3, 0, 0, 0, 0, 0, 0, 0, 1, 3, 0, 0, 0, 0, 0, 0, 0, 1}, uint8(0), int8(-1))
	f.Fuzz(func(t *testing.T, data []byte, which uint8, ulps int8) {
		r := NewReader(data)
		n := 1 + int(r.Byte()%16)
		keys := make([]float64, n)
		for i := range keys {
			keys[i] = r.Key(n)
		}
		eps := r.Eps(n)
		ex := samplertest.Oracle(keys, eps)
		for _, b := range Backends {
			s := b.New(n)
			for i, a := range keys {
				require.NoError(t, s.Set(i, a))
			}
			rho, _, err := s.Solve(eps)
			require.NoError(t, err)
			lo, _ := ex.Interval(int(which)%n, rho)
			u := nudge(lo, int(ulps%4))
			if u < 0 || u >= 1 {
				continue
			}
			require.NoError(t, samplertest.Verify(s, keys, eps, []float64{u}), "%s", b.Name)
		}
	})
}

// nudge returns the float nearest x moved by k floats.
func nudge(x *big.Rat, k int) float64 {
	u, _ := x.Float64()
	for ; k > 0; k-- {
		u = math.Nextafter(u, 2)
	}
	for ; k < 0; k++ {
		u = math.Nextafter(u, -1)
	}
	return u
}

// FuzzStateMachine bridges samplertest's rapid state machine to the native
// fuzzer, for every backend.
func FuzzStateMachine(f *testing.F) {
	machines := make([]func(*testing.T, []byte), len(Backends))
	for k, b := range Backends {
		machines[k] = rapid.MakeFuzz(samplertest.StateMachine(b.New))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, m := range machines {
			m(t, data)
		}
	})
}
