package fuzz

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/reweighted/reweighted"
	"github.com/reweighted/reweighted/internal/backends"
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
		if n >= 2 && r.Byte()%2 == 1 {
			// Start on the cutoff: tail keys within ulps of ε·λ(r).
			in := r.NearCutoff(n)
			copy(keys, in.Keys)
			for k, s := range samplers {
				for i, a := range keys {
					require.NoError(t, s.Set(i, a), "%s: Set(%d, %v)", Backends[k].Name, i, a)
				}
				require.NoError(t, samplertest.Verify(s, keys, in.Eps, []float64{r.U()}), "%s", Backends[k].Name)
			}
		}
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
			_, err := samplertest.Compare(samplers[0], s, keys, eps, samplertest.EdgeU)
			require.NoError(t, err, "%s against %s", Backends[k].Name, Backends[0].Name)
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
			case n == 0:
				require.ErrorIs(t, err, reweighted.ErrEmpty, "%s: Set(%d) with no items", b.Name, i)
			case i < 0 || i >= n:
				require.ErrorIs(t, err, reweighted.ErrIndex, "%s: Set(%d)", b.Name, i)
			case math.IsNaN(a) || math.IsInf(a, 0) || a < 0 || a > reweighted.MaxSum:
				require.ErrorIs(t, err, reweighted.ErrKey, "%s: Set(%d, %v)", b.Name, i, a)
			case !fits(n, i, a):
				// The exact sum of the keys 0, 1, …, n−1 with a in place of
				// item i's passes MaxSum.
				require.ErrorIs(t, err, reweighted.ErrKey, "%s: Set(%d, %v)", b.Name, i, a)
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
				require.ErrorIs(t, errProb, reweighted.ErrEmpty)
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
// item's interval (under the exact ρ), where rounding is most likely to pick
// the wrong item, on random keys or on keys placed at the cutoff of Lemma 1;
// every backend must draw an item whose exact interval is within the
// contract's tolerance, and all must agree but at an edge.
func FuzzBoundary(f *testing.F) {
	f.Add([]byte{5, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}, uint8(2), int8(0))
	f.Add([]byte{2, 3, 0, 0, 0, 0, 0, 0, 0, 1, 3, 0, 0, 0, 0, 0, 0, 0, 1}, uint8(0), int8(-1))
	f.Add([]byte{0x83, 3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8, 9, 7, 9, 3, 2, 3, 8, 4, 6, 2, 6, 4, 3}, uint8(3), int8(1))
	f.Fuzz(func(t *testing.T, data []byte, which uint8, ulps int8) {
		r := NewReader(data)
		head := r.Byte()
		n := 1 + int(head%16)
		var keys []float64
		var eps float64
		if head >= 0x80 && n >= 2 {
			in := r.NearCutoff(n)
			keys, eps = in.Keys, in.Eps
		} else {
			keys = make([]float64, n)
			for i := range keys {
				keys[i] = r.Key(n)
			}
			eps = r.Eps(n)
		}
		ex := samplertest.Oracle(keys, eps)
		lo, _ := ex.Interval(int(which)%n, ex.Rho)
		u := nudge(lo, int(ulps%4))
		if u < 0 || u >= 1 {
			return
		}
		samplers := make([]reweighted.Sampler, len(Backends))
		for k, b := range Backends {
			s, err := backends.Load(b.New, keys)
			require.NoError(t, err)
			samplers[k] = s
			require.NoError(t, samplertest.Verify(s, keys, eps, []float64{u}), "%s", b.Name)
			_, err = samplertest.Compare(samplers[0], s, keys, eps, []float64{u})
			require.NoError(t, err, "%s against %s", b.Name, Backends[0].Name)
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

// FuzzStateMachine bridges samplertest's rapid state machines, on up to 64
// items, to the native fuzzer: the map mode's for every map-exact backend,
// the law mode's for every law-exact one.
func FuzzStateMachine(f *testing.F) {
	var machines []func(*testing.T, []byte)
	for _, b := range Backends {
		machines = append(machines, rapid.MakeFuzz(samplertest.StateMachineN(b.New, 64)))
	}
	for _, b := range backends.Law {
		machines = append(machines, rapid.MakeFuzz(samplertest.LawStateMachineN(b.Dist, 64)))
	}
	f.Add([]byte{})
	f.Add([]byte{0, 5, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16})
	f.Add([]byte("\x10\xff\x00\x80\x7f\x01\x02\xfe\x33\x44\x55\x66\x77\x88\x99"))
	f.Fuzz(func(t *testing.T, data []byte) {
		// rapid skips an input that ends before the history does; zeros
		// past the end draw the simplest values, which end it, so that
		// every input runs.
		data = append(data, make([]byte, 1<<14)...)
		for _, m := range machines {
			m(t, data)
		}
	})
}

// TestStateMachines runs the kit's state machine, whose invariant includes
// each backend's Check after every action, on up to 400 items (two inner
// levels of a B+-tree, with splits, borrows and merges: its SetBand action
// crowds a run of items into a narrow band of keys), 20 histories; with
// -long, 100 such histories, then 10 on up to 3,000 items over histories of
// about 1,000 steps (-rapid.steps sets their length).
func TestStateMachines(t *testing.T) {
	for _, b := range Backends {
		t.Run(b.Name, func(t *testing.T) {
			if *long {
				t.Run("n=400", func(t *testing.T) { samplertest.RunStateMachine(t, b.New, 400, 0, false) })
				t.Run("n=3000", func(t *testing.T) { samplertest.RunStateMachine(t, b.New, 400, 3000, true) })
				return
			}
			samplertest.SetDefaultFlag(t, "rapid.checks", "20")
			samplertest.RunStateMachine(t, b.New, 400, 3000, false)
		})
	}
}

// fits reports whether the keys 0, 1, …, n−1 with a in place of item i's sum
// to at most MaxSum, in exact arithmetic.
func fits(n, i int, a float64) bool {
	sum := new(big.Rat).SetFloat64(a)
	for j := range n {
		if j != i {
			sum.Add(sum, big.NewRat(int64(j), 1))
		}
	}
	return sum.Cmp(new(big.Rat).SetFloat64(reweighted.MaxSum)) <= 0
}

// Differential, item for item: on seeded instances whose tail keys sit on
// the cutoff of Lemma 1 or a few ulps off it, at every scale, all backends
// return the exact ρ and the same item for 64 spread u and the edges and
// midpoints of every exact interval; an item that differs is excused only
// within the contract's tolerance of an interval's edge. The exact oracle
// judges every answer (Verify). 100 instances, 3,000 with -long.
func TestBackendsAgreeNearCutoff(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	instances, samples, edges := 100, 0, 0
	if *long {
		instances = 3000
	}
	for k := range instances {
		n := 2 + rng.IntN(40)
		in := samplertest.NearCutoffFromBits(n, rng.Uint64)
		ex := samplertest.Oracle(in.Keys, in.Eps)
		us := make([]float64, 0, 64+4*n)
		for j := range 64 {
			us = append(us, (float64(j)+rng.Float64())/64)
		}
		for _, i := range ex.Order {
			lo, hi := ex.Interval(i, ex.Rho)
			for _, x := range []*big.Rat{lo, hi} {
				for d := -1; d <= 1; d++ {
					if u := nudge(x, d); u >= 0 && u < 1 {
						us = append(us, u)
					}
				}
			}
		}
		samplers := make([]reweighted.Sampler, len(Backends))
		for b, bk := range Backends {
			s, err := backends.Load(bk.New, in.Keys)
			require.NoError(t, err)
			samplers[b] = s
			require.NoError(t, samplertest.Verify(s, in.Keys, in.Eps, us), "%s, instance %d", bk.Name, k)
			e, err := samplertest.Compare(samplers[0], s, in.Keys, in.Eps, us)
			require.NoError(t, err, "%s against %s, instance %d", bk.Name, Backends[0].Name, k)
			samples += len(us)
			edges += e
		}
	}
	t.Logf("%d instances, %d samples over %d backends, %d excused at an interval's edge", instances, samples, len(Backends), edges)
}
