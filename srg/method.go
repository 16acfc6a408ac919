package srg

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/reweighted/reweighted"
	"github.com/reweighted/reweighted/levels"
)

// defaultSampler is SRG's sampler when none is given: levels, the fastest
// sampler exact in law (btree is the fastest map-exact one).
func defaultSampler(n int) reweighted.Distribution { return levels.New(n) }

// Method selects an optimiser.
type Method int

const (
	// SGD samples the examples of a mini-batch uniformly (with or without
	// replacement, as Options.Protocol says).
	SGD Method = iota
	// Reshuffled is SGD that walks through a fresh random permutation of
	// the examples every epoch.
	Reshuffled
	// SRG is Algorithm 1: importance sampling from p_k of Lemma 1, built on
	// the last seen gradient norm of each example.
	SRG
	// SVRG is loopless SVRG (Hofmann et al. 2015; Kovalev et al. 2020): the
	// control variate ∇f_i(w) − ∇F(w), with the reference point w moved to
	// the current iterate with probability q per iteration.
	SVRG
)

var methodNames = [...]string{"SGD", "Reshuffled", "SRG", "SVRG"}

func (m Method) String() string {
	if m >= 0 && int(m) < len(methodNames) {
		return methodNames[m]
	}
	return fmt.Sprintf("Method(%d)", int(m))
}

// Options configure one run of an optimiser.
type Options struct {
	// Method selects the optimiser.
	Method Method
	// Schedule gives α_k and ε_k (ε_k is used by SRG only).
	Schedule Schedule
	// Batch is the mini-batch size m ≥ 1 (0 means 1). How SGD, SRG and
	// SVRG draw the m indices, and how SRG weights them so that the
	// mini-batch average is unbiased, is set by Protocol.
	Batch int
	// Protocol is WithReplacement (the zero value: independent draws, SRG
	// weights 1/(n p^i)) or WithoutReplacement (the paper's experiments: m
	// distinct examples, SRG weighted by DesRajWeights). Without
	// replacement needs Batch ≤ n.
	Protocol Protocol
	// NewSampler builds the importance sampler of SRG, of either kind; nil
	// means levels, the fastest, which is exact in law (btree is the fastest
	// map-exact one). The sampler starts with all keys 0, so the first
	// draws are uniform: the paper's g_0 = 0.
	NewSampler func(n int) reweighted.Distribution
	// Bernoulli makes SRG update the key of a drawn example only with
	// probability ε_k/p_k^i, as Algorithm 1 and its analysis do. By default
	// the key is always updated, as in the paper's experiments.
	Bernoulli bool
	// Q is SVRG's probability of a full gradient per iteration; 0 means m/n,
	// so an iteration costs on average 3m gradients.
	Q float64
	// Seed seeds the run's random source (math/rand/v2 PCG).
	Seed uint64
	// X0 is the starting point; nil means 0.
	X0 []float64
	// Epochs is the budget, in gradient evaluations divided by n.
	Epochs float64
	// PerEpoch is the number of checkpoints per epoch (0 means 1).
	PerEpoch int
	// XStar, if set, makes the trace record ‖x − x*‖²/‖x0 − x*‖².
	XStar []float64
	// Suboptimality makes the trace record F(x_k) − F(x*) as well; it needs
	// XStar and costs one pass over the data (Problem.Value) per checkpoint.
	Suboptimality bool
	// Variance makes the trace record σ²(x_k, p_k) = (1/n²)Σ‖∇f_i(x_k)‖²/p_k^i,
	// with p_k uniform for the methods other than SRG. It costs O(n) per
	// checkpoint.
	Variance bool
	// Checkpoint, if set, is called after each checkpoint is recorded, the
	// first (before any iteration) and the last included, with the state
	// of the run, which it may save (State.MarshalBinary, SaveFile) for
	// Resume. st is valid until Checkpoint returns. An error stops the run:
	// Run returns the trace so far and the error, wrapped (ErrStop is the
	// conventional one for a stop on purpose, at a budget of steps or time).
	Checkpoint func(st *State) error
}

// Trace is what a run records at each checkpoint.
type Trace struct {
	// Evals holds the gradient evaluations divided by n at each checkpoint:
	// 0, 1/PerEpoch, 2/PerEpoch, …, Epochs (the nominal grid; the state
	// recorded is the first one at or past it).
	Evals []float64
	// RelErr holds ‖x − x*‖²/‖x0 − x*‖² (nil without XStar).
	RelErr []float64
	// Subopt holds F(x_k) − F(x*), both computed by Problem.Value (nil
	// unless Suboptimality is set). Rounding can make it slightly negative
	// near x*.
	Subopt []float64
	// Var holds σ²(x_k, p_k) (nil unless Variance is set).
	Var []float64
	// Alpha holds the step α_k of the schedule at each checkpoint: that of
	// the last iteration before it (of the first, before any; 0 if no
	// iteration ran), so a trace shows which schedule produced it.
	Alpha []float64
	// Seconds holds the wall-clock time spent in iterations (drawing,
	// gradients, updates; not the recording of checkpoints) up to each
	// checkpoint.
	Seconds []float64
	// X is the final iterate.
	X []float64
	// Iterations is the number of iterations run, GradEvals the number of
	// per-example gradients evaluated, KeyUpdates the number of SRG key
	// updates.
	Iterations, GradEvals, KeyUpdates int
}

// draw is one index of a mini-batch and its importance weight 1/(n p^i).
type draw struct {
	i int
	w float64
	p float64
}

// optimizer holds the state of one run.
type optimizer struct {
	prob *Problem
	o    Options
	n, m int
	src  *rand.PCG
	rng  *rand.Rand
	x    *iterate
	k    int
	// evals counts per-example gradient evaluations.
	evals int
	// keyUpdates counts the keys updated in the sampler.
	keyUpdates int
	// alpha holds the step of the first iteration and of the last, for
	// Trace.Alpha.
	alpha [2]float64

	smp reweighted.Distribution // SRG

	perm []int // Reshuffled
	pos  int

	w, gw, h []float64 // SVRG: reference point, ∇F(w), μw − ∇F(w)
	xOld     []float64

	draws []draw
	coef  []float64
	marg  []float64 // SRG: a_iᵀx of each draw
	rowSq []float64 // SRG: ‖a_i‖² of each draw

	items []int     // SRG, and SGD and SVRG without replacement: the batch drawn
	probs []float64 // SRG: the probabilities of its items
	ws    []float64 // SRG's Des Raj weights
	upos  []int     // SGD and SVRG: the permutation of the partial shuffle

	updItems []int     // SRG: the examples whose keys the batch updates
	updKeys  []float64 // and their new keys

	// SRG with batches of 1: the key of the last iteration's example, not
	// set yet when pending, so that the next draw sets it and draws in one
	// reweighted.Step; flush sets it alone.
	pending bool
	pendI   int
	pendA   float64

	// SRG: the sampler's own DrawBatch and SetBatch, if it has them, which
	// the package functions would call after checking again what they check.
	drawer reweighted.LawSampler
	setter reweighted.BatchSetter
}

// newOptimizer returns the optimizer of a run that begins: buildOptimizer's,
// with SVRG's first full gradient taken.
func newOptimizer(p *Problem, o Options) (*optimizer, error) {
	opt, err := buildOptimizer(p, o)
	if err != nil {
		return nil, err
	}
	opt.start()
	return opt, nil
}

// start takes SVRG's first reference point, x0, and its full gradient.
func (opt *optimizer) start() {
	if opt.o.Method != SVRG {
		return
	}
	opt.x.dense(opt.w)
	opt.refresh()
	opt.x.setDirection(opt.h)
}

// buildOptimizer checks o and allocates a run's state at x0, before any
// gradient: start begins a run from it, restore resumes one.
func buildOptimizer(p *Problem, o Options) (*optimizer, error) {
	n, d := p.Len(), p.Dim()
	if o.Batch == 0 {
		o.Batch = 1
	}
	if o.Batch < 0 {
		return nil, fmt.Errorf("%w: batch size %d", ErrInput, o.Batch)
	}
	if o.Schedule == nil {
		return nil, fmt.Errorf("%w: no schedule", ErrInput)
	}
	if o.X0 == nil {
		o.X0 = make([]float64, d)
	}
	if len(o.X0) != d {
		return nil, fmt.Errorf("%w: x0 has length %d, want %d", ErrInput, len(o.X0), d)
	}
	src := rand.NewPCG(o.Seed, 0x9e3779b97f4a7c15)
	opt := &optimizer{
		prob: p, o: o, n: n, m: o.Batch,
		src: src, rng: rand.New(src),
		draws: make([]draw, o.Batch),
		coef:  make([]float64, o.Batch),
	}
	switch o.Protocol {
	case WithReplacement:
	case WithoutReplacement:
		if o.Batch > n {
			return nil, fmt.Errorf("%w: batch of %d without replacement from %d examples", ErrInput, o.Batch, n)
		}
		opt.items = make([]int, o.Batch)
		opt.probs = make([]float64, o.Batch)
		opt.ws = make([]float64, o.Batch)
		if o.Method == SGD || o.Method == SVRG {
			opt.upos = make([]int, n)
			for i := range opt.upos {
				opt.upos[i] = i
			}
		}
	default:
		return nil, fmt.Errorf("%w: unknown protocol %v", ErrInput, o.Protocol)
	}
	track := o.Method == SRG && p.Mu != 0
	// ‖x‖² summed afresh per iteration costs d multiply-adds, at most 8
	// per example of the batch here; followed through the updates, it costs
	// a few operations and a chain of additions per non-zero of the batch's
	// rows. The choice depends on d and m only, so that a dense matrix and
	// its sparse form take the same steps, bit for bit.
	recompute := d <= 8*o.Batch
	opt.x = newIterate(o.X0, track, recompute)
	switch o.Method {
	case SGD:
	case Reshuffled:
		opt.perm = make([]int, n)
		for i := range opt.perm {
			opt.perm[i] = i
		}
		opt.pos = n
	case SRG:
		if opt.items == nil {
			opt.items = make([]int, o.Batch)
			opt.probs = make([]float64, o.Batch)
		}
		opt.marg, opt.rowSq = make([]float64, o.Batch), make([]float64, o.Batch)
		opt.updItems = make([]int, o.Batch)
		opt.updKeys = make([]float64, o.Batch)
		newSampler := o.NewSampler
		if newSampler == nil {
			newSampler = defaultSampler
		}
		opt.smp = newSampler(n)
		if opt.smp.Len() != n {
			return nil, fmt.Errorf("%w: sampler has %d items, want %d", ErrInput, opt.smp.Len(), n)
		}
		opt.drawer, _ = opt.smp.(reweighted.LawSampler)
		opt.setter, _ = opt.smp.(reweighted.BatchSetter)
	case SVRG:
		if o.Q == 0 {
			opt.o.Q = math.Min(1, float64(o.Batch)/float64(n))
		}
		if !(opt.o.Q > 0 && opt.o.Q <= 1) {
			return nil, fmt.Errorf("%w: SVRG probability q = %v", ErrInput, opt.o.Q)
		}
		opt.w = make([]float64, d)
		opt.gw = make([]float64, d)
		opt.h = make([]float64, d)
		opt.xOld = make([]float64, d)
	default:
		return nil, fmt.Errorf("%w: unknown method %v", ErrInput, o.Method)
	}
	return opt, nil
}

// refresh computes ∇F(w) for SVRG's new reference point.
func (opt *optimizer) refresh() {
	opt.evals += opt.prob.FullGrad(opt.w, opt.gw)
	for j := range opt.h {
		opt.h[j] = opt.prob.Mu*opt.w[j] - opt.gw[j]
	}
}

// weight returns the importance weight 1/(n p). Under ε = 1/float64(n) p is
// uniform (Lemma 1), and the weight is exactly 1, so that SRG then repeats
// SGD's steps bit for bit (a float p can be an ulp away from 1/n).
func weight(n int, eps, p float64) float64 {
	if eps == 1/float64(n) {
		return 1
	}
	return 1 / (float64(n) * p)
}

// sampleBatch fills opt.draws for iteration k.
func (opt *optimizer) sampleBatch(eps float64) error {
	if opt.o.Protocol == WithoutReplacement && opt.o.Method != Reshuffled {
		return opt.sampleDistinct(eps)
	}
	switch opt.o.Method {
	case SGD, SVRG:
		for j := range opt.draws {
			opt.draws[j] = draw{i: opt.rng.IntN(opt.n), w: 1}
		}
	case Reshuffled:
		for j := range opt.draws {
			if opt.pos == opt.n {
				opt.rng.Shuffle(opt.n, func(a, b int) { opt.perm[a], opt.perm[b] = opt.perm[b], opt.perm[a] })
				opt.pos = 0
			}
			opt.draws[j] = draw{i: opt.perm[opt.pos], w: 1}
			opt.pos++
		}
	case SRG:
		if err := opt.drawBatch(eps, true); err != nil {
			return err
		}
		// Slices of the batch's length, so that the loop checks no index.
		items := opt.items
		probs, draws := opt.probs[:len(items)], opt.draws[:len(items)]
		for j, i := range items {
			p := probs[j]
			draws[j] = draw{i: i, w: weight(opt.n, eps, p), p: p}
		}
	}
	return nil
}

// drawBatch fills opt.items and opt.probs with SRG's draws from the
// sampler, as reweighted.DrawBatch does; a batch of 1 is drawSingle's.
// Its errors name the iteration.
func (opt *optimizer) drawBatch(eps float64, replace bool) error {
	if opt.m == 1 {
		return opt.drawSingle(eps)
	}
	var err error
	if opt.drawer != nil {
		err = opt.drawer.DrawBatch(eps, opt.src, replace, opt.items, opt.probs)
	} else {
		err = reweighted.DrawBatch(opt.smp, eps, opt.src, replace, opt.items, opt.probs)
	}
	if err != nil {
		return fmt.Errorf("srg: iteration %d: %w", opt.k, err)
	}
	return nil
}

// drawSingle draws SRG's single sample into opt.items[0], opt.probs[0]:
// with reweighted.Step when the last iteration's key is pending, which sets
// it and draws in one call, else with reweighted.Draw (the first draw of a
// run or of a resume, or after a Bernoulli update not made). A map-exact
// sampler and levels draw with Draw the item that DrawBatch draws for a
// batch of one, from the same numbers of src, so that a run is the one it
// was when SRG called Set and DrawBatch.
func (opt *optimizer) drawSingle(eps float64) error {
	if opt.pending {
		i, p, err := reweighted.Step(opt.smp, eps, opt.pendI, opt.pendA, opt.src)
		if err == nil {
			opt.pending = false
			opt.keyUpdates++
			opt.items[0], opt.probs[0] = i, p
			return nil
		}
		// A rejected Step changes nothing and uses no randomness, so Set
		// alone tells whether the key was bad: the error of the iteration
		// that computed it, as when that iteration set it. If not, Draw
		// reports the draw's error.
		if err := opt.flush(); err != nil {
			return err
		}
	}
	i, p, err := reweighted.Draw(opt.smp, eps, opt.src)
	if err != nil {
		return fmt.Errorf("srg: iteration %d: %w", opt.k, err)
	}
	opt.items[0], opt.probs[0] = i, p
	return nil
}

// flush sets the key that the last iteration left pending, if any.
func (opt *optimizer) flush() error {
	if !opt.pending {
		return nil
	}
	opt.pending = false
	if err := opt.smp.Set(opt.pendI, opt.pendA); err != nil {
		return fmt.Errorf("srg: iteration %d: key update: %w", opt.k-1, err)
	}
	opt.keyUpdates++
	return nil
}

// sampleDistinct fills opt.draws with m distinct examples: uniformly for
// SGD and SVRG (each weighted 1), by ordered successive sampling from p_k
// for SRG, with Des Raj's weights (weight 1 when p_k is uniform, ε = 1/n,
// where the plain mean is unbiased).
func (opt *optimizer) sampleDistinct(eps float64) error {
	if opt.o.Method != SRG {
		uniformBatch(opt.upos, opt.items, opt.rng.IntN)
		for j, i := range opt.items {
			opt.draws[j] = draw{i: i, w: 1}
		}
		return nil
	}
	if err := opt.drawBatch(eps, false); err != nil {
		return err
	}
	// Slices of the batch's length, so that the loops check no index.
	items := opt.items
	probs, draws := opt.probs[:len(items)], opt.draws[:len(items)]
	if eps == 1/float64(opt.n) {
		for j, i := range items {
			draws[j] = draw{i: i, w: 1, p: probs[j]}
		}
		return nil
	}
	ws := opt.ws[:len(items)]
	DesRajWeights(opt.n, probs, ws)
	for j, i := range items {
		draws[j] = draw{i: i, w: ws[j], p: probs[j]}
	}
	return nil
}

// step runs one iteration.
func (opt *optimizer) step() error {
	alpha, eps := opt.o.Schedule.At(opt.k)
	if opt.k == 0 {
		opt.alpha[0] = alpha
	}
	opt.alpha[1] = alpha
	if opt.o.Method == SRG {
		if err := checkEps(eps, opt.n); err != nil {
			if ferr := opt.flush(); ferr != nil {
				return ferr // the error of the iteration before
			}
			return err
		}
	}
	if err := opt.sampleBatch(eps); err != nil {
		return err
	}
	if err := opt.apply(alpha, eps); err != nil {
		return err
	}
	opt.k++
	return nil
}

// apply performs the update of iteration k on the drawn mini-batch:
//
//	x ← x − (α/m) Σ_j w_j ∇f_{i_j}(x)        (SGD, Reshuffled, SRG)
//
// with all gradients taken at the current x, then SRG's key updates and
// SVRG's reference update.
func (opt *optimizer) apply(alpha, eps float64) error {
	p, x, mu := opt.prob, opt.x, opt.prob.Mu
	mf := float64(opt.m)
	isSRG := opt.o.Method == SRG
	var wsum, sq float64
	if isSRG {
		// Slices of the batch's length, so that the loops check no index.
		draws := opt.draws
		marg, rowSq, coef := opt.marg[:len(draws)], opt.rowSq[:len(draws)], opt.coef[:len(draws)]
		for j, dr := range draws {
			idx, val := p.Rows.Row(dr.i)
			// ‖a_i‖² summed from the row being read, rather than read from
			// p.rowSq at random, which would add a cache miss per example.
			t, aa := x.dotSq(idx, val)
			marg[j], rowSq[j] = t, aa
			coef[j] = p.deriv(dr.i, t)
			wsum += dr.w
		}
		sq = x.sqnorm() // at the x of the gradients, for the keys
	} else {
		for j, dr := range opt.draws {
			idx, val := p.Rows.Row(dr.i)
			opt.coef[j] = p.deriv(dr.i, x.dot(idx, val))
			wsum += dr.w
		}
	}
	opt.evals += opt.m
	if opt.o.Method == SVRG {
		return opt.applySVRG(alpha)
	}
	x.scale(1 - alpha*mu*wsum/mf)
	if !isSRG {
		for j, dr := range opt.draws {
			idx, val := p.Rows.Row(dr.i)
			x.addRow(-alpha/mf*dr.w*opt.coef[j], idx, val)
		}
		return nil
	}
	// The keys, ‖∇f_i(x)‖ at the x of the gradients, are computed in the
	// pass of the updates: their square roots, independent of one another,
	// overlap with the updates' loads and stores, where in the pass of the
	// gradients each would wait for its exp.
	draws := opt.draws
	items, keys := opt.updItems[:len(draws)], opt.updKeys[:len(draws)]
	marg, rowSq, coef := opt.marg[:len(draws)], opt.rowSq[:len(draws)], opt.coef[:len(draws)]
	for j, dr := range draws {
		c := coef[j]
		items[j], keys[j] = dr.i, normOf(c, marg[j], rowSq[j], sq, mu)
		idx, val := p.Rows.Row(dr.i)
		x.addRow(-alpha/mf*dr.w*c, idx, val)
	}
	if opt.o.Bernoulli {
		kept := 0
		for j, dr := range opt.draws {
			if opt.rng.Float64() < eps/dr.p {
				items[kept], keys[kept] = items[j], keys[j]
				kept++
			}
		}
		items, keys = items[:kept], keys[:kept]
	}
	// A repeated example (with replacement) gets the same key from each
	// draw, all at the same x, so SetBatch's last-key rule changes nothing.
	// The single key of a batch of 1 waits for the next draw; a single
	// key of a larger batch (one Bernoulli success) goes to Set, which
	// SetBatch of one entry equals and which no batch path can beat. A
	// sampler with a SetBatch of its own is called directly: the package
	// function would only check again what it checks.
	var err error
	switch {
	case len(items) == 1 && opt.m == 1:
		// SRG's single-sample path: the key is set by the next draw's
		// reweighted.Step, or by flush before anything reads the sampler.
		opt.pending, opt.pendI, opt.pendA = true, items[0], keys[0]
		return nil
	case len(items) == 1:
		err = opt.smp.Set(items[0], keys[0])
	case opt.setter != nil:
		err = opt.setter.SetBatch(items, keys)
	default:
		err = reweighted.SetBatch(opt.smp, items, keys)
	}
	if err != nil {
		return fmt.Errorf("srg: iteration %d: key update: %w", opt.k, err)
	}
	opt.keyUpdates += len(items)
	return nil
}

// applySVRG performs x ← x − α[(1/m)Σ_j (∇f_{i_j}(x) − ∇f_{i_j}(w)) + ∇F(w)].
// The μ parts give (1 − αμ)x + α(μw − ∇F(w)).
func (opt *optimizer) applySVRG(alpha float64) error {
	p, x := opt.prob, opt.x
	mf := float64(opt.m)
	opt.evals += opt.m // the gradients at w
	for j, dr := range opt.draws {
		opt.coef[j] -= p.deriv(dr.i, p.margin(dr.i, opt.w))
	}
	refresh := opt.rng.Float64() < opt.o.Q
	if refresh {
		x.dense(opt.xOld)
	}
	x.scale(1 - alpha*p.Mu)
	x.addDirection(alpha) // + α·h in O(1): x keeps h lazily
	for j, dr := range opt.draws {
		idx, val := p.Rows.Row(dr.i)
		x.addRow(-alpha/mf*opt.coef[j], idx, val)
	}
	if refresh {
		opt.w, opt.xOld = opt.xOld, opt.w
		x.fold() // h changes now: O(d), once per refresh, like ∇F(w)
		opt.refresh()
	}
	return nil
}

// Run runs one optimiser on p until Epochs·n gradient evaluations and
// records a checkpoint every n/PerEpoch evaluations. With Options.Checkpoint
// it hands the run's State to the caller at every checkpoint, which may save
// it and stop the run; Resume goes on from a saved State.
func Run(p *Problem, o Options) (Trace, error) {
	r, err := newRun(p, o, nil)
	if err != nil {
		return Trace{}, err
	}
	return r.loop()
}

// run is one run in progress: the optimizer, the trace so far and what the
// checkpoints need.
type run struct {
	p          *Problem
	opt        *optimizer
	o          Options // as the optimizer completed them
	per, total int     // checkpoints per epoch, and the index of the last
	e0, fStar  float64 // ‖x0 − x*‖² and F(x*)
	xd         []float64
	tr         Trace
	busy       time.Duration // spent in iterations so far
	before     int           // checkpoints recorded before the first iteration
	// x0Sum and xStarSum fingerprint X0 and XStar, for Resume's check.
	x0Sum, xStarSum uint64
}

// newRun checks o and returns a run at its start, or, with st, at st.
func newRun(p *Problem, o Options, st *State) (*run, error) {
	var opt *optimizer
	var err error
	if st == nil {
		opt, err = newOptimizer(p, o)
	} else {
		opt, err = buildOptimizer(p, o)
	}
	if err != nil {
		return nil, err
	}
	o = opt.o
	r := &run{p: p, opt: opt, o: o, per: max(o.PerEpoch, 1), x0Sum: fingerprint(o.X0), xStarSum: fingerprint(o.XStar)}
	r.total = int(math.Round(o.Epochs * float64(r.per)))
	if !(o.Epochs >= 0) || r.total < 0 {
		return nil, fmt.Errorf("%w: epochs = %v", ErrInput, o.Epochs)
	}
	d := p.Dim()
	r.xd = make([]float64, d)
	if o.Suboptimality && o.XStar == nil {
		return nil, fmt.Errorf("%w: Suboptimality needs XStar", ErrInput)
	}
	if o.XStar != nil {
		if len(o.XStar) != d {
			return nil, fmt.Errorf("%w: x* has length %d, want %d", ErrInput, len(o.XStar), d)
		}
		r.e0 = sqdist(o.X0, o.XStar)
		if r.e0 == 0 {
			return nil, fmt.Errorf("%w: x0 = x*; the relative error is undefined", ErrInput)
		}
	}
	if st != nil {
		if err := r.restore(st); err != nil {
			return nil, err
		}
	}
	if o.Suboptimality {
		r.fStar = p.Value(o.XStar)
	}
	return r, nil
}

// record appends checkpoint t to the trace.
func (r *run) record(t int) error {
	opt, o, tr := r.opt, r.o, &r.tr
	tr.Evals = append(tr.Evals, float64(t)/float64(r.per))
	tr.Seconds = append(tr.Seconds, r.busy.Seconds())
	tr.Alpha = append(tr.Alpha, opt.alpha[1])
	if opt.k == 0 {
		r.before++
	}
	opt.x.dense(r.xd)
	if o.XStar != nil {
		tr.RelErr = append(tr.RelErr, sqdist(r.xd, o.XStar)/r.e0)
	}
	if o.Suboptimality {
		tr.Subopt = append(tr.Subopt, r.p.Value(r.xd)-r.fStar)
	}
	if o.Variance {
		v, err := opt.variance(r.xd)
		if err != nil {
			return err
		}
		tr.Var = append(tr.Var, v)
	}
	return nil
}

// loop runs from the next checkpoint to the last and returns the trace.
func (r *run) loop() (Trace, error) {
	opt := r.opt
	n := float64(r.p.Len())
	for t := len(r.tr.Evals); t <= r.total; t++ {
		target := float64(t) * n / float64(r.per)
		if float64(opt.evals) < target {
			t0 := time.Now()
			for float64(opt.evals) < target {
				if err := opt.step(); err != nil {
					return r.tr, err
				}
			}
			// The last key, before the checkpoint reads the sampler.
			if err := opt.flush(); err != nil {
				return r.tr, err
			}
			r.busy += time.Since(t0)
		}
		if opt.x.track {
			opt.x.fold() // bound the drift of ‖v‖²
		}
		if err := r.record(t); err != nil {
			return r.tr, err
		}
		if r.o.Checkpoint != nil {
			if err := r.o.Checkpoint(r.state()); err != nil {
				return r.result(), fmt.Errorf("srg: checkpoint %d: %w", t, err)
			}
		}
	}
	tr := r.result()
	for _, v := range tr.X {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return tr, errors.New("srg: the iterate diverged")
		}
	}
	return tr, nil
}

// result returns the trace so far, its slices the run's own, with the final
// iterate and counts.
func (r *run) result() Trace {
	tr := r.tr
	if r.opt.k > 0 {
		for j := range r.before {
			tr.Alpha[j] = r.opt.alpha[0] // these came before the first step
		}
	}
	tr.X = make([]float64, r.p.Dim())
	r.opt.x.dense(tr.X)
	tr.Iterations, tr.GradEvals, tr.KeyUpdates = r.opt.k, r.opt.evals, r.opt.keyUpdates
	return tr
}

// variance returns σ²(x, p_k) for the distribution the method samples from
// at iteration k.
func (opt *optimizer) variance(x []float64) (float64, error) {
	norms := opt.prob.GradNorms(x)
	if opt.o.Method != SRG {
		return UniformVariance(norms), nil
	}
	_, eps := opt.o.Schedule.At(opt.k)
	ps := make([]float64, opt.n)
	for i := range ps {
		pi, err := opt.smp.Prob(i, eps)
		if err != nil {
			return 0, err
		}
		ps[i] = pi
	}
	return Variance(norms, ps), nil
}

func sqdist(a, b []float64) float64 {
	var s float64
	for i := range a {
		d := a[i] - b[i]
		s += d * d
	}
	return s
}
