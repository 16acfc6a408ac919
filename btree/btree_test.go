package btree_test

import (
	"errors"
	"flag"
	"math"
	"math/big"
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

// keyGen draws keys as m·2^e with small integers m, so that ties and exact
// sums are common, with exponents that reach subnormals and huge values near
// MaxSum/n, and keys with a full 53-bit mantissa, whose sums round.
func keyGen(n int) *rapid.Generator[float64] {
	huge := math.Floor(math.Log2(reweighted.MaxSum/float64(n))) - 4
	return rapid.Custom(func(t *rapid.T) float64 {
		m := rapid.IntRange(0, 16).Draw(t, "m")
		var e int
		switch rapid.IntRange(0, 9).Draw(t, "scale") {
		case 0:
			return 0
		case 1:
			e = rapid.IntRange(-1074, -1020).Draw(t, "subnormal")
		case 2:
			e = rapid.IntRange(int(huge)-40, int(huge)).Draw(t, "huge")
		case 3, 4:
			m := rapid.Uint64Range(1<<52, 1<<53-1).Draw(t, "mantissa")
			return math.Ldexp(float64(m), rapid.IntRange(-60, -40).Draw(t, "exp"))
		default:
			e = rapid.IntRange(-3, 3).Draw(t, "exp")
		}
		return math.Ldexp(float64(m), e)
	})
}

// machine is a rapid state machine of Set calls on a tree, checked against
// a plain slice of keys.
type machine struct {
	s    *btree.Sampler
	keys []float64
	gen  *rapid.Generator[float64]
}

// Set sets a random item to a random key.
func (m *machine) Set(t *rapid.T) {
	i := rapid.IntRange(0, len(m.keys)-1).Draw(t, "i")
	m.set(t, i, m.gen.Draw(t, "a"))
}

// SetSame sets a key to the key of another item, making a tie.
func (m *machine) SetSame(t *rapid.T) {
	i := rapid.IntRange(0, len(m.keys)-1).Draw(t, "i")
	j := rapid.IntRange(0, len(m.keys)-1).Draw(t, "j")
	m.set(t, i, m.keys[j])
}

// SetMany gives a run of items keys from a narrow range: they crowd into
// one leaf, which splits, and leave others, which merge.
func (m *machine) SetMany(t *rapid.T) {
	n := len(m.keys)
	lo := rapid.IntRange(0, n-1).Draw(t, "lo")
	c := rapid.IntRange(1, 2*btree.LeafCap).Draw(t, "count")
	a := m.gen.Draw(t, "a")
	for k := range c {
		m.set(t, (lo+k)%n, math.Ldexp(a, -k%2))
	}
}

// set calls Set(i, a) and updates the model. Only a key that would push
// the sum above MaxSum may be refused, and a refusal changes nothing.
func (m *machine) set(t *rapid.T, i int, a float64) {
	over, _ := new(big.Float).Quo(exactSum(m.keys, i, a), big.NewFloat(reweighted.MaxSum)).Float64()
	before := m.s.Clone()
	err := m.s.Set(i, a)
	if err != nil {
		if !errors.Is(err, reweighted.ErrKey) {
			t.Fatalf("Set(%d, %v): %v", i, a, err)
		}
		if over <= 1-1e-12 {
			t.Fatalf("Set(%d, %v) refused with the sum at %v·MaxSum: %v", i, a, over, err)
		}
		require.Equal(t, before, m.s, "a refused Set(%d, %v) changed the tree", i, a)
		return
	}
	if over > 1+1e-12 {
		t.Fatalf("Set(%d, %v) accepted with the sum at %v·MaxSum", i, a, over)
	}
	m.keys[i] = a
}

// SetHuge sets a key between 0.1 and 1 times 2^832: refused or accepted
// depending on the other keys.
func (m *machine) SetHuge(t *rapid.T) {
	i := rapid.IntRange(0, len(m.keys)-1).Draw(t, "i")
	m.set(t, i, math.Ldexp(rapid.Float64Range(0.1, 1).Draw(t, "f"), 832))
}

// Nudge moves a key by one ulp, which usually keeps its slot: the path of
// Update that moves an item inside its leaf.
func (m *machine) Nudge(t *rapid.T) {
	i := rapid.IntRange(0, len(m.keys)-1).Draw(t, "i")
	a := math.Nextafter(m.keys[i], math.Inf(rapid.SampledFrom([]int{-1, 1}).Draw(t, "dir")))
	m.set(t, i, max(a, 0))
}

// Check is the invariant: Check passes and every key is the model's.
func (m *machine) Check(t *rapid.T) {
	if err := m.s.Check(); err != nil {
		t.Fatal(err)
	}
	for i, a := range m.keys {
		if m.s.Key(i) != a {
			t.Fatalf("Key(%d) = %v, want %v", i, m.s.Key(i), a)
		}
	}
}

// exactSum returns the exact sum of keys with keys[i] replaced by a.
func exactSum(keys []float64, i int, a float64) *big.Float {
	s := new(big.Float).SetPrec(2000)
	for j, k := range keys {
		if j == i {
			k = a
		}
		s.Add(s, big.NewFloat(k))
	}
	return s
}

// TestInvariantsStateMachine checks every invariant of the tree, and Key as
// a postcondition of Set, after every step of random histories on up to a
// few hundred items: two inner levels, with splits and merges.
func TestInvariantsStateMachine(t *testing.T) {
	maxN := 400
	if *long {
		maxN = 3000
		setDefaultFlag(t, "rapid.steps", "15000")
		setDefaultFlag(t, "rapid.checks", "20")
	}
	rapid.Check(t, invariants(maxN))
}

// invariants is the property of TestInvariantsStateMachine.
func invariants(maxN int) func(*rapid.T) {
	return func(t *rapid.T) {
		n := rapid.IntRange(1, maxN).Draw(t, "n")
		m := &machine{s: btree.New(n), keys: make([]float64, n), gen: keyGen(n)}
		t.Repeat(map[string]func(*rapid.T){
			"Set":     m.Set,
			"SetSame": m.SetSame,
			"SetMany": m.SetMany,
			"SetHuge": m.SetHuge,
			"Nudge":   m.Nudge,
			"":        m.Check,
		})
	}
}

// FuzzInvariants drives the state machine of TestInvariantsStateMachine
// from fuzzer input; plain go test replays the seeds.
func FuzzInvariants(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{0, 5, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16})
	f.Add([]byte("\x10\xff\x00\x80\x7f\x01\x02\xfe\x33\x44\x55\x66\x77\x88\x99"))
	f.Fuzz(rapid.MakeFuzz(invariants(300)))
}

// setDefaultFlag sets a flag for the duration of the test, unless the
// command line set it.
func setDefaultFlag(t *testing.T, name, value string) {
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	if set {
		return
	}
	old := flag.Lookup(name).Value.String()
	require.NoError(t, flag.Set(name, value))
	t.Cleanup(func() { require.NoError(t, flag.Set(name, old)) })
}
