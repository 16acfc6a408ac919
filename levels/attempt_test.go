package levels

import (
	"math"
	"math/bits"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// script is a rand.Source that returns its numbers in turn.
type script struct{ xs []uint64 }

func (s *script) Uint64() uint64 {
	x := s.xs[0]
	s.xs = s.xs[1:]
	return x
}

// An attempt on a head group, driven number by number: the number that
// chooses the group also chooses the slot (its quotient by the bound, 65
// units of 2^-6 for keys in [1, 1 + 2^-6)) and accepts at once when its
// remainder is below the edge (64), using no number for a test; at the
// edge it takes one more number u and accepts exactly when u is below the
// key's excess over the edge, here 1/4 of a unit for the first key and
// 3/4 for the second: u = 1/4 − 2^-53 accepts, u = 1/4 rejects; through
// Draw's attempt and through DrawBatch's, near and far.
func TestHeadAttemptUsesItsNumbers(t *testing.T) {
	keys := []float64{1 + 0.25*0x1p-6, 1 + 0.75*0x1p-6}
	s := load(t, keys)
	sc := s.getScratch()
	defer s.putScratch(sc)
	o, tb := s.solution(0, sc)
	require.Len(t, tb.rows, 1, "one row: the level, wholly in the head")
	require.Equal(t, uint64(2*65), s.stat(int(tb.rows[0].l)).wb)
	// word returns the number whose below(·, 130) is x.
	word := func(x uint64) uint64 {
		q, _ := bits.Div64(x, 0, 130)
		return q + 1
	}
	row := uint64(1) << 63 // any number with its leading bit set: the one row
	uniformOf := func(u float64) uint64 { return uint64(u*0x1p53) << 11 }
	attempt := func(xs ...uint64) (int, *script) {
		src := &script{xs: xs}
		i, _ := s.attempt(o, tb, nil, src)
		return i, src
	}
	// Slot 0, remainders 0 and 63: the first key, at once, and no third
	// number used.
	for _, x := range []uint64{0, 63} {
		i, src := attempt(row, word(x), 99)
		require.Equal(t, keys[0], s.Key(i), "x = %d", x)
		require.Len(t, src.xs, 1, "x = %d: a sure attempt takes no number for a test", x)
	}
	// Slot 1 at once.
	i, _ := attempt(row, word(65+10), 99)
	require.Equal(t, keys[1], s.Key(i))
	// The edge of slot 0: accepted exactly when u < 1/4.
	i, src := attempt(row, word(64), uniformOf(0.25-0x1p-53))
	require.Equal(t, keys[0], s.Key(i))
	require.Empty(t, src.xs)
	i, _ = attempt(row, word(64), uniformOf(0.25))
	require.Equal(t, -1, i, "u = 1/4 at an excess of 1/4 rejects")
	// The edge of slot 1: accepted exactly when u < 3/4.
	i, _ = attempt(row, word(65+64), uniformOf(0.75-0x1p-53))
	require.Equal(t, keys[1], s.Key(i))
	i, _ = attempt(row, word(65+64), uniformOf(0.75))
	require.Equal(t, -1, i)
	// DrawBatch's attempts, made whole (near) or in passes (far), test the
	// edge as Draw's do: a rejection goes on to the next attempt, here
	// slot 1 at once. The head's one number is the word itself: no front
	// rows, so every word goes to the head, and a word x below the last
	// multiple of 130 chooses x mod 130.
	for _, far := range []bool{false, true} {
		s.far = far
		head := func(x uint64) []uint64 { return []uint64{x} }
		draw := func(xs ...[]uint64) (float64, *script) {
			src := &script{}
			for _, x := range xs {
				src.xs = append(src.xs, x...)
			}
			items, probs := make([]int, 1), make([]float64, 1)
			require.NoError(t, s.DrawBatch(0, src, true, items, probs))
			return s.Key(items[0]), src
		}
		a, src := draw(head(64), []uint64{uniformOf(0.25 - 0x1p-53)})
		require.Equal(t, keys[0], a, "far = %v", far)
		require.Empty(t, src.xs)
		a, src = draw(head(64), []uint64{uniformOf(0.25)}, head(65+10))
		require.Equal(t, keys[1], a, "far = %v: u = 1/4 at an excess of 1/4 rejects", far)
		require.Empty(t, src.xs)
		a, _ = draw(head(65+64), []uint64{uniformOf(0.75)}, head(0))
		require.Equal(t, keys[0], a, "far = %v: u = 3/4 at an excess of 3/4 rejects", far)
	}
	s.far = false
}

// DrawBatch builds its guide for the table it draws with: after a batch
// on keys over many binades (many rows), batches of one on keys of two
// binades (two rows) draw each item with its p*, within a few standard
// deviations over 40,000 draws. A guide left from the earlier table
// would start past the rows of the new one.
func TestDrawBatchGuidesItsOwnTable(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	n := 64
	wide := make([]float64, n)
	for i := range wide {
		wide[i] = math.Exp(3 * rng.NormFloat64())
	}
	s := load(t, wide)
	src := rand.NewPCG(9, 10)
	items, probs := make([]int, 128), make([]float64, 128)
	require.NoError(t, s.DrawBatch(0, src, true, items, probs))
	narrow := make([]float64, n)
	for i := range narrow {
		narrow[i] = 1 + float64(i%2) // two binades: 1 and 2
	}
	require.NoError(t, s.Load(narrow))
	const draws = 40000
	counts := make([]int, n)
	for range draws {
		require.NoError(t, s.DrawBatch(0, src, true, items[:1], probs[:1]))
		counts[items[0]]++
	}
	for i, c := range counts {
		p := narrow[i] / 96 // p* at ε = 0: the keys sum to 96
		sd := math.Sqrt(draws * p * (1 - p))
		require.InDelta(t, draws*p, float64(c), 5*sd, "item %d", i)
	}
}

// A small group's slice steps down as the group empties: 64 entries in
// one group, then all but 4 set to 0, leave a slice of at most 16 (the
// pools hold slices of every small size for n ≥ 256).
func TestSmallSliceStepsDown(t *testing.T) {
	n := 512
	keys := make([]float64, n)
	for i := range 64 {
		keys[i] = 1 + float64(i)*0x1p-20 // one group
	}
	s := load(t, keys)
	l, j := locate(keys[0])
	require.Equal(t, 64, cap(s.level(l).ents[j]))
	for i := 4; i < 64; i++ {
		require.NoError(t, s.Set(i, 0))
	}
	require.Len(t, s.level(l).ents[j], 4)
	require.LessOrEqual(t, cap(s.level(l).ents[j]), 16)
	require.NoError(t, s.Check())
}

// counting is a rand.Source that counts the numbers it returns.
type counting struct {
	src rand.Source
	n   int
}

func (c *counting) Uint64() uint64 { c.n++; return c.src.Uint64() }

// Property: DrawBatch makes no more attempts than the draws it still
// needs, in chunks of at most 32: with all keys 0 every attempt takes one
// number and accepts, so a batch of m draws with replacement takes m
// numbers, at m = 33 too, where chunks of 32 whatever the need took 64.
func TestDrawBatchAttemptsWhatItNeeds(t *testing.T) {
	s := New(1000)
	for _, m := range []int{1, 5, 31, 32, 33, 100, 128} {
		src := &counting{src: rand.NewPCG(1, uint64(m))}
		items, probs := make([]int, m), make([]float64, m)
		require.NoError(t, s.DrawBatch(0, src, true, items, probs))
		require.Equal(t, m, src.n, "m = %d", m)
	}
}

// A tail attempt with a table that draws its tail items directly, driven
// number by number through Draw's attempt and through DrawBatch (its
// attempts made one by one, and in passes of a chunk): the tail row, then
// a uniform item of all ten; one whose key lies below the straddling group
// (1e-5, 2e-5 or 0) is drawn at once, with p = ε and no further number;
// any other (a head key 4, or 1e-3 in the straddling group, all in the
// tail but proposed by its own row) is tried again with the next number,
// never rejected: a rejection would draw the tail items nTail/n times too
// rarely.
func TestDirectTailAttempt(t *testing.T) {
	keys := []float64{4, 4, 1e-3, 1e-3, 1e-5, 1e-5, 1e-5, 2e-5, 0, 0}
	below := []bool{false, false, false, false, true, true, true, true, true, true}
	const eps = 1.0 / 20
	s := load(t, keys)
	sc := s.getScratch()
	o, tb := s.solution(eps, sc)
	require.True(t, tb.direct, "6 of 10 items below the straddling group")
	require.Equal(t, 6, tb.nTail)
	require.Equal(t, uint8(rowTail), tb.rows[0].kind)
	require.Less(t, 0x1p-11*tb.total, tb.rows[0].cum, "the first number picks the tail row")
	n := uint64(len(keys))
	word := func(i int) uint64 { // the number whose below(·, n) is i
		q, _ := bits.Div64(uint64(i), 0, n)
		return q + 1
	}
	attempts := map[string]func(src *script) (int, float64){
		"Draw": func(src *script) (int, float64) { return s.attempt(o, tb, nil, src) },
		"DrawBatch": func(src *script) (int, float64) {
			items, probs := make([]int, 1), make([]float64, 1)
			require.NoError(t, s.DrawBatch(eps, src, true, items, probs))
			return items[0], probs[0]
		},
		"DrawBatch far": func(src *script) (int, float64) {
			// In passes of a chunk, as above touchMin items.
			s.far = true
			defer func() { s.far = false }()
			items, probs := make([]int, 1), make([]float64, 1)
			require.NoError(t, s.DrawBatch(eps, src, true, items, probs))
			return items[0], probs[0]
		},
	}
	for name, attempt := range attempts {
		for i := range keys {
			src := &script{xs: []uint64{1 << 53, word(i), word(7), 99}}
			if name != "Draw" {
				// The word that chooses the tail row chooses the first
				// try too: the words from 2^52 on, less 2^52, mod n.
				src = &script{xs: []uint64{1<<52 + uint64(i), word(7), 99}}
			}
			got, p := attempt(src)
			want, left := i, 2
			if !below[i] {
				want, left = 7, 1
			}
			require.Equal(t, want, got, "%s: first try %d", name, i)
			require.Equal(t, eps, p, "%s: first try %d", name, i)
			require.Len(t, src.xs, left, "%s: first try %d: the numbers used", name, i)
		}
	}
	s.putScratch(sc)
}

// then is a rand.Source that returns its scripted numbers, then those of
// src.
type then struct {
	xs  []uint64
	src rand.Source
}

func (s *then) Uint64() uint64 {
	if len(s.xs) > 0 {
		x := s.xs[0]
		s.xs = s.xs[1:]
		return x
	}
	return s.src.Uint64()
}

// An item whose p* rounds to 0 is never drawn, even from a head group
// whose attempts accept at once: keys 2^26 and 2^-1074 at ε = 0 give the
// tiny key p* = 2^-1100, 0 as a float, but a row of weight 2^-1048 in the
// top level's unit, which a first number read as 0 (fineUniform after 19
// zero words) chooses. Draw's attempt and DrawBatch's chunk must reject
// it, and draw the other item with p = 1.
func TestZeroProbabilityItemNeverDrawn(t *testing.T) {
	keys := []float64{0x1p26, 0x1p-1074}
	s := load(t, keys)
	p, err := s.Prob(1, 0)
	require.NoError(t, err)
	require.Zero(t, p, "p* of the tiny key rounds to 0")
	sc := s.getScratch()
	_, tb := s.solution(0, sc)
	require.Positive(t, tb.rows[0].w, "the tiny key's row has a weight")
	s.putScratch(sc)
	script := func() *then {
		return &then{xs: append(make([]uint64, 19), 1<<63), src: rand.NewPCG(1, 2)}
	}
	i, p, err := s.Draw(0, script())
	require.NoError(t, err)
	require.Equal(t, 0, i)
	require.Equal(t, 1.0, p)
	items, probs := make([]int, 1), make([]float64, 1)
	require.NoError(t, s.DrawBatch(0, script(), true, items, probs))
	require.Equal(t, []int{0}, items)
	require.Equal(t, []float64{1}, probs)
}

// At ε = 0 an attempt through the integer proposal chooses the level
// whose range, counted from the top, holds its number r: at every edge
// between two levels (r one below it, at it, one above), on keys one to a
// level over eleven levels (two runs of four chosen with no branch on r,
// the rest by the walk below them), the item drawn is that of the level a
// walk from the top finds. Each key lies half a unit of 2^-6 above its
// group's edge, so that an attempt at a slot's last number accepts with
// u = 0.
func TestIntAttemptLevelEdges(t *testing.T) {
	keys := make([]float64, 11)
	for e := range keys {
		keys[e] = math.Ldexp(1+16.5/64, e-5)
	}
	s := load(t, keys)
	sc := s.getScratch()
	defer s.putScratch(sc)
	o, tb := s.solution(0, sc)
	require.True(t, tb.iz.ok)
	w, base := tb.iz.w, int(tb.iz.base)
	// The reference: the levels from the top, each weighing its bound
	// weight shifted to base's unit; the item of the one holding r.
	item := func(r uint64) int {
		for l := o.top; ; l-- {
			x := s.stat(l).wb << (l - base)
			if r < x || l == base {
				for i, a := range keys {
					if m, _ := locate(a); m == l {
						return i
					}
				}
				require.FailNow(t, "no key in level", "%d", l)
			}
			r -= x
		}
	}
	// word returns the largest number x with ⌊x·w/2^64⌋ = r: its low word
	// is then at least 2^64 − w, which Lemire's test takes at once.
	word := func(r uint64) uint64 {
		if r+1 == w {
			return math.MaxUint64
		}
		q, rem := bits.Div64(r+1, 0, w)
		if rem == 0 {
			return q - 1
		}
		return q
	}
	var edges []uint64
	c := uint64(0)
	for l := o.top; l > base; l-- {
		c += s.stat(l).wb << (l - base)
		edges = append(edges, c)
	}
	require.Len(t, edges, len(keys)-1)
	tried := 0
	for _, e := range edges {
		for _, r := range []uint64{e - 1, e, e + 1} {
			src := &script{xs: []uint64{word(r), 0}}
			i, _ := s.attempt(o, tb, nil, src)
			require.Equal(t, item(r), i, "r = %d, w = %d", r, w)
			tried++
		}
	}
	require.Equal(t, 3*(len(keys)-1), tried)
}
