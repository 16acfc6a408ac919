// Package bench holds the workloads that compare the sampler backends with
// each other and with gonum's stat/sampleuv.Weighted: one SRG step (Sample
// at ε = 1/(2n), then Set of the drawn item), the same at ε = 0, Set alone
// and Sample alone; the batch step of the paper's experiments; the single
// step as a user makes it (reweighted.Draw, then Set) on keys of a given
// law; and draws on adversarial keys (near-ties just below the cutoff,
// keys near the cutoff) beside draws on Exp(1) keys. The benchmarks of this package run them with
// sub-benchmarks named impl=X/n=N, so that
//
//	go test ./bench -bench . -count 10 > new.txt
//	benchstat -col /impl new.txt
//
// lines the backends up; cmd/srgreport runs the same workloads through
// testing.Benchmark to draw its scaling table and figure. Run benchmarks any
// constructor func(n int) reweighted.Sampler, so a backend outside this module
// gets the same workloads and the same peer; a law-exact sampler, which has
// no Sample, takes part through Impl.Law and draws with reweighted.Draw.
package bench

import (
	"cmp"
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"runtime"
	"slices"

	"github.com/reweighted/reweighted"
	"github.com/reweighted/reweighted/internal/backends"
	"gonum.org/v1/gonum/stat/sampleuv"
)

// Impl is one sampler under benchmark.
type Impl struct {
	Name string
	// MaxN is the largest n worth benchmarking (naive's Set is O(n)).
	MaxN int
	// New makes a map-exact sampler of n items; nil for a law-exact one and
	// for gonum's Weighted, which has no lower bound ε and so runs only the
	// ε = 0 step.
	New func(n int) reweighted.Sampler
	// Law makes a law-exact sampler of n items, which draws with
	// reweighted.Draw and DrawBatch where the others Sample; nil otherwise.
	Law func(n int) reweighted.Distribution
	// SortedFill gives the items their keys in canonical order (item 0 the
	// largest): naive's Set then moves nothing, a constant factor off its
	// O(n²) fill at the largest n. The others get their keys in random
	// order, so that the trees' nodes are scattered in memory as after a
	// long run, not laid out in key order as a sorted fill leaves them.
	SortedFill bool
}

// GonumWeighted names the gonum baseline.
const GonumWeighted = "gonum-weighted"

// Impls lists the implementations: every backend of the module, then
// gonum's Weighted.
var Impls = impls()

func impls() []Impl {
	var out []Impl
	for _, b := range backends.Every() {
		out = append(out, Impl{Name: b.Name, MaxN: b.MaxN, New: b.New, Law: b.Law, SortedFill: b.LinearSet})
	}
	return append(out, Impl{Name: GonumWeighted, MaxN: 1 << 20})
}

// Op is a workload.
type Op string

// The workloads.
const (
	Step     Op = "step"      // Sample (a law-exact sampler: Draw) at ε = 1/(2n), then Set of the drawn item
	StepEps0 Op = "step-eps0" // the same at ε = 0
	SetOnly  Op = "set"       // Set of a uniformly chosen item
	Sample   Op = "sample"    // Sample (a law-exact sampler: Draw) at ε = 1/(2n)
	// SampleCutoff is Sample at ε = 1/(2n) on adversarial keys: half of
	// them exactly on the cutoff of Lemma 1, where every predicate a descent
	// meets in the tail needs the exact decision. Not in Ops: it allocates,
	// and costs O(n) or more per call.
	SampleCutoff Op = "sample-cutoff"
	// SolveCutoff is Solve at ε = 1/(2n) on keys of which half lie within
	// a relative 10^-9 of the cutoff of Lemma 1, at random: the adversarial
	// case for a Solve that resolves the keys near the cutoff one by one.
	// Not in Ops.
	SolveCutoff Op = "solve-cutoff"
	// SingleStep is one step of SRG on a batch of one, through the
	// package's functions for every backend: reweighted.Step at
	// ε = 1/(2n), which sets the item drawn last to a new key of the
	// workload's law (PrepareOf) and draws the next, as Set then Draw do. gonum's Weighted does Take, then Reweight
	// of the item taken (ε = 0). Not in Ops.
	SingleStep Op = "single-step"
	// SingleStepEps0 is SingleStep at ε = 0, where every item's probability
	// is in proportion to its key, as in gonum's Weighted. Not in Ops.
	SingleStepEps0 Op = "single-step-eps0"
	// DrawOnly is reweighted.Draw at ε = 1/(2n), then Set of the drawn
	// item to its key moved by one ulp (up on one call, down on the next),
	// on keys of the workload's law: the reference of the adversarial
	// draws. Every draw follows an update, so that it finds t* again (on
	// keys that do not change, a sampler may reuse its last solution).
	// gonum's Weighted does Take, then Reweight of the item taken to its
	// key moved so (ε = 0). Not in Ops.
	DrawOnly Op = "draw"
	// DrawTies is DrawOnly on one key and n − 1 keys within a relative
	// 10^-7 of each other just below the cutoff of Lemma 1 at ε = 1/(2n):
	// a group of near-ties that no bracket of the cutoff splits. Not in
	// Ops.
	DrawTies Op = "draw-ties"
	// DrawCutoff is DrawOnly on the keys of SolveCutoff, half within a
	// relative 10^-9 of the cutoff. Not in Ops.
	DrawCutoff Op = "draw-cutoff"
)

// Ops lists the workloads.
var Ops = []Op{Step, StepEps0, SetOnly, Sample}

// Sizes returns n = 2^lo … 2^hi.
func Sizes(lo, hi int) []int {
	var s []int
	for k := lo; k <= hi; k++ {
		s = append(s, 1<<k)
	}
	return s
}

// Supports reports whether impl runs op at size n.
func (impl Impl) Supports(op Op, n int) bool {
	return n <= impl.MaxN && (impl.New != nil || impl.Law != nil || gonumRuns(op))
}

// gonum reports whether impl is gonum's Weighted, which has no constructor
// of ours.
func (impl Impl) gonum() bool { return impl.New == nil && impl.Law == nil }

// dist makes impl's sampler of n items, of either kind; nil for gonum's.
func (impl Impl) dist(n int) reweighted.Distribution {
	switch {
	case impl.New != nil:
		return impl.New(n)
	case impl.Law != nil:
		return impl.Law(n)
	}
	return nil
}

// KeyLaw is the law of the keys of a workload.
type KeyLaw string

// The laws of keys.
const (
	// AbsNormal is |N(0, 1)|, the shape of gradient norms of a
	// well-conditioned problem: the keys of every workload but
	// BatchStepKeys'.
	AbsNormal KeyLaw = "absnormal"
	// Exp is Exp(1).
	Exp KeyLaw = "exp"
	// LogNormal is exp of N(0, 3²): keys over some 35 binades.
	LogNormal KeyLaw = "lognormal"
)

// KeyLaws lists the laws of keys.
var KeyLaws = []KeyLaw{AbsNormal, Exp, LogNormal}

// draw returns a key of law l.
func (l KeyLaw) draw(rng *rand.Rand) float64 {
	switch l {
	case Exp:
		return rng.ExpFloat64()
	case LogNormal:
		return math.Exp(3 * rng.NormFloat64())
	}
	return key(rng)
}

// key draws a key: the absolute value of a standard normal, the shape of
// gradient norms of a well-conditioned problem.
func key(rng *rand.Rand) float64 {
	x := rng.NormFloat64()
	return max(x, -x)
}

// Prepare builds impl at size n with random keys from seed and returns one
// operation of op as a function, and the heap bytes per item that the
// structure took. The keys are |N(0, 1)|, before the adversarial ops place
// some of them.
func Prepare(impl Impl, op Op, n int, seed uint64) (run func(), bytesPerItem float64, err error) {
	return PrepareOf(impl, op, n, seed, AbsNormal)
}

// gonumRuns reports whether gonum's Weighted, which has no bound ε, runs
// op: the ε = 0 step, and the workloads made for a comparison with it.
func gonumRuns(op Op) bool {
	switch op {
	case StepEps0, SingleStep, SingleStepEps0, DrawOnly, DrawTies, DrawCutoff:
		return true
	}
	return false
}

// PrepareOf is Prepare with keys of law l: the initial ones, before the
// adversarial ops place some of them, and those the steps set.
func PrepareOf(impl Impl, op Op, n int, seed uint64, l KeyLaw) (run func(), bytesPerItem float64, err error) {
	if !impl.Supports(op, n) {
		return nil, 0, fmt.Errorf("bench: %s does not run %s at n = %d", impl.Name, op, n)
	}
	if op == DrawTies && n < 2 {
		return nil, 0, fmt.Errorf("bench: %s needs n ≥ 2, not %d", op, n)
	}
	rng := rand.New(rand.NewPCG(seed, uint64(n)))
	keys := make([]float64, n)
	for i := range keys {
		keys[i] = l.draw(rng)
	}
	switch op {
	case SampleCutoff:
		keys = cutoffKeys(keys, 1/float64(2*n))
	case SolveCutoff, DrawCutoff:
		nearCutoffKeys(keys, 1/float64(2*n), rng)
	case DrawTies:
		tieKeys(keys, 1/float64(2*n), rng)
	}
	if impl.SortedFill {
		slices.SortFunc(keys, func(a, b float64) int { return cmp.Compare(b, a) })
	}
	var before, after runtime.MemStats
	// Two collections: the first moves what sync.Pools hold (the scratch
	// of earlier workloads) to their victim caches, the second frees it,
	// so that it is not freed between the two readings and hides the
	// structure's bytes.
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&before)
	if impl.gonum() {
		w := sampleuv.NewWeighted(keys, rand.NewPCG(seed, 1))
		runtime.GC()
		runtime.ReadMemStats(&after)
		// Weighted copies the keys; keys must outlive the measurement, or
		// the GC frees them and hides the copy.
		runtime.KeepAlive(keys)
		take := func() int {
			i, ok := w.Take()
			if !ok {
				panic("bench: gonum Weighted is empty")
			}
			return i
		}
		if op == DrawOnly || op == DrawTies || op == DrawCutoff {
			up := false
			return func() {
				i := take()
				up = !up
				keys[i] = nudge(keys[i], up)
				w.Reweight(i, keys[i])
			}, bytes(before, after, n), nil
		}
		return func() { w.Reweight(take(), l.draw(rng)) }, bytes(before, after, n), nil
	}
	s := impl.dist(n)
	runtime.GC()
	runtime.ReadMemStats(&after)
	for i, a := range keys {
		if err := s.Set(i, a); err != nil {
			return nil, 0, err
		}
	}
	eps := 1 / float64(2*n)
	if op == StepEps0 || op == SingleStepEps0 {
		eps = 0
	}
	// draw is Sample at a uniform u for a map-exact sampler (as before law-exact
	// ones were added, so that numbers stay comparable), Draw for a law-exact one.
	var draw func() int
	if m, ok := s.(reweighted.Sampler); ok {
		draw = func() int {
			i, _, err := m.Sample(eps, rng.Float64())
			if err != nil {
				panic(err)
			}
			return i
		}
	} else {
		src := rand.NewPCG(seed, 3)
		draw = func() int {
			i, _, err := reweighted.Draw(s, eps, src)
			if err != nil {
				panic(err)
			}
			return i
		}
	}
	// drawAny is reweighted.Draw for a sampler of either kind.
	src := rand.NewPCG(seed, 4)
	drawAny := func() int {
		i, _, err := reweighted.Draw(s, eps, src)
		if err != nil {
			panic(err)
		}
		return i
	}
	switch op {
	case Step, StepEps0:
		return func() {
			if err := s.Set(draw(), key(rng)); err != nil {
				panic(err)
			}
		}, bytes(before, after, n), nil
	case SingleStep, SingleStepEps0:
		// reweighted.Step: the Set of the item drawn last, then the next
		// draw, the same as Set then Draw.
		i := drawAny()
		return func() {
			var err error
			if i, _, err = reweighted.Step(s, eps, i, l.draw(rng), src); err != nil {
				panic(err)
			}
		}, bytes(before, after, n), nil
	case DrawOnly, DrawTies, DrawCutoff:
		up := false
		return func() {
			i := drawAny()
			up = !up
			if err := s.Set(i, nudge(s.Key(i), up)); err != nil {
				panic(err)
			}
		}, bytes(before, after, n), nil
	case SetOnly:
		return func() {
			if err := s.Set(rng.IntN(n), key(rng)); err != nil {
				panic(err)
			}
		}, bytes(before, after, n), nil
	case Sample, SampleCutoff:
		return func() { draw() }, bytes(before, after, n), nil
	case SolveCutoff:
		return func() {
			if _, _, err := s.Solve(eps); err != nil {
				panic(err)
			}
		}, bytes(before, after, n), nil
	}
	return nil, 0, fmt.Errorf("bench: unknown op %q", op)
}

// nudge returns a moved by one ulp, up or down: the update after each
// adversarial draw, which keeps the keys where they are to within a few
// ulps.
func nudge(a float64, up bool) float64 {
	if up {
		return math.Nextafter(a, math.Inf(1))
	}
	return math.Nextafter(a, 0)
}

// BatchSize is the mini-batch of BatchStep, as in the paper's experiments.
const BatchSize = 128

// PrepareBatch builds impl at size n with random keys from seed and returns
// one batch step as a function: m draws without replacement at ε = 1/(2n)
// (reweighted.DrawBatch), then a new key for each item drawn
// (reweighted.SetBatch). For gonum's Weighted, which has no batch
// operations and no ε, a step is m Take (its draw without replacement) and
// m Reweight of the items taken.
func PrepareBatch(impl Impl, n, m int, seed uint64) (run func(), err error) {
	return PrepareBatchOf(impl, n, m, seed, AbsNormal)
}

// PrepareBatchOf is PrepareBatch with keys of law l, the initial ones and
// those the batches set.
func PrepareBatchOf(impl Impl, n, m int, seed uint64, l KeyLaw) (run func(), err error) {
	return PrepareBatchAt(impl, n, m, seed, l, 1/float64(2*n))
}

// PrepareBatchAt is PrepareBatchOf at the bound eps in place of 1/(2n);
// gonum's Weighted, which has no bound, makes the same steps at any eps.
func PrepareBatchAt(impl Impl, n, m int, seed uint64, l KeyLaw, eps float64) (run func(), err error) {
	if n > impl.MaxN || m > n {
		return nil, fmt.Errorf("bench: %s does not run a batch of %d at n = %d", impl.Name, m, n)
	}
	rng := rand.New(rand.NewPCG(seed, uint64(n)))
	keys := make([]float64, n)
	for i := range keys {
		keys[i] = l.draw(rng)
	}
	if impl.SortedFill {
		slices.SortFunc(keys, func(a, b float64) int { return cmp.Compare(b, a) })
	}
	items, probs, batch := make([]int, m), make([]float64, m), make([]float64, m)
	if impl.gonum() {
		w := sampleuv.NewWeighted(keys, rand.NewPCG(seed, 1))
		return func() {
			for k := range items {
				i, ok := w.Take()
				if !ok {
					panic("bench: gonum Weighted is empty")
				}
				items[k] = i
			}
			for _, i := range items {
				w.Reweight(i, l.draw(rng))
			}
		}, nil
	}
	s := impl.dist(n)
	for i, a := range keys {
		if err := s.Set(i, a); err != nil {
			return nil, err
		}
	}
	src := rand.NewPCG(seed, 2)
	return func() {
		if err := reweighted.DrawBatch(s, eps, src, false, items, probs); err != nil {
			panic(err)
		}
		for k := range batch {
			batch[k] = l.draw(rng)
		}
		if err := reweighted.SetBatch(s, items, batch); err != nil {
			panic(err)
		}
	}, nil
}

// cutoffKeys replaces the smaller half of keys by the tie value of Lemma 1
// for the bound eps: the key a with a·(1 − (n − h − 1)ε) = ε·(S(h) + a), h
// the number of keys kept. Every tail rank is then exactly on its cutoff
// (each copy of a keeps the next rank's equation balanced), as long as the
// tie value rounds to a float exactly, which the loop ensures by scaling.
func cutoffKeys(keys []float64, eps float64) []float64 {
	n := len(keys)
	slices.SortFunc(keys, func(a, b float64) int { return cmp.Compare(b, a) })
	h := n / 2
	for {
		sum := new(big.Rat)
		for _, a := range keys[:h] {
			sum.Add(sum, new(big.Rat).SetFloat64(a))
		}
		epsR := new(big.Rat).SetFloat64(eps)
		c := new(big.Rat).Mul(big.NewRat(int64(n-h), 1), epsR)
		c.Sub(big.NewRat(1, 1), c)
		tie := new(big.Rat).Mul(epsR, sum)
		tie.Quo(tie, c)
		a, exact := tie.Float64()
		if exact || h == 1 {
			for r := h; r < n; r++ {
				keys[r] = a
			}
			break
		}
		// Not a float: round the largest key down a little and retry.
		keys[0] = math.Round(keys[0]*1024) / 1024
		h--
	}
	rng := rand.New(rand.NewPCG(uint64(n), 3))
	rng.Shuffle(n, func(i, j int) { keys[i], keys[j] = keys[j], keys[i] })
	return keys
}

// nearCutoffKeys replaces the smaller half of keys by keys within a relative
// 10^-9 of the tie value of Lemma 1 for the bound eps (the key a with
// a·(1 − (n − h − 1)ε) = ε·(S(h) + a), h the number of keys kept), spread
// at random on either side.
func nearCutoffKeys(keys []float64, eps float64, rng *rand.Rand) {
	n := len(keys)
	slices.SortFunc(keys, func(a, b float64) int { return cmp.Compare(b, a) })
	h := n / 2
	sum := 0.0
	for _, a := range keys[:h] {
		sum += a
	}
	tie := eps * sum / (1 - float64(n-h)*eps)
	for r := h; r < n; r++ {
		keys[r] = tie * (1 + 1e-9*(2*rng.Float64()-1))
	}
	rng.Shuffle(n, func(i, j int) { keys[i], keys[j] = keys[j], keys[i] })
}

// tieKeys keeps the largest of keys and replaces the n − 1 others by keys
// within a relative 10^-7 of each other just below the cutoff of Lemma 1
// for the bound eps, the tie value t = ε·a/(1 − (n − 1)ε) of the largest
// key a: t·(1 − r) with r uniform in [10^-8, 10^-7], at random places.
func tieKeys(keys []float64, eps float64, rng *rand.Rand) {
	n := len(keys)
	top := slices.Max(keys)
	tie := eps * top / (1 - float64(n-1)*eps)
	for r := range keys {
		keys[r] = tie * (1 - 1e-8*(1+9*rng.Float64()))
	}
	keys[rng.IntN(n)] = top
}

func bytes(before, after runtime.MemStats, n int) float64 {
	// In float64: at tiny n the heap can shrink between the two readings,
	// and an unsigned difference would wrap around.
	return max(0, float64(after.HeapAlloc)-float64(before.HeapAlloc)) / float64(max(n, 1))
}
