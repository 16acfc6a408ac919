package levels

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// counts draws 64 counts, many of them 0 (whole blocks too, the first and
// the last among them), the others from 1 to max.
func counts(t *rapid.T, max int32) [nG]int32 {
	var cnt [nG]int32
	empty := rapid.Uint8().Draw(t, "empty blocks") // a bit per block
	for j := range cnt {
		if empty>>(j/8)&1 == 0 && rapid.Bool().Draw(t, "occupied") {
			cnt[j] = rapid.Int32Range(1, max).Draw(t, "count")
		}
	}
	return cnt
}

// Property: findCount(r) is the j with prefix(j) ≤ r < prefix(j+1) of the
// counts, and returns prefix(j), for every r below the total: the choice
// of a slot by count, against a plain running sum.
func TestFindCountIsThePrefixSearch(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		cnt := counts(t, rapid.SampledFrom([]int32{1, 3, 1 << 20, math.MaxInt32 / nG}).Draw(t, "max"))
		var bc [nBlk]uint32
		var prefix [nG + 1]uint32
		for j, c := range cnt {
			bc[j/8] += uint32(c)
			prefix[j+1] = prefix[j] + uint32(c)
		}
		if prefix[nG] == 0 {
			return
		}
		check := func(r uint32) {
			j, below := findCount(&bc, &cnt, r)
			require.True(t, j >= 0 && j < nG, "r=%d: j=%d", r, j)
			require.True(t, prefix[j] <= r && r < prefix[j+1], "r=%d: j=%d, prefix %d..%d", r, j, prefix[j], prefix[j+1])
			require.Equal(t, prefix[j], below, "r=%d", r)
		}
		// Both ends of every occupied group, and random numbers.
		for j := range cnt {
			if cnt[j] > 0 {
				check(prefix[j])
				check(prefix[j+1] - 1)
			}
		}
		for range 20 {
			check(rapid.Uint32Range(0, prefix[nG]-1).Draw(t, "r"))
		}
	})
}

// Property: findBound(l, r) is the group j with prefix(j) ≤ r <
// prefix(j+1) of the bound weights cnt[j]·bnd(l, j), and returns
// prefix(j), at levels with groups of one value (l < 6) and of a range.
func TestFindBoundIsThePrefixSearch(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		lv := new(level)
		l := rapid.SampledFrom([]int{0, 3, 6, 60, 1100, nLevels - 1}).Draw(t, "level")
		lv.cnt = counts(t, rapid.SampledFrom([]int32{1, 5, 1 << 24}).Draw(t, "max"))
		var prefix [nG + 1]uint64
		for j, c := range lv.cnt {
			w := uint64(c) * bnd(l, j)
			lv.bb[j/8] += w
			prefix[j+1] = prefix[j] + w
		}
		if prefix[nG] == 0 {
			return
		}
		check := func(r uint64) {
			j, below := lv.findBound(l, r)
			require.True(t, j >= 0 && j < nG, "r=%d: j=%d", r, j)
			require.True(t, prefix[j] <= r && r < prefix[j+1], "r=%d: j=%d, prefix %d..%d", r, j, prefix[j], prefix[j+1])
			require.Equal(t, prefix[j], below, "r=%d", r)
		}
		for j := range lv.cnt {
			if lv.cnt[j] > 0 {
				check(prefix[j])
				check(prefix[j+1] - 1)
			}
		}
		for range 20 {
			check(rapid.Uint64Range(0, prefix[nG]-1).Draw(t, "r"))
		}
	})
}

// A split group's entry of index r (at, through atSub) is the r-th of
// its sub-buckets' entries taken in turn: for every r, in groups of 600
// to 1,400 keys over random sub-buckets (whole blocks of eight empty
// at random, so that the search passes empty blocks and sub-buckets).
func TestAtSplitIsTheRthEntry(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 9))
	for range 12 {
		var subs []uint64
		empty := rng.Uint64N(255) // a bit per block; not all eight empty
		for k := range uint64(nG) {
			if empty>>(k/8)&1 == 0 && rng.IntN(3) > 0 {
				subs = append(subs, k)
			}
		}
		if len(subs) == 0 {
			subs = append(subs, 63)
		}
		keys := make([]float64, 600+rng.IntN(800))
		for i := range keys {
			// Group 5 of the level of 1, sub-bucket k: the six bits
			// after the group's, then any 40 bits.
			m := uint64(5)<<46 | subs[rng.IntN(len(subs))]<<40 | rng.Uint64N(1<<40)
			keys[i] = math.Float64frombits(1023<<52 | m)
		}
		s := load(t, keys)
		l, j := locate(keys[0])
		lv := s.lv[l-s.lo]
		require.NotNil(t, lv.sub[j], "the group of %d keys is split", len(keys))
		var all []entry
		for _, es := range lv.sub[j].ents {
			all = append(all, es...)
		}
		require.Len(t, all, len(keys))
		for r, e := range all {
			require.Equal(t, e, lv.at(j, r), "r=%d", r)
		}
	}
}

// Property: pick(x) and pickGuided(x) are the first row whose cumulative
// weight exceeds x, or the last row if none does (x at or past the total
// by rounding): for tables of 1 to 150 rows (more than the
// guide's buckets), with repeated sums (a row too light to change the
// sum), many rows in one bucket, totals so small that the guide has one
// bucket (subnormal), and x at every sum, a few ulps off it, 0 and the
// total.
func TestPickIsTheFirstSumAbove(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		ws := rapid.SliceOfN(rapid.SampledFrom([]float64{1, 0.5, 3, 1e-300, 1e-17, 7e20, 5e-324, 0x1p-1060}), 1, 150).Draw(t, "weights")
		var tb table
		w := 0.0
		for _, x := range ws {
			w += x
			tb.rows = append(tb.rows, row{w: x, cum: w})
		}
		tb.total = w
		var g guide
		g.build(&tb)
		want := func(x float64) int {
			for k, r := range tb.rows {
				if x < r.cum {
					return k
				}
			}
			return len(tb.rows) - 1
		}
		xs := []float64{0, w, math.Nextafter(w, 0), math.Nextafter(w, math.Inf(1))}
		for _, r := range tb.rows {
			xs = append(xs, r.cum, math.Nextafter(r.cum, 0), math.Nextafter(r.cum, math.Inf(1)), math.Nextafter(math.Nextafter(r.cum, 0), 0))
		}
		xs = append(xs, rapid.Float64Range(0, w).Draw(t, "x"))
		for _, x := range xs {
			require.Equal(t, want(x), tb.pick(x), "x=%v", x)
			require.Equal(t, want(x), tb.pickGuided(&g, x), "x=%v, guided", x)
		}
	})
}

// Property: loBits(l, j) is the least key of group j of level l: locate
// puts it in that group and the key one ulp below it in a group or level
// below, for every level and group a key can have.
func TestLoBitsIsTheGroupsLeastKey(t *testing.T) {
	for l := range nLevels {
		for j := range nG {
			if l < bB && j%(1<<(bB-l)) != 0 {
				continue // a level of l < 6 bits has 2^l groups, one value each
			}
			b := loBits(l, j)
			gl, gj := locate(math.Float64frombits(b))
			require.Equal(t, [2]int{l, j}, [2]int{gl, gj}, "loBits(%d, %d) = %#x", l, j, b)
			if b > 1 {
				pl, pj := locate(math.Float64frombits(b - 1))
				require.True(t, pl < l || pl == l && pj < j, "the key below loBits(%d, %d) is in (%d, %d)", l, j, pl, pj)
			}
		}
	}
}

// Property: headSlot splits a number x of head group j of level l into the
// slot ⌊x/bnd⌋ and whether x mod bnd lies below the group's edge, as
// integer division says, for every bound (the groups of both kinds of
// level) and every x a group can hold (a count of up to 2^31 − 1 times
// the bound): multiples of the bound and their neighbours, the numbers at
// the edge, and the largest.
func TestHeadSlotIsTheIntegerQuotient(t *testing.T) {
	check := func(t require.TestingT, l, j int, x uint64) {
		bd := bnd(l, j)
		slot, sure := headSlot(l, j, x)
		require.Equal(t, x/bd, uint64(slot), "x = %d, bound %d", x, bd)
		require.Equal(t, x%bd < headEdge(l, j), sure, "x = %d, bound %d", x, bd)
	}
	top := uint64(math.MaxInt32) * 2 * nG // at or above any group's numbers, below 2^38
	for _, l := range []int{bB - 1, bB, 2 * bB, 1000} {
		for j := range nG {
			bd := bnd(l, j)
			for _, k := range []uint64{0, 1, 2, 1 << 20, (top / bd) - 1} {
				for _, d := range []uint64{0, 1, bd - 2, bd - 1} {
					check(t, l, j, k*bd+d)
				}
			}
		}
	}
	rapid.Check(t, func(t *rapid.T) {
		l := rapid.SampledFrom([]int{0, bB - 1, bB, 100, 2000}).Draw(t, "level")
		j := rapid.IntRange(0, nG-1).Draw(t, "group")
		x := rapid.Uint64Range(0, uint64(math.MaxInt32)*bnd(l, j)-1).Draw(t, "x")
		check(t, l, j, x)
	})
}

// Property: sortKeys returns the bit patterns of its entries in decreasing
// order, each as often as it occurs, whatever their spread: keys over one
// group and over the whole range of bit patterns, exact ties, near-ties a
// few ulps apart, and crowds of more than maxBucket keys in one bucket,
// which it sorts by comparison; against slices.Sort.
func TestSortKeysIsADecreasingSort(t *testing.T) {
	var bkt []int32
	rapid.Check(t, func(t *rapid.T) {
		c := rapid.SampledFrom([]int{0, 1, 2, 3, maxBucket, maxBucket + 1, 100, 700, 5000}).Draw(t, "c")
		// The span the keys spread over: one key's ulps, a sub-bucket, a
		// group, a level, every pattern.
		span := rapid.SampledFrom([]uint64{1, 8, 1 << 40, 1 << 46, 1 << 52, math.MaxUint64}).Draw(t, "span")
		base := rapid.Uint64().Draw(t, "base")
		if base > math.MaxUint64-span {
			base = math.MaxUint64 - span
		}
		ents := make([]entry, c)
		want := make([]uint64, c)
		for i := range ents {
			var b uint64
			switch k := rapid.IntRange(0, 3).Draw(t, "kind"); {
			case k == 0 && i > 0: // a tie
				b = want[rapid.IntRange(0, i-1).Draw(t, "of")]
			case k == 1 && i > 0: // a few ulps from an earlier key
				b = want[rapid.IntRange(0, i-1).Draw(t, "of")] + uint64(rapid.IntRange(-3, 3).Draw(t, "ulps"))
				b = min(max(b, base), base+span)
			case k == 2: // an edge of the span
				b = base + span*uint64(rapid.IntRange(0, 1).Draw(t, "edge"))
			default:
				b = base + rapid.Uint64Range(0, span).Draw(t, "offset")
			}
			ents[i] = entry{klo: uint32(b), khi: uint32(b >> 32), item: int32(i)}
			want[i] = b
		}
		slices.Sort(want)
		slices.Reverse(want)
		got := sortKeys(make([]uint64, 0, c), ents, &bkt)
		require.Equal(t, want, got)
	})
}

// Property: countAtLeastNear(keys, g, b) is the number of keys ≥ b of a
// decreasing slice, whatever the guess g (inside the keys, at their ends,
// past them, far off), on keys with runs of ties and with b equal to a
// key, between two, or past all of them; against a plain count.
func TestCountAtLeastNearIsTheCount(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		keys := rapid.SliceOfN(rapid.Uint64Range(0, 40), 0, 200).Draw(t, "keys")
		slices.Sort(keys)
		slices.Reverse(keys)
		b := rapid.Uint64Range(0, 42).Draw(t, "b")
		g := rapid.IntRange(-3, len(keys)+3).Draw(t, "guess")
		want := 0
		for _, k := range keys {
			if k >= b {
				want++
			}
		}
		require.Equal(t, want, countAtLeastNear(keys, g, b), "b=%d g=%d", b, g)
	})
}

// Property: a unit's prefix(q) is the exact sum of its q largest keys, less
// the offset, for every q: from the block sum below q or from the one
// above it, on units of up to three super-blocks.
func TestUnitPrefixIsTheSumOfTheLargest(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		c := rapid.IntRange(0, 3<<(blkBits+supBits)+40).Draw(t, "c")
		off := uint64(7) << 52
		ents := make([]entry, c)
		for i := range ents {
			b := off + rapid.Uint64Range(0, 1<<52-1).Draw(t, "key")
			ents[i] = entry{klo: uint32(b), khi: uint32(b >> 32), item: int32(i)}
		}
		var bkt []int32
		u := &unit{off: off}
		u.keys = sortKeys(make([]uint64, 0, c), ents, &bkt)
		u.setSums()
		var acc u128
		for q := 0; q <= c; q++ {
			require.Equal(t, acc, u.prefix(q), "q=%d of %d", q, c)
			if q < c {
				acc.add(u.keys[q] - off)
			}
		}
	})
}

// Property: u64float(x) is float64(x) bit for bit, for x below and above
// 2^63, at powers of two and their neighbours, and at the halfway cases
// of rounding to 53 bits.
func TestU64FloatIsTheConversion(t *testing.T) {
	check := func(x uint64) {
		require.Equal(t, math.Float64bits(float64(x)), math.Float64bits(u64float(x)), "x=%#x", x)
	}
	for e := range 64 {
		p := uint64(1) << e
		for _, d := range []uint64{0, 1, 2, 3, p >> 1, p >> 11, p>>11 | 1, p >> 12} {
			check(p + d)
			check(p - d)
			check(p | p>>53 | d)
		}
	}
	check(math.MaxUint64)
	rapid.Check(t, func(t *rapid.T) {
		x := rapid.Uint64().Draw(t, "x")
		s := rapid.IntRange(0, 63).Draw(t, "shift")
		require.Equal(t, math.Float64bits(float64(x>>s)), math.Float64bits(u64float(x>>s)), "x=%#x", x>>s)
	})
}

// Property: hiEdge(l, j) is the least float above every key of group j of
// level l: the float one ulp below it is in that group, and it lies in a
// later group or level, or is +Inf above the top group.
func TestHiEdgeIsAboveTheGroup(t *testing.T) {
	for l := range nLevels {
		for j := range nG {
			if l < bB && j%(1<<(bB-l)) != 0 {
				continue // a level of l < 6 bits has 2^l groups, one value each
			}
			e := hiEdge(l, j)
			b := math.Float64bits(e)
			gl, gj := locate(math.Float64frombits(b - 1))
			require.Equal(t, [2]int{l, j}, [2]int{gl, gj}, "below hiEdge(%d, %d) = %#x", l, j, b)
			if math.IsInf(e, 1) {
				require.Equal(t, [2]int{nLevels - 1, nG - 1}, [2]int{l, j}, "hiEdge(%d, %d) = +Inf", l, j)
				continue
			}
			nl, nj := locate(e)
			require.True(t, nl > l || nl == l && nj > j, "hiEdge(%d, %d) = %#x is in (%d, %d)", l, j, b, nl, nj)
		}
	}
}
