package srg

import (
	"errors"
	"fmt"
	"math"
	"sync"

	"github.com/reweighted/reweighted"
	"github.com/reweighted/reweighted/libsvm"
)

// Curve is one method's averaged trajectory.
type Curve struct {
	Method string `json:"method"`
	// Evals holds gradient evaluations divided by n.
	Evals []float64 `json:"epochs"`
	// Log10Err holds log10 of the mean over runs of ‖x_k − x*‖²/‖x0 − x*‖².
	Log10Err []float64 `json:"log10_err"`
	// Log10Var holds log10 of the mean over runs of σ²(x_k, p_k); nil when
	// not measured.
	Log10Var []float64 `json:"log10_var,omitempty"`
	// Log10ErrMin and Log10ErrMax hold the smallest and largest log10
	// relative error of a single run at each checkpoint: the spread over
	// runs.
	Log10ErrMin []float64 `json:"log10_err_min"`
	Log10ErrMax []float64 `json:"log10_err_max"`
	// Alpha holds the step α_k at each checkpoint (Trace.Alpha), the same
	// in every run: it shows the schedule the curve was run under.
	Alpha []float64 `json:"alpha"`
	// Seconds holds the mean over runs of the wall-clock time spent in
	// iterations up to each checkpoint (Trace.Seconds).
	Seconds []float64 `json:"seconds"`
	// Log10Subopt holds log10 of the mean over runs of the relative
	// suboptimality (F(x_k) − F(x*))/(F(x0) − F(x*)), and Log10SuboptMin
	// and Log10SuboptMax the smallest and largest of a single run; nil
	// unless measured (DatasetConfig.Suboptimality).
	Log10Subopt    []float64 `json:"log10_subopt,omitempty"`
	Log10SuboptMin []float64 `json:"log10_subopt_min,omitempty"`
	Log10SuboptMax []float64 `json:"log10_subopt_max,omitempty"`
}

// SyntheticConfig configures Synthetic. Zero fields take the paper's values.
type SyntheticConfig struct {
	// Runs per method (default 100) and Epochs per run (default 30).
	Runs, Epochs int
	// Seed seeds the data set (libsvm.Synthetic) and the runs.
	Seed uint64
	// NewSampler builds SRG's sampler; nil means levels.
	NewSampler func(n int) reweighted.Distribution
	// N and D are the size of the data set (default 1000 and 10).
	N, D int
	// PerEpoch is the number of checkpoints per epoch (default 4).
	PerEpoch int
	// Workers is the number of runs in flight at once (default 1).
	Workers int
	// Progress, if set, is called with the units done and the total: one
	// for x* and r, then one per run as it ends (from the run's goroutine,
	// one call at a time).
	Progress func(done, total int)
	// Bernoulli makes SRG update keys with probability ε/p, as Algorithm 1
	// does (the paper's experiments always update).
	Bernoulli bool
}

// SyntheticResult reports Synthetic.
type SyntheticResult struct {
	N int `json:"n"`
	D int `json:"d"`
	// RatioR is r = σ²/σ*² at x*.
	RatioR float64 `json:"ratio_r"`
	// Log10ErrSGD and Log10ErrSRG are the final accuracy levels: the mean of
	// the Log10Err curve over the last quarter of the run.
	Log10ErrSGD float64 `json:"log10_err_sgd"`
	Log10ErrSRG float64 `json:"log10_err_srg"`
	// Curves holds SGD and SRG, with Log10Var.
	Curves []Curve `json:"curves"`
	// Sigma2 and SigmaStar2 are σ² and σ*² at x*; L is max_i L_i and Alpha
	// = 1/(2L) the step; GradNorm certifies x*.
	Sigma2     float64 `json:"sigma2"`
	SigmaStar2 float64 `json:"sigma_star2"`
	L          float64 `json:"lmax"`
	Alpha      float64 `json:"alpha"`
	GradNorm   float64 `json:"grad_norm_at_xstar"`
	// Mu is the strong convexity of F (λ_min of AᵀA/n) and XStarSq is
	// ‖x*‖² = ‖x_0 − x*‖²: with Alpha and Sigma2 they place SGD's noise floor.
	Mu      float64 `json:"mu"`
	XStarSq float64 `json:"xstar_sqnorm"`
}

// Synthetic runs the experiment of the paper's supplement (Appendix D): least
// squares on libsvm.Synthetic (Gaussian features and weights, Cauchy noise),
// SGD against SRG, batch 1, α = 1/(2L) with L = max_i ‖a_i‖², ε = 1/(2n),
// g_0 = 0, x_0 = 0, averaged over Runs runs.
func Synthetic(cfg SyntheticConfig) (SyntheticResult, error) {
	if cfg.NewSampler == nil {
		cfg.NewSampler = defaultSampler
	}
	n, d := def(cfg.N, 1000), def(cfg.D, 10)
	runs, epochs, per := def(cfg.Runs, 100), def(cfg.Epochs, 30), def(cfg.PerEpoch, 4)
	ds := libsvm.Synthetic(cfg.Seed, n, d)
	p, err := NewProblem(ds, ds.Labels, Squared, 0)
	if err != nil {
		return SyntheticResult{}, err
	}
	sol, err := p.Solve(1e-12)
	if err != nil {
		return SyntheticResult{}, err
	}
	s2, ss2, err := Variances(p, sol.X, cfg.NewSampler)
	if err != nil {
		return SyntheticResult{}, err
	}
	L := p.Lmax()
	res := SyntheticResult{N: n, D: d, RatioR: s2 / ss2, Sigma2: s2, SigmaStar2: ss2, L: L, Alpha: 1 / (2 * L), GradNorm: sol.GradNorm,
		Mu: p.StrongConvexity(), XStarSq: sqdist(sol.X, make([]float64, d))}
	sched := Constant{Alpha: 1 / (2 * L), Eps: 1 / (2 * float64(n))}
	tick := newTicker(cfg.Progress, 1+2*runs)
	tick() // x* and r
	for mi, m := range []Method{SGD, SRG} {
		c, err := average(p, Options{
			Method: m, Schedule: sched, Batch: 1, NewSampler: cfg.NewSampler, Bernoulli: cfg.Bernoulli,
			Epochs: float64(epochs), PerEpoch: per, XStar: sol.X, Variance: true,
		}, runs, cfg.Seed, uint64(mi), def(cfg.Workers, 1), tick)
		if err != nil {
			return res, err
		}
		res.Curves = append(res.Curves, c)
	}
	res.Log10ErrSGD = tailMean(res.Curves[0].Log10Err)
	res.Log10ErrSRG = tailMean(res.Curves[1].Log10Err)
	return res, nil
}

// DatasetConfig configures Dataset. Zero fields take the paper's values.
type DatasetConfig struct {
	// Name labels the result; Path is a LIBSVM file (plain, gz or bz2).
	Name, Path string
	// Runs per method (default 10), Epochs per run (default 50), Batch
	// size (default 128).
	Runs, Epochs, Batch int
	Seed                uint64
	// NewSampler builds SRG's sampler; nil means levels.
	NewSampler func(n int) reweighted.Distribution
	// PerEpoch is the number of checkpoints per epoch (default 2).
	PerEpoch int
	// Workers is the number of runs in flight at once (default 1).
	Workers int
	// Data, if set, is used instead of reading Path.
	Data *libsvm.Dataset
	// PaperOnly runs only the curves of the paper's figure: SGD, SRG and
	// SVRG with the constant step, SGD, SRG and Reshuffled with the
	// decreasing steps.
	PaperOnly bool
	// WithReplacement draws mini-batches with replacement instead of the
	// paper's protocol (WithoutReplacement, the default).
	WithReplacement bool
	// Suboptimality makes the curves record the relative suboptimality
	// (Curve.Log10Subopt) as well: one pass over the data per checkpoint.
	Suboptimality bool
	// Progress, if set, is called with the units done and the total: one
	// for x* and r, then one per run as it ends (from the run's goroutine,
	// one call at a time).
	Progress func(done, total int)
}

// DatasetResult reports Dataset.
type DatasetResult struct {
	Name string `json:"name"`
	N    int    `json:"n"`
	D    int    `json:"d"`
	// Protocol is how the mini-batches were drawn.
	Protocol Protocol `json:"protocol"`
	// RatioR is r = σ²/σ*² at x*.
	RatioR float64 `json:"ratio_r"`
	// Constant and Decreasing hold the curves of SGD, SRG, Reshuffled and
	// SVRG (in that order, less those PaperOnly leaves out) under each
	// step-size schedule.
	Constant   []Curve `json:"constant"`
	Decreasing []Curve `json:"decreasing"`
	// FinalLog10 maps "constant/SRG", "decreasing/SGD", … to the last value
	// of the curve's Log10Err.
	FinalLog10 map[string]float64 `json:"final_log10"`
	// Sigma2, SigmaStar2: σ² and σ*² at x*. Lmax, L: smoothness of the f_i
	// and of F; BigL: the mini-batch smoothness 𝓛; Alpha = 1/(2𝓛), the
	// constant step; GradNorm certifies x*.
	Sigma2     float64 `json:"sigma2"`
	SigmaStar2 float64 `json:"sigma_star2"`
	Lmax       float64 `json:"lmax"`
	L          float64 `json:"l"`
	BigL       float64 `json:"minibatch_smoothness"`
	Alpha      float64 `json:"alpha"`
	GradNorm   float64 `json:"grad_norm_at_xstar"`
	// XStarFloor is (Solution.DistBound/‖x*‖)², with x0 = 0: a relative
	// error ℓ of the curves, measured against the computed x*, is within a
	// factor (1 ± √(XStarFloor/ℓ))² of the one against the exact minimiser,
	// so levels far above XStarFloor are exact to plotting accuracy.
	XStarFloor float64 `json:"xstar_rel_err_floor"`
	// Solver is the method that found x*.
	Solver Solver `json:"solver"`
	// F0 and FStar are F(x0) and F(x*) (Problem.Value), the ends of the
	// relative suboptimality; SuboptFloor bounds, relative to F0 − FStar,
	// how far F(x*) may sit above the exact minimum (‖∇F(x*)‖²/(2μ)) plus
	// the rounding of the two values: levels far above it are exact to
	// plotting accuracy. Zero unless DatasetConfig.Suboptimality.
	F0          float64 `json:"f_x0,omitempty"`
	FStar       float64 `json:"f_xstar,omitempty"`
	SuboptFloor float64 `json:"subopt_rel_floor,omitempty"`
	// XStarSq is ‖x0 − x*‖² = ‖x*‖², the scale of the relative error.
	XStarSq float64 `json:"xstar_sqnorm"`
}

// Dataset runs the experiments of Section 5 on one LIBSVM data set:
// ℓ2-regularised logistic regression with rows normalised to unit norm and
// μ = 1/n; SGD, SRG, reshuffled SGD and loopless SVRG (q = m/n) with
// mini-batches of m drawn as the paper does, without replacement (SRG:
// ordered successive sampling from p_k with DesRajWeights; see Protocol), first with the constant step α = 1/(2𝓛) (SRG: ε = 1/(2n)),
// then with the decreasing steps of Appendix C (SRG: ε_k = 𝓛α_k/n); x_0 = 0,
// g_0 = 0; each curve is averaged over Runs runs.
func Dataset(cfg DatasetConfig) (DatasetResult, error) {
	if cfg.NewSampler == nil {
		cfg.NewSampler = defaultSampler
	}
	ds := cfg.Data
	if ds == nil {
		var err error
		if ds, err = libsvm.ReadFile(cfg.Path); err != nil {
			return DatasetResult{}, err
		}
		ds.NormalizeRows()
	}
	runs, epochs, m, per := def(cfg.Runs, 10), def(cfg.Epochs, 50), def(cfg.Batch, 128), def(cfg.PerEpoch, 2)
	n := ds.Len()
	proto := WithoutReplacement
	if cfg.WithReplacement {
		proto = WithReplacement
	}
	if proto == WithoutReplacement && m > n {
		return DatasetResult{}, fmt.Errorf("%s: batch of %d without replacement from %d examples", cfg.Name, m, n)
	}
	p, err := NewProblem(ds, ds.Labels, Logistic, 1/float64(n))
	if err != nil {
		return DatasetResult{}, err
	}
	sol, err := p.Solve(1e-12)
	if err != nil {
		return DatasetResult{}, fmt.Errorf("%s: %w", cfg.Name, err)
	}
	s2, ss2, err := Variances(p, sol.X, cfg.NewSampler)
	if err != nil {
		return DatasetResult{}, err
	}
	res := DatasetResult{
		Name: cfg.Name, N: n, D: ds.Dim(), Protocol: proto, RatioR: s2 / ss2, Sigma2: s2, SigmaStar2: ss2,
		Lmax: p.Lmax(), L: p.L(), GradNorm: sol.GradNorm, FinalLog10: map[string]float64{},
		XStarFloor: math.Pow(sol.DistBound, 2) / sqdist(sol.X, make([]float64, ds.Dim())), Solver: sol.Solver,
		XStarSq: sqdist(sol.X, make([]float64, ds.Dim())),
	}
	res.BigL = MiniBatchSmoothness(n, m, res.Lmax, res.L)
	res.Alpha = 1 / (2 * res.BigL)
	if cfg.Suboptimality {
		res.F0, res.FStar, res.SuboptFloor = suboptEnds(p, sol)
	}
	curves := 8
	if cfg.PaperOnly {
		curves = 6
	}
	tick := newTicker(cfg.Progress, 1+curves*runs)
	tick() // x* and r
	for si, sched := range []Schedule{ExperimentalConstant(n, res.BigL), Experimental(n, res.BigL, p.Mu)} {
		name := [...]string{"constant", "decreasing"}[si]
		for mi, meth := range []Method{SGD, SRG, Reshuffled, SVRG} {
			if cfg.PaperOnly && meth == [...]Method{Reshuffled, SVRG}[si] {
				continue
			}
			c, err := average(p, Options{
				Method: meth, Schedule: sched, Batch: m, Protocol: proto, NewSampler: cfg.NewSampler,
				Epochs: float64(epochs), PerEpoch: per, XStar: sol.X, Suboptimality: cfg.Suboptimality,
			}, runs, cfg.Seed, uint64(10*si+mi), def(cfg.Workers, 1), tick)
			if err != nil {
				return res, fmt.Errorf("%s %s %v: %w", cfg.Name, name, meth, err)
			}
			res.FinalLog10[name+"/"+meth.String()] = c.Log10Err[len(c.Log10Err)-1]
			if si == 0 {
				res.Constant = append(res.Constant, c)
			} else {
				res.Decreasing = append(res.Decreasing, c)
			}
		}
	}
	return res, nil
}

// Variances returns σ² = σ²(x, 1/n) and σ*² = σ²(x, p*) at x, where p* is
// the minimiser of Lemma 1 with ε = 0 computed by a sampler holding the
// gradient norms ‖∇f_i(x)‖ as keys. σ²/σ*² is the ratio r of the paper.
func Variances(p *Problem, x []float64, newSampler func(n int) reweighted.Distribution) (sigma2, sigmaStar2 float64, err error) {
	norms := p.GradNorms(x)
	s := newSampler(len(norms))
	for i, a := range norms {
		if err := s.Set(i, a); err != nil {
			return 0, 0, err
		}
	}
	ps := make([]float64, len(norms))
	head := append([]float64(nil), norms...)
	for i := range ps {
		if ps[i], err = s.Prob(i, 0); err != nil {
			return 0, 0, err
		}
		if ps[i] == 0 {
			// A positive norm whose p* rounds to 0: its term a²/p* = a·λ
			// is p* < 2^-1075 of (Σa)² ≤ n²σ*², below rounding, where a²/0
			// would be NaN or +Inf.
			head[i] = 0
		}
	}
	return UniformVariance(norms), Variance(head, ps), nil
}

// average runs o with seeds (seed, stream, run) for run in [0, runs) and
// averages the traces checkpoint by checkpoint.
// tick, if not nil, is called after each run.
func average(p *Problem, o Options, runs int, seed, stream uint64, workers int, tick func()) (Curve, error) {
	traces := make([]Trace, runs)
	errs := make([]error, runs)
	var wg sync.WaitGroup
	sem := make(chan struct{}, max(workers, 1))
	for r := range runs {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			or := o
			or.Seed = seed ^ (stream+1)*0x9e3779b97f4a7c15 ^ uint64(r)*0xbf58476d1ce4e5b9
			traces[r], errs[r] = Run(p, or)
			if tick != nil {
				tick()
			}
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return Curve{}, err
	}
	c := Curve{Method: o.Method.String(), Evals: traces[0].Evals, Alpha: traces[0].Alpha}
	c.Log10Err = meanLog10(traces, func(t Trace) []float64 { return t.RelErr })
	if o.XStar != nil {
		c.Log10ErrMin, c.Log10ErrMax = spreadLog10(traces)
	}
	c.Seconds = make([]float64, len(c.Evals))
	for _, t := range traces {
		for k, s := range t.Seconds {
			c.Seconds[k] += s / float64(runs)
		}
	}
	if o.Variance {
		c.Log10Var = meanLog10(traces, func(t Trace) []float64 { return t.Var })
	}
	if o.Suboptimality {
		c.Log10Subopt, c.Log10SuboptMin, c.Log10SuboptMax = relSubopt(traces)
	}
	return c, nil
}

func meanLog10(traces []Trace, get func(Trace) []float64) []float64 {
	out := make([]float64, len(get(traces[0])))
	for _, t := range traces {
		for k, v := range get(t) {
			out[k] += v
		}
	}
	for k := range out {
		out[k] = math.Log10(out[k] / float64(len(traces)))
	}
	return out
}

// spreadLog10 returns, at each checkpoint, the smallest and largest log10
// relative error of a single run.
func spreadLog10(traces []Trace) (lo, hi []float64) {
	k := len(traces[0].RelErr)
	lo, hi = make([]float64, k), make([]float64, k)
	for j := range k {
		lo[j], hi[j] = math.Inf(1), math.Inf(-1)
		for _, t := range traces {
			v := math.Log10(t.RelErr[j])
			lo[j], hi[j] = math.Min(lo[j], v), math.Max(hi[j], v)
		}
	}
	return lo, hi
}

// tailMean is the mean of the last quarter of xs.
func tailMean(xs []float64) float64 {
	k := len(xs) - max(len(xs)/4, 1)
	var s float64
	for _, v := range xs[k:] {
		s += v
	}
	return s / float64(len(xs)-k)
}

func def(v, d int) int {
	if v == 0 {
		return d
	}
	return v
}
