package levels

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/reweighted/reweighted/samplertest"
)

// expKeys returns n keys drawn from Exp(1) with rng.
func expKeys(rng *rand.Rand, n int) []float64 {
	keys := make([]float64, n)
	for i := range keys {
		keys[i] = rng.ExpFloat64()
	}
	return keys
}

// solveWith returns solve's answer at eps starting from hint h, and the
// predicate tests it made.
func solveWith(s *Sampler, eps float64, h hint) (sol, int) {
	sc := scratchPool.Get().(*scratch)
	defer scratchPool.Put(sc)
	sc.hint, sc.tests = h, 0
	o := s.solve(eps, sc)
	return o, sc.tests
}

// hintState draws keys and a bound from one of three generators: any keys
// (every boundary class of the kit), keys a few ulps from the cutoff, and
// a clustered law whose group is split into sub-buckets, with t* inside
// it or not.
func hintState(t *rapid.T) ([]float64, float64) {
	switch rapid.IntRange(0, 2).Draw(t, "gen") {
	case 0:
		n := rapid.IntRange(1, 40).Draw(t, "n")
		return samplertest.Keys(n).Draw(t, "keys"), samplertest.Eps(n).Draw(t, "eps")
	case 1:
		in := samplertest.NearCutoff(40).Draw(t, "instance")
		return in.Keys, in.Eps
	}
	n := rapid.IntRange(600, 1100).Draw(t, "n")
	rng := rand.New(rand.NewPCG(rapid.Uint64().Draw(t, "seed"), 3))
	x := math.Ldexp(1, rapid.SampledFrom([]int{-1060, -1, 300}).Draw(t, "scale"))
	keys := oneGroup(rng, n, x)
	for i := range keys {
		if rng.IntN(8) == 0 {
			keys[i] = rng.ExpFloat64() * x
		}
	}
	if rapid.Bool().Draw(t, "inside") {
		// One key of n above the cluster: at ε near 1/(2n), t* lies
		// inside the cluster's split group, among its sub-buckets.
		keys[0] = float64(n) * x
		f := rapid.SampledFrom([]float64{1 - 0x1p-12, 1, 1 + 0x1p-12}).Draw(t, "f")
		return keys, f / float64(2*n)
	}
	eps := rapid.SampledFrom([]float64{1 / float64(2*n), 0.9 / float64(n), 1e-9, 1 / float64(4*n)}).Draw(t, "eps")
	return keys, eps
}

// Property: solve's answer (ρ, the head's sum, θ, and the level, group
// and sub-bucket of t*) is the same, bit for bit, whatever hint it starts
// from — the right one, a neighbour, garbage, one left by other keys —
// and the right hint never costs more predicate tests than none.
func TestHintNeverChangesSolve(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		keys, eps := hintState(t)
		n := len(keys)
		s := load(t, keys)
		ref, cold := solveWith(s, eps, hint{})
		right := hint{l: int32(ref.lvl), j: int32(ref.grp), k: int32(ref.sub), ok: ref.lvl >= 0}
		got, warm := solveWith(s, eps, right)
		require.Equal(t, ref, got, "from the right hint %+v", right)
		require.LessOrEqual(t, warm, cold, "tests from the right hint")
		hints := []hint{right}
		for _, d := range [][3]int32{{1, 0, 0}, {-1, 0, 0}, {0, 1, 0}, {0, -1, 0}, {0, 0, 1}, {0, 0, -1}, {0, -1 - right.j, 0}, {0, 0, -1 - right.k}} {
			hints = append(hints, hint{l: right.l + d[0], j: right.j + d[1], k: right.k + d[2], ok: true})
		}
		for range 4 {
			hints = append(hints, hint{
				l:  int32(rapid.IntRange(-2, nLevels+1).Draw(t, "l")),
				j:  int32(rapid.IntRange(-3, nG+1).Draw(t, "j")),
				k:  int32(rapid.IntRange(-3, nG+1).Draw(t, "k")),
				ok: true,
			})
		}
		// Keys that move after the hint was found: the largest and a few
		// near the cutoff, up and down by ulps and by factors.
		for step := range 3 {
			for _, h := range hints {
				got, _ := solveWith(s, eps, h)
				ref, _ := solveWith(s, eps, hint{})
				require.Equal(t, ref, got, "step %d, hint %+v", step, h)
			}
			for range rapid.IntRange(1, 4).Draw(t, "moves") {
				i := rapid.IntRange(0, n-1).Draw(t, "i")
				a := keys[i]
				switch rapid.IntRange(0, 3).Draw(t, "move") {
				case 0:
					a = math.Nextafter(a, math.Inf(1))
				case 1:
					a = math.Nextafter(a, 0)
				case 2:
					a *= rapid.SampledFrom([]float64{0, 0.5, 1.01, 4}).Draw(t, "factor")
				default:
					a = keys[rapid.IntRange(0, n-1).Draw(t, "like")]
				}
				if s.Set(i, a) == nil {
					keys[i] = a
				}
			}
			require.NoError(t, s.Check())
		}
	})
}

// On Exp(1) keys, where t* lies several levels below the top, the right
// hint saves the walk and the searches: fewer than half the predicate
// tests of a Solve from the top.
func TestHintSavesTests(t *testing.T) {
	const n = 1 << 12
	rng := rand.New(rand.NewPCG(7, 8))
	keys := expKeys(rng, n)
	s := load(t, keys)
	eps := 1 / float64(2*n)
	ref, cold := solveWith(s, eps, hint{})
	got, warm := solveWith(s, eps, hint{l: int32(ref.lvl), j: int32(ref.grp), k: int32(ref.sub), ok: true})
	require.Equal(t, ref, got)
	t.Logf("predicate tests: %d from the top, %d from the hint", cold, warm)
	require.Less(t, 2*warm, cold)
	require.Equal(t, samplertest.Oracle(keys, eps).Rho, got.rho)
}

// words is a rand.Source that returns its words in turn.
type words struct {
	w []uint64
	k int
}

func (s *words) Uint64() uint64 { s.k++; return s.w[s.k-1] }

// Property: fineUniform returns the number whose binary digits are those
// of its words read in turn, 0.w₀w₁…, cut after the 53rd digit from the
// leading one (exactly, by big integers), and reads the words that takes.
func TestFineUniformDigits(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		zeros := rapid.IntRange(0, 20).Draw(t, "zeros")
		lead := rapid.IntRange(0, 63).Draw(t, "lead") // leading zeros of the first nonzero word
		w := make([]uint64, zeros, zeros+2)
		first := rapid.Uint64().Draw(t, "first")>>lead | 1<<(63-lead)
		w = append(w, first, rapid.Uint64().Draw(t, "next"))
		src := &words{w: w}
		got := fineUniform(src)
		// The digits as one integer V of 64·len(w) bits: the number is
		// V·2^(−64·len(w)), cut to 53 digits from its leading one.
		v := new(big.Int)
		for _, x := range w {
			v.Lsh(v, 64)
			v.Or(v, new(big.Int).SetUint64(x))
		}
		drop := v.BitLen() - 53
		v.Rsh(v, uint(drop))
		// Rounded to nearest, as Ldexp rounds a subnormal result; exact
		// for a normal one.
		want, acc := new(big.Float).SetMantExp(new(big.Float).SetInt(v), drop-64*len(w)).Float64()
		if want >= 0x1p-1022 {
			require.Equal(t, big.Exact, acc)
		}
		if zeros >= 19 {
			want = 0 // 19 zero words: fineUniform gives up, below 2^-1152
		}
		require.Equal(t, math.Float64bits(want), math.Float64bits(got), "words %x", w)
		reads := min(zeros, 19)
		if zeros < 19 {
			reads++
			if lead > 11 {
				reads++
			}
		}
		require.Equal(t, reads, src.k, "words read")
	})
}

// bndLevel is the bound of group j of level l in the level's unit, the
// integer bnd(l, j)·2^(l − 6 − unitShift(l)), at every level.
func TestBndLevelExact(t *testing.T) {
	for l := range nLevels {
		for _, j := range []int{0, 1, 31, nG - 1} {
			require.Equal(t, math.Ldexp(float64(bnd(l, j)), l-bB-unitShift(l)), bndLevel(l, j), "level %d group %d", l, j)
		}
	}
}

// Property: scaleDown is scale, bit for bit, for every k ≤ 1023 it is
// called with, normal, subnormal and zero results alike.
func TestScaleDownIsScale(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		x := math.Float64frombits(rapid.Uint64Range(0, math.Float64bits(math.MaxFloat64)).Draw(t, "x"))
		k := rapid.IntRange(-2200, 1023).Draw(t, "k")
		require.Equal(t, math.Float64bits(math.Ldexp(x, k)), math.Float64bits(scaleDown(x, k)), "x = %v, k = %d", x, k)
	})
}
