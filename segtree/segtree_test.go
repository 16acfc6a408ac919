package segtree_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/reweighted/reweighted"
	"github.com/reweighted/reweighted/samplertest"
	"github.com/reweighted/reweighted/segtree"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// wordBits is the width of an item's word, the bound on the depth.
const wordBits = 96

// key draws a key m·2^e with a small integer m, so that keys share long bit
// prefixes and tie often: zeros, small integers, subnormals (e near −1074)
// and huge keys (e up to top).
func key(top int) *rapid.Generator[float64] {
	return rapid.OneOf(
		rapid.Just(0.0),
		rapid.Map(rapid.IntRange(1, 8), func(m int) float64 { return float64(m) }),
		rapid.Custom(func(t *rapid.T) float64 {
			m := rapid.IntRange(1, 64).Draw(t, "m")
			e := rapid.IntRange(-1074, top).Draw(t, "e")
			return math.Ldexp(float64(m), e)
		}),
		rapid.Custom(func(t *rapid.T) float64 {
			m := rapid.IntRange(1, 64).Draw(t, "m")
			return math.Ldexp(float64(m), -1074+rapid.IntRange(0, 60).Draw(t, "e"))
		}),
		rapid.Custom(func(t *rapid.T) float64 {
			m := rapid.IntRange(1, 64).Draw(t, "m")
			return math.Ldexp(float64(m), top-rapid.IntRange(0, 4).Draw(t, "below"))
		}),
	)
}

// topExp is the largest exponent of key(top) that lets n keys m·2^e, m ≤ 64,
// sum to at most MaxSum.
func topExp(n int) int {
	_, e := math.Frexp(reweighted.MaxSum / float64(64*n))
	return e - 1
}

func TestNew(t *testing.T) {
	for _, n := range []int{0, 1, 2, 3, 7, 64, 1000} {
		tr := segtree.New(n)
		require.NoError(t, tr.Check(), "n=%d", n)
		require.Equal(t, n, tr.Len())
	}
}

func TestNodeSize(t *testing.T) {
	require.EqualValues(t, segtree.BytesPerItem, segtree.NodeSize)
}

// Metamorphic: two random histories that end at the same keys give
// structurally identical trees, and identical slices, bit for bit.
func TestCanonicalShape(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(1, 40).Draw(t, "n")
		top := topExp(n)
		final := rapid.SliceOfN(key(top), n, n).Draw(t, "final")
		build := func(label string) *segtree.Sampler {
			tr := segtree.New(n)
			steps := rapid.IntRange(0, 3*n).Draw(t, label+" detours")
			for range steps {
				i := rapid.IntRange(0, n-1).Draw(t, label+" i")
				require.NoError(t, tr.Set(i, key(top).Draw(t, label+" a")))
			}
			for _, i := range rapid.Permutation(seq(n)).Draw(t, label+" order") {
				require.NoError(t, tr.Set(i, final[i]))
			}
			return tr
		}
		require.Equal(t, build("first"), build("second"))
	})
}

func seq(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = i
	}
	return s
}

// adversarial lists key vectors that stress the trie: every power of two
// down to the subnormals, long runs of ties, all zeros, and a caterpillar of
// words that each branch one bit lower than the last.
func adversarial() map[string][]float64 {
	cases := map[string][]float64{}
	var pow []float64
	for e := -1074; e <= 820; e++ {
		pow = append(pow, math.Ldexp(1, e))
	}
	cases["powers of two"] = pow
	ties := make([]float64, 3000)
	for i := range ties {
		ties[i] = []float64{1, 0x1p-1074, 0x1p800, 0}[i%4]
	}
	cases["runs of ties"] = ties
	cases["all zeros"] = make([]float64, 1000)
	var cat []float64
	for k := range 62 {
		cat = append(cat, math.Float64frombits(0x3FFF_FFFF_FFFF_FFFF>>k))
		cat = append(cat, math.Float64frombits(0x3FFF_FFFF_FFFF_FFFF>>k), 0x1p-1074*float64(k))
	}
	cases["caterpillar"] = cat
	var mixed []float64
	for e := -1074; e <= 820; e += 7 {
		for m := 1; m <= 5; m++ {
			mixed = append(mixed, math.Ldexp(float64(m), e))
		}
	}
	cases["integers times powers"] = mixed
	return cases
}

// Property: on adversarial keys the depth stays within the word width and
// the answers match the exact oracle at every edge bound. The caterpillar
// is deep by design: check that it really is, so the test exercises long
// paths (the shape, hence the depth, does not depend on the order of Set).
func TestAdversarial(t *testing.T) {
	for name, keys := range adversarial() {
		t.Run(name, func(t *testing.T) {
			n := len(keys)
			tr := segtree.New(n)
			rng := rand.New(rand.NewPCG(1, 2))
			for _, i := range rng.Perm(n) {
				require.NoError(t, tr.Set(i, keys[i]))
			}
			require.NoError(t, tr.Check())
			require.LessOrEqual(t, tr.Depth(), wordBits)
			if name == "caterpillar" {
				require.GreaterOrEqual(t, tr.Depth(), 60)
			}
			t.Logf("n=%d depth=%d", n, tr.Depth())
			for _, eps := range samplertest.EdgeEps(n) {
				require.NoError(t, samplertest.Verify(tr, keys, eps, samplertest.EdgeU), "ε = %v", eps)
			}
		})
	}
}

// Property: every rejected call leaves the tree identical, slot for slot,
// and the zero Sampler is empty (New(0) is the kit's check Empty).
func TestBadInputUnchanged(t *testing.T) {
	tr := segtree.New(40)
	samplertest.RejectsBadInput(t, tr, tr.Clone)
	var empty segtree.Sampler
	_, _, err := empty.Solve(0)
	require.ErrorIs(t, err, reweighted.ErrEmpty)
	_, _, err = empty.Sample(0, 0)
	require.ErrorIs(t, err, reweighted.ErrEmpty)
	_, err = empty.Prob(0, 0)
	require.ErrorIs(t, err, reweighted.ErrEmpty)
	require.ErrorIs(t, empty.Set(0, 1), reweighted.ErrEmpty)
	require.Zero(t, empty.Len())
	require.NoError(t, empty.Check())
}

// Metamorphic: small key changes, as SRG makes when a gradient norm drifts,
// mostly keep the leaf in place; the tree still equals, slot for slot, one
// built from scratch on the final keys.
func TestSmallChanges(t *testing.T) {
	const n = 500
	rng := rand.New(rand.NewPCG(7, 8))
	tr := segtree.New(n)
	keys := make([]float64, n)
	for i := range keys {
		keys[i] = rng.ExpFloat64()
		require.NoError(t, tr.Set(i, keys[i]))
	}
	for step := range 5000 {
		i := rng.IntN(n)
		switch step % 3 {
		case 0:
			keys[i] *= 1 + 1e-3*rng.NormFloat64()
		case 1:
			keys[i] = math.Nextafter(keys[i], math.Inf(1))
		default:
			keys[i] = keys[(i+1)%n] // a tie
		}
		require.NoError(t, tr.Set(i, keys[i]))
		if step%500 == 0 {
			require.NoError(t, tr.Check(), "step %d", step)
		}
	}
	require.NoError(t, tr.Check())
	fresh := segtree.New(n)
	for i, a := range keys {
		require.NoError(t, fresh.Set(i, a))
	}
	require.Equal(t, fresh, tr)
}

// TestBadBatchChangesNothing checks that every batch SetBatch rejects
// leaves the structure identical, node for node.
func TestBadBatchChangesNothing(t *testing.T) {
	tr := segtree.New(40)
	samplertest.RejectsBadBatch(t, tr, tr.Clone)
}
