package levels

import (
	"math"
	"math/bits"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

// batchAttemptProbs is AttemptProbs for the attempts of DrawBatch below
// touchMin items: the exact probability that one attempt proposes item i
// and accepts it. The front rows (the tail's, the straddling group's) are
// the table's, as Draw's; a head item's share is the measure of the
// numbers r in [0, w) that find maps to its group and headSlot to its
// slot, each class (sure, tested) found by binary search over r, so that
// the mapping the draws use is what is measured, whatever the ends hold.
// The flat proposal holds all the levels' groups, or with sparse the
// occupied ones.
func batchAttemptProbs(t require.TestingT, s *Sampler, eps float64, sparse bool) []float64 {
	q, err := s.AttemptProbs(eps, nil)
	require.NoError(t, err)
	sc := s.getScratch()
	defer s.putScratch(sc)
	o, tb := s.solution(eps, sc)
	fl := &sc.flat
	fl.ok, fl.force = false, 1
	if sparse {
		fl.force = -1
	}
	defer func() { fl.force = 0 }()
	if !o.zero && !o.uniform {
		s.buildFlat(o, tb, fl)
	}
	if !fl.ok {
		return q // DrawBatch makes Draw's attempts
	}
	require.Equal(t, !sparse, fl.dense)
	cumF := 0.0
	if fl.front > 0 {
		cumF = tb.rows[fl.front-1].cum
	}
	share := (tb.total - cumF) / tb.total // a first number at or above cumF
	// order ranks a number by the group at maps it to.
	index := map[int]int{} // a level's place in flat, by its index in lv
	for k := range fl.nl {
		index[int(fl.lvls[k].lk)] = k
	}
	order := func(r uint64) int { lv, g, _ := fl.at(r); return index[int(lv.lk)]*nG + g }
	first := func(v int) uint64 { return least(0, fl.w, func(r uint64) bool { return order(r) >= v }) }
	var total uint64
	for k := range fl.nl {
		lv := fl.lvls[k]
		l, d := int(lv.lk)+s.lo, int(lv.d)
		level := s.lv[lv.lk]
		for j := range nG {
			lo, hi := first(k*nG+j), first(k*nG+j+1)
			c := int(level.cnt[j])
			inHead := tb.rows[fl.front+k].kind == rowLevel || j > o.grp
			if !inHead || c == 0 {
				require.Equal(t, lo, hi, "level %d group %d: no numbers", l, j)
				continue
			}
			// The group's numbers, in its level's unit: each number of the
			// unit is 2^d numbers r.
			require.Equal(t, uint64(c)*bnd(l, j)<<d, hi-lo, "level %d group %d: its count times its bound", l, j)
			total += hi - lo
			x1 := (hi - lo) >> d
			key := func(x uint64) int {
				slot, sure := headSlot(l, j, x)
				if sure {
					return 2 * slot
				}
				return 2*slot + 1
			}
			at := func(v int) float64 {
				return float64(least(0, x1, func(x uint64) bool { return key(x) >= v }))
			}
			slot := 0
			level.each(j, func(e entry) {
				k := slot
				slot++
				if o.prob(e.key()) == 0 {
					q[e.item] = 0
					return
				}
				sure, test := at(2*k+1)-at(2*k), at(2*k+2)-at(2*k+1)
				q[e.item] = share * math.Ldexp(sure+test*headFrac(l, j, e.key()), d) / float64(fl.w)
			})
		}
	}
	require.Equal(t, fl.w, total, "the groups' numbers make up w")
	return q
}

// The head's numbers are exactly uniform. Three keys of one group (1.5:
// bound 97 units, w = 291) and no front rows: x0 = 0, every first word
// goes to the head, and the words up to lim, a multiple of 291 less one,
// give their value mod 291 (against %); the 2^64 mod 291 words past lim
// are dropped for fresh words by Lemire's multiply: the low word of
// 0·291 is 0, below 2^64 mod 291, drawn again; that of 2^63·291 is 2^63,
// taken, r = ⌊2^63·291/2^64⌋ = 145.
func TestFlatHeadIsExactlyUniform(t *testing.T) {
	s := load(t, []float64{1.5, 1.5, 1.5})
	sc := s.getScratch()
	defer s.putScratch(sc)
	o, tb := s.solution(0, sc)
	fl := &sc.flat
	s.buildFlat(o, tb, fl)
	require.True(t, fl.ok)
	require.Equal(t, uint64(291), fl.w)
	require.Zero(t, fl.x0)
	_, wrap := bits.Div64(1, 0, 291) // 2^64 mod 291
	require.Equal(t, uint64(math.MaxUint64)-wrap, fl.lim)
	rng := rand.New(rand.NewPCG(1, 2))
	for _, y := range []uint64{0, 290, 291, 1 << 63, fl.lim - 1, fl.lim, rng.Uint64() % fl.lim, rng.Uint64() % fl.lim} {
		require.Equal(t, y%291, fl.mod(y), "y = %d", y)
	}
	src := &script{xs: []uint64{0, 1 << 63, 99}}
	require.Equal(t, uint64(145), fl.fresh(src))
	require.Len(t, src.xs, 1, "0 is drawn again, 2^63 taken")
}

// Property: firstWord is the least word from 2^52 on whose fineUniform,
// times total, reaches cumF: against a bisection over the words.
func TestFirstWord(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for range 2000 {
		total := math.Ldexp(1+rng.Float64(), rng.IntN(200)-100)
		cumF := total * math.Ldexp(rng.Float64(), -rng.IntN(16))
		if rng.IntN(8) == 0 {
			cumF = total * (1 - math.Ldexp(float64(rng.IntN(4)), -53))
		}
		if cumF == 0 {
			continue
		}
		reach := func(x uint64) bool { u, _ := fineFirst(x); return u*total >= cumF }
		x, ok := firstWord(cumF, total)
		if !reach(math.MaxUint64) {
			require.False(t, ok, "cumF %v total %v", cumF, total)
			continue
		}
		require.True(t, ok, "cumF %v total %v", cumF, total)
		require.Equal(t, least(1<<52, math.MaxUint64, reach), x, "cumF %v total %v", cumF, total)
	}
}

// The per-attempt law of DrawBatch's attempts below touchMin items, on
// keys over many binades at ε = 0 and 1/(2n), against the exact oracle,
// as requireLaw checks Draw's.
func TestBatchAttemptLaw(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, n := range []int{1, 7, 64, 300} {
		keys := make([]float64, n)
		for i := range keys {
			keys[i] = math.Exp(3 * rng.NormFloat64())
		}
		s := load(t, keys)
		for _, eps := range []float64{0, 1 / float64(2*n)} {
			requireLaw(t, s, keys, eps)
		}
	}
}

// The first number of an attempt of DrawBatch goes to the head's groups
// exactly when it falls at or above the front rows' cumulative weight, as
// Draw's goes to the first head row: the least first word that reaches
// the head (by bisection over the words, through fineUniform) draws a
// head key, the word before it a key of the front rows.
func TestFlatHeadStartsWhereTheFrontRowsEnd(t *testing.T) {
	keys := []float64{4, 4, 1e-3, 1e-3, 1e-5, 1e-5, 1e-5, 2e-5, 0, 0}
	const eps = 1.0 / 20
	s := load(t, keys)
	sc := s.getScratch()
	_, tb := s.solution(eps, sc)
	cumF := 0.0 // the front rows' cumulative weight, from the table
	for _, r := range tb.rows {
		if r.kind == rowTail || r.kind == rowStraddle {
			cumF = r.cum
		}
	}
	total := tb.total
	s.putScratch(sc)
	require.Positive(t, cumF)
	head := least(1<<53, math.MaxUint64, func(x uint64) bool {
		return fineUniform(&script{xs: []uint64{x}})*total >= cumF
	})
	draw := func(x uint64) float64 {
		items, probs := make([]int, 1), make([]float64, 1)
		src := &then{xs: []uint64{x, 1 << 63}, src: rand.NewPCG(1, 2)}
		require.NoError(t, s.DrawBatch(eps, src, true, items, probs))
		return keys[items[0]]
	}
	require.Equal(t, 4.0, draw(head))
	require.Less(t, draw(head-1), 4.0)
}

// A direct tail row's first try comes from the word that chose the row:
// the words from 2^52 to x1, less 2^52, up to limT, a multiple of n less
// one, give their value mod n; those past it draw a fresh number. Ten
// keys, six in the tail (TestDirectTailAttempt's): the word 2^52 + limT
// gives limT mod 10, the next one the item of a fresh number, and the
// last tail word, x1 − 1, too, while x1 itself leaves the tail row.
func TestFlatTailTryIsExactlyUniform(t *testing.T) {
	keys := []float64{4, 4, 1e-3, 1e-3, 1e-5, 1e-5, 1e-5, 2e-5, 0, 0}
	const eps = 1.0 / 20
	s := load(t, keys)
	sc := s.getScratch()
	o, tb := s.solution(eps, sc)
	fl := &sc.flat
	s.buildFlat(o, tb, fl)
	require.True(t, fl.ok)
	require.True(t, fl.tail)
	s.putScratch(sc)
	m := fl.x1 - 1<<52 // the tail's words from 2^52 on
	require.Equal(t, m-m%10-1, fl.limT)
	require.Equal(t, least(1<<52, math.MaxUint64, func(x uint64) bool {
		u, _ := fineFirst(x)
		return u*tb.total >= tb.rows[0].cum
	}), fl.x1)
	n := uint64(len(keys))
	word := func(i int) uint64 { // the number whose below(·, n) is i
		q, _ := bits.Div64(uint64(i), 0, n)
		return q + 1
	}
	draw := func(xs ...uint64) (int, *script) {
		items, probs := make([]int, 1), make([]float64, 1)
		src := &script{xs: xs}
		require.NoError(t, s.DrawBatch(eps, src, true, items, probs))
		return items[0], src
	}
	want := int(fl.limT % 10) // 4 to 9 lie below the straddling group
	if want < 4 {
		want = 9
	}
	i, src := draw(1<<52+fl.limT-fl.limT%10+uint64(want), 99)
	require.Equal(t, want, i)
	require.Len(t, src.xs, 1)
	if 1<<52+fl.limT+1 < fl.x1 {
		i, src = draw(1<<52+fl.limT+1, word(5), 99)
		require.Equal(t, 5, i, "a word past the last multiple draws a fresh number")
		require.Len(t, src.xs, 1)
	}
	i, src = draw(fl.x1-1, word(6), 99)
	require.Equal(t, 6, i)
	require.Len(t, src.xs, 1)
	// x1 is the straddling row's (two items of 1e-3, in the tail): the
	// next number chooses its slot 1, and u = 0 accepts.
	require.Less(t, fl.x1, fl.x0)
	i, src = draw(fl.x1, 1<<63, 0, 99)
	require.Equal(t, 3, i)
	require.Len(t, src.xs, 1)
}

// Property: modBy is y mod d, for multiples of d and their neighbours
// (where the product by the reciprocal falls one short), and at random.
func TestModBy(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 9))
	for range 2000 {
		d := rng.Uint64N(1<<uint(rng.IntN(63))) + 1
		rec := uint64(math.MaxUint64) / d
		k := rng.Uint64N(math.MaxUint64 / d) // (k + 1)·d < 2^64
		for _, y := range []uint64{k * d, k*d + d - 1, rng.Uint64(), math.MaxUint64} {
			require.Equal(t, y%d, modBy(y, d, rec), "y = %d, d = %d", y, d)
		}
	}
}

// The flat proposal serves a head of up to 32 levels whose weights fit
// below 2^62 shifted to the lowest; DrawBatch draws through the table's
// rows otherwise, with Draw's attempts. At ε = 0 every key is in the head:
// keys 2^0 to 2^31 fit, 2^0 to 2^32 are 33 levels, and keys 1 and 2^70
// are two levels 70 apart.
func TestFlatServesWhatFits(t *testing.T) {
	binades := func(k int) []float64 {
		keys := make([]float64, k)
		for i := range keys {
			keys[i] = math.Ldexp(1, i)
		}
		return keys
	}
	for _, c := range []struct {
		keys []float64
		ok   bool
	}{{binades(32), true}, {binades(33), false}, {[]float64{1, 0x1p70}, false}, {[]float64{1, 0x1p40}, true}} {
		s := load(t, c.keys)
		sc := s.getScratch()
		o, tb := s.solution(0, sc)
		s.buildFlat(o, tb, &sc.flat)
		require.Equal(t, c.ok, sc.flat.ok, "keys %v", c.keys)
		s.putScratch(sc)
		requireLaw(t, s, c.keys, 0)
	}
}

// drawLeft, from items already drawn, draws the rest of a batch from the
// items left with their exact conditional law, each drawn item's mass
// gone from its proposal: 520 keys 1 + m·2^-12 (m = i mod 64) make one
// group of level 0, split into 64 sub-buckets, beside keys 4, 8 and 16
// and 1.5, at ε = 0. With the key 16 and twelve of the split group's
// items from nine sub-buckets drawn (their slots found through the
// sub-buckets' counts), 150,000 calls draw two items each: neither is
// drawn already nor the same, the first follows p*_i/R and the second
// Σ_i p*_i/R · p*_j/(R − p*_i), R the p* left (the exact oracle's), by
// χ² at a fixed seed; and p is Prob's. With the flat proposal of all the
// levels' groups and of the occupied ones.
func TestDrawLeftLaw(t *testing.T) {
	const calls = 150_000
	keys := []float64{16, 4, 8, 1.5}
	for i := range 520 {
		keys = append(keys, 1+float64(i%64)*0x1p-12)
	}
	n := len(keys)
	s := load(t, keys)
	l, j := locate(1)
	require.NotNil(t, s.lv[l-s.lo].sub[j], "the group of the keys near 1 is split")
	drawn := []int{0, 4, 5, 6, 70, 71, 140, 200, 263, 300, 301, 402, 523}
	p := exactProbs(keys, 0)
	left := 1.0
	for _, i := range drawn {
		left -= p[i]
	}
	first, second := make([]float64, n), make([]float64, n)
	for i := range n {
		if !slices.Contains(drawn, i) {
			first[i] = p[i] / left
			for j := range n {
				if j != i && !slices.Contains(drawn, j) {
					second[j] += first[i] * p[j] / (left - p[i])
				}
			}
		}
	}
	want := make([]float64, n)
	for i := range n {
		want[i], _ = s.Prob(i, 0)
	}
	for _, sparse := range []bool{false, true} {
		sc := s.getScratch()
		o, tb := s.solution(0, sc)
		sc.flat.force = 1
		if sparse {
			sc.flat.force = -1
		}
		s.buildFlat(o, tb, &sc.flat)
		require.True(t, sc.flat.ok)
		require.Zero(t, sc.flat.front)
		require.Equal(t, !sparse, sc.flat.dense)
		seen := sc.seenBits(n)
		for _, i := range drawn {
			seen.add(i)
		}
		src := rand.NewPCG(21, 22)
		c1, c2 := make([]int, n), make([]int, n)
		items, probs := make([]int, 2), make([]float64, 2)
		for range calls {
			k := s.drawLeft(o, sc, seen, src, drawn, items, probs)
			if k != 2 || items[0] == items[1] || slices.Contains(drawn, items[0]) || slices.Contains(drawn, items[1]) ||
				probs[0] != want[items[0]] || probs[1] != want[items[1]] {
				require.FailNow(t, "drawLeft", "sparse %v: %d items %v, p %v", sparse, k, items, probs)
			}
			seen.clear(items)
			c1[items[0]]++
			c2[items[1]]++
		}
		seen.clear(drawn)
		sc.flat.force = 0
		s.putScratch(sc)
		require.Greater(t, chiSquare(c1, first, calls), 1e-4, "sparse %v: the first item", sparse)
		require.Greater(t, chiSquare(c2, second, calls), 1e-4, "sparse %v: the second item", sparse)
	}
}

// Property: the guide maps each bucket whose least number lo is below w to
// the group that holds lo, the one g with ends[g] ≤ lo < ends[g+1]: found
// by a scan over the groups. Ends at random, with runs of empty groups
// (equal ends), groups wider than a bucket and buckets wider than groups,
// and totals from 1 to near 2^62 (a flat proposal's are below).
func TestGuideNamesTheGroupOfEachBucket(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	for range 1000 {
		ng := 1 + rng.IntN(700)
		wide := uint64(1) << uint(rng.IntN(46)) // 700 groups of 64·2^45 below 2^62
		ends := make([]uint64, ng+1)
		for g := range ng {
			var d uint64
			switch rng.IntN(4) {
			case 0: // empty
			case 1:
				d = rng.Uint64N(wide * 64)
			default:
				d = rng.Uint64N(wide) + 1
			}
			ends[g+1] = ends[g] + d
		}
		if ends[ng] == 0 {
			ends[ng] = 1
		}
		w := ends[ng]
		fl := &flat{gd: make([]uint16, ng)}
		fl.guide(ends, w)
		nb := 1 << max(bits.Len(uint(ng))-2, 0)
		for b := range nb {
			lo := uint64(b) << fl.gs
			if lo >= w {
				require.GreaterOrEqual(t, uint64(nb)<<fl.gs, w, "the buckets cover [0, w)")
				break
			}
			want := 0
			for ends[want+1] <= lo {
				want++
			}
			require.Equal(t, want, int(fl.gd[b]), "bucket %d of %d, lo %d, %d groups, w %d", b, nb, lo, ng, w)
		}
		require.GreaterOrEqual(t, uint64(nb)<<fl.gs, w, "the buckets cover [0, w)")
	}
}
