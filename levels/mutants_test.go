package levels

import (
	"math"
	"math/big"
	"math/bits"
	"math/rand/v2"
	"runtime/debug"
	"testing"

	"github.com/reweighted/reweighted/samplertest"
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

// At ε = 0 the writer keeps the exact sum of the keys, a whole number of
// units of 2^-1074 in 64-bit words, and changes it by the old and the new
// key. Keys that sum to just below a word's end, 2^(64k−1074), and one key
// set from 0 to 2^-14 of that and back, carry into the next word and
// borrow from it: the sum kept is the levels' sum (Check), and λ, the sum
// rounded once, the oracle's.
func TestKeptAtZeroSumCrossesAWord(t *testing.T) {
	for _, k := range []int{1, 10, 17, 18, 29} {
		end := math.Ldexp(1, 64*k-1074)
		keys := []float64{end / 2, end/2 - end*0x1p-15, 0}
		s := load(t, keys)
		src := rand.NewPCG(27, uint64(k))
		for step := range 4 {
			_, _, err := s.Draw(0, src)
			require.NoError(t, err)
			keys[2] = end * 0x1p-14 * float64(1-step%2)
			require.NoError(t, s.Set(2, keys[2]))
			require.NoError(t, s.Check(), "word %d, step %d", k, step)
			requireLaw(t, s, keys, 0)
		}
	}
}

// Set and SetBatch to a key whose bits differ from the old key's only in
// the lowest bit of the group (bit 46: keys 1/64 of their binade apart),
// or of the sub-bucket in a split group (bit 40), move the item to the
// next group or sub-bucket, not within its own: Check and the oracle's
// law after each, at ε = 0 and 1/(2n).
func TestSetOneGroupBitApart(t *testing.T) {
	for _, bit := range []uint{46, 40, 45, 39} {
		for _, batch := range []bool{false, true} {
			// 600 keys in one group, so that it splits, and one more
			// item to move.
			const n = 601
			keys := make([]float64, n)
			rng := rand.New(rand.NewPCG(29, uint64(bit)))
			for i := range n - 1 {
				keys[i] = math.Float64frombits(math.Float64bits(1.25) | rng.Uint64()>>(64-38))
			}
			keys[n-1] = 1.5
			s := load(t, keys)
			require.Positive(t, splitGroups(s))
			for step := range 4 {
				eps := float64(step%2) / (2 * n)
				_, _, err := s.Draw(eps, rand.NewPCG(31, uint64(step)))
				require.NoError(t, err)
				i := n - 1
				if step >= 2 {
					i = rng.IntN(n - 1)
				}
				a := math.Float64frombits(math.Float64bits(keys[i]) ^ 1<<bit)
				if batch {
					require.NoError(t, s.SetBatch([]int{i}, []float64{a}))
				} else {
					require.NoError(t, s.Set(i, a))
				}
				keys[i] = a
				require.NoError(t, s.Check(), "bit %d, step %d", bit, step)
				requireLaw(t, s, keys, eps)
			}
		}
	}
}

// Check counts the large slices the sampler holds (in groups, sub-buckets
// and the pool) by rung, and refuses a count kept that differs from it,
// and a pool's list with room for fewer than that many: 600 equal keys of
// a level too narrow to split hold a large slice in their group (and the
// pool spares of its rung), and each fault is planted and undone in turn.
func TestCheckRefusesMiscountedPools(t *testing.T) {
	keys := make([]float64, 600)
	for i := range keys {
		keys[i] = 200 * 0x1p-1074
	}
	s := load(t, keys)
	require.NoError(t, s.Check())
	// The rung of the group's slice: one slice more held than pooled.
	k := -1
	for r, c := range s.liveBig {
		if int(c) > len(s.big[r]) {
			k = r
		}
	}
	require.GreaterOrEqual(t, k, 0, "a group holds a large slice")
	s.liveBig[k]++
	require.Error(t, s.Check(), "one large slice more counted than held")
	s.liveBig[k] -= 2
	require.Error(t, s.Check(), "one fewer")
	s.liveBig[k]++
	require.NoError(t, s.Check())
	list := s.big[k]
	s.big[k] = list[:len(list):len(list)]
	held := int(s.liveBig[k])
	require.Error(t, s.Check(), "a pool's list with room for %d of %d slices", len(list), held)
	s.big[k] = list
	require.NoError(t, s.Check())
}

// A direct tail row's first try comes from the word that chose the row
// only when the row's words from 2^52 on, x1 − 2^52 of them, are at least
// n: fewer cannot give each of n items the same count, and the words then
// take the tail row's draw from fresh numbers. The tail's share of the
// weight grows with ε by about one such word an ulp, so the least ε at
// which the word 2^52 draws a tail item (32 zero keys beside 32 ones,
// found by bisection on DrawBatch with a scripted source) has fewer than
// n = 64 of them: there that word, then the number that chooses item 5
// (below(·, n)), must draw item 5, not item 0.
func TestDirectTailNeedsAWholeCycleOfWords(t *testing.T) {
	const n = 64
	s, keys := zerosThenOnes(t, n)
	five, _ := bits.Div64(5, 0, n) // a number whose below(·, n) is 5
	five++
	draw := func(eps float64) (int, int) {
		src := &script{xs: []uint64{1 << 52, five, five, five, 1 << 62, 0, 0, 0}}
		items, probs := make([]int, 1), make([]float64, 1)
		require.NoError(t, s.DrawBatch(eps, src, true, items, probs))
		return items[0], 8 - len(src.xs)
	}
	// At 2^-18 the tail (32ε) weighs less than 2^-12 of the whole, and
	// the word 2^52 goes past it; at 2^-16, more, and it draws a tail item.
	lo, hi := math.Float64bits(0x1p-18), math.Float64bits(0x1p-16)
	for _, b := range []uint64{lo, hi} {
		i, _ := draw(math.Float64frombits(b))
		require.Equal(t, b == hi, keys[i] == 0, "ε = %v: item %d", math.Float64frombits(b), i)
	}
	for hi-lo > 1 {
		mid := (lo + hi) / 2
		if i, _ := draw(math.Float64frombits(mid)); keys[i] == 0 {
			hi = mid
		} else {
			lo = mid
		}
	}
	eps := math.Float64frombits(hi)
	i, used := draw(eps)
	require.Equal(t, 5, i, "ε = %v: the word 2^52 chose the tail row, the next number its item", eps)
	require.Equal(t, 2, used)
}

// A batch without replacement whose draws fall back to the tree of the
// items left (one key holding nearly all the mass at ε = 0, so that the
// attempts after the first reject it until their budget runs out)
// allocates nothing once warm: the tree's array is the scratch's, kept
// from one call to the next.
func TestDrawRestAllocatesNothing(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	const n = 64
	keys := make([]float64, n)
	for i := range keys {
		keys[i] = 0x1p-60 * float64(1+i)
	}
	keys[7] = 1
	s := load(t, keys)
	src := rand.NewPCG(33, 34)
	items, probs := make([]int, 16), make([]float64, 16)
	fill := func() { require.NoError(t, s.DrawBatch(0, src, false, items, probs)) }
	fill()
	require.Equal(t, 7, items[0], "the heavy key first")
	if raceEnabled {
		// The race detector makes sync.Pool drop items at random, and
		// the draws keep their scratch in one.
		return
	}
	require.Zero(t, testing.AllocsPerRun(50, fill))
}

// The fallback's tree weighs a head key by its p*, a key at the head's
// threshold θ included. Keys 1 + 2^-6 (the lower edge of its group, θ)
// and 1 at ε = 0.499, where t* lies between them: the first item is the
// head's, its p* 1.016/1.012 times ε, and the second the tail's. Nothing
// drawn, u a relative 10^-4 either side of the first item's exact share
// of the total draws the item of that side.
func TestDrawRestWeighsAKeyAtTheThreshold(t *testing.T) {
	keys := []float64{1 + 0x1p-6, 1}
	const eps = 0.499
	ex := samplertest.Oracle(keys, eps)
	require.Equal(t, 1, ex.Rho)
	s := load(t, keys)
	sc := s.getScratch()
	defer s.putScratch(sc)
	o, _ := s.solution(eps, sc)
	require.Equal(t, keys[0], o.theta, "the key on the threshold")
	left := new(big.Rat).Add(ex.P[0], ex.P[1])
	share, _ := new(big.Rat).Quo(ex.P[0], left).Float64()
	for _, c := range []struct {
		u    float64
		want int
	}{{share * (1 - 1e-4), 0}, {share * (1 + 1e-4), 1}} {
		seen := sc.seenBits(len(keys))
		items, probs := []int{-1}, []float64{-1}
		s.drawRest(o, sc, seen, atU(c.u), items, probs)
		seen.clear(items)
		require.Equal(t, c.want, items[0], "u = %v, the first item's share %v", c.u, share)
	}
}

// A key of −0, which the contract reads as 0, is held as +0: by Set and by
// SetBatch, on an item whose key was positive, Key returns 0 with its
// sign bit clear, as for a key set to 0.
func TestNegativeZeroKeyIsHeldAsZero(t *testing.T) {
	for _, batch := range []bool{false, true} {
		s := load(t, []float64{1, 2, 3})
		negZero := math.Copysign(0, -1)
		if batch {
			require.NoError(t, s.SetBatch([]int{1}, []float64{negZero}))
		} else {
			require.NoError(t, s.Set(1, negZero))
		}
		require.Equal(t, uint64(0), math.Float64bits(s.Key(1)), "batch %v", batch)
		require.NoError(t, s.Check())
	}
}

// The flat proposal refuses a head whose weights, shifted to the lowest
// level's unit, pass 2^62, before they can wrap past 2^64: keys 1 and
// 2^(d+1) − 2^(d−52), in the top group of a level d binades up, weigh
// 2^(7+d), exactly 2^64 and more for d ≥ 57, which would wrap to 0. At
// ε = 0 the large key has p* above 1 − 2^-56: 64 draws with replacement
// all miss it with probability below 2^-3500.
func TestFlatRefusesWeightsPast64Bits(t *testing.T) {
	for _, d := range []int{55, 57, 59, 61} {
		keys := []float64{1, math.Nextafter(math.Ldexp(1, d+1), 0)}
		s := load(t, keys)
		items, probs := make([]int, 64), make([]float64, 64)
		require.NoError(t, s.DrawBatch(0, rand.NewPCG(35, uint64(d)), true, items, probs))
		require.Contains(t, items, 1, "d = %d", d)
		requireLaw(t, s, keys, 0)
	}
}

// At ε = 0, λ is the exact sum of the keys rounded once, formed from the
// levels' exact sums shifted to a common unit: 2^14 equal keys of the
// top group of each of 70 binades make a level's sum pass 2^66 of its
// unit, and every shift within a word is met, so that the sum's third
// word is not 0 for some. The sum, 2^14 times the key, is a float: λ must
// be it exactly.
func TestZeroEpsSumOfALevelPast64Bits(t *testing.T) {
	const n = 1 << 14
	keys := make([]float64, n)
	for k := -5; k < 65; k++ {
		a := math.Nextafter(math.Ldexp(1, k+1), 0)
		for i := range keys {
			keys[i] = a
		}
		s := load(t, keys)
		_, lambda, err := s.Solve(0)
		require.NoError(t, err)
		require.Equal(t, n*a, lambda, "keys %v", a)
	}
}

// The head's words from x0 on are taken modulo the flat proposal's total
// w only up to the last whole multiple of w: a word past it would give
// the first groups of the head a share of one word more than the others
// (up to w in 2^64 − x0), so it is set aside and a fresh number chosen by
// Lemire's multiply. Keys 0 and 1 at a small ε put the zero keys in the
// tail (front rows, so x0 > 0) and 32 keys of 1 in one head group of
// weight 65 a slot: the word x0 + 325 draws the item in slot 5, the word
// x0 its slot 0, and the word past the last multiple, followed by a fresh
// number that lands on slot 5, must draw slot 5's item.
func TestFlatSetsAsideTheWordsPastTheLastMultiple(t *testing.T) {
	s, _ := zerosThenOnes(t, 64)
	const eps = 0x1p-10
	sc := s.getScratch()
	o, tab := s.solution(eps, sc)
	var fl flat
	s.buildFlat(o, tab, &fl)
	s.putScratch(sc)
	require.True(t, fl.ok, "the flat proposal serves this head")
	require.NotZero(t, fl.x0, "the tail's front row comes first")
	m := -fl.x0 // the head's words
	require.NotZero(t, m%fl.w, "a last partial run of words to set aside")
	draw := func(xs ...uint64) int {
		src := &script{xs: append(xs, 0, 0, 0, 0)}
		items, probs := make([]int, 1), make([]float64, 1)
		require.NoError(t, s.DrawBatch(eps, src, true, items, probs))
		return items[0]
	}
	five, zero := draw(fl.x0+5*65), draw(fl.x0)
	require.NotEqual(t, five, zero)
	// A fresh number whose product with w has 325 as its high word and a
	// low word past Lemire's threshold: floor((326·2^64 − 1)/w).
	fresh, _ := bits.Div64(325, math.MaxUint64, fl.w)
	require.Equal(t, five, draw(fl.x0+(m-m%fl.w), fresh), "the word past the last multiple of w set aside")
}

// zerosThenOnes returns a sampler of n keys, the first half 0 and the
// rest 1, and its keys: at a small ε the zero keys make the tail, a front
// row, and the ones one head group.
func zerosThenOnes(t *testing.T, n int) (*Sampler, []float64) {
	keys := make([]float64, n)
	for i := n / 2; i < n; i++ {
		keys[i] = 1
	}
	return load(t, keys), keys
}
