package srg

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/reweighted/reweighted"
	"github.com/reweighted/reweighted/libsvm"
	"github.com/reweighted/reweighted/naive"
)

func newNaive(n int) reweighted.Distribution { return naive.New(n) }

// genProblem draws a small sparse problem: logistic with μ > 0 or least
// squares with μ ≥ 0, rows with random sparsity (some rows empty).
func genProblem(t *rapid.T) *Problem {
	n := rapid.IntRange(1, 12).Draw(t, "n")
	d := rapid.IntRange(1, 5).Draw(t, "d")
	loss := rapid.SampledFrom([]Loss{Logistic, Squared}).Draw(t, "loss")
	ds := &libsvm.Dataset{Ptr: []int{0}, D: d}
	for i := range n {
		for j := range d {
			if rapid.Bool().Draw(t, "nz") {
				ds.Idx = append(ds.Idx, int32(j))
				ds.Val = append(ds.Val, rapid.Float64Range(-2, 2).Draw(t, "a"))
			}
		}
		ds.Ptr = append(ds.Ptr, len(ds.Idx))
		y := rapid.Float64Range(-3, 3).Draw(t, "y")
		if loss == Logistic {
			y = float64(2*rapid.IntRange(0, 1).Draw(t, "label") - 1)
		}
		ds.Labels = append(ds.Labels, y)
		_ = i
	}
	mu := rapid.Float64Range(0, 1).Draw(t, "mu")
	p, err := NewProblem(ds, ds.Labels, loss, mu)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func genVec(t *rapid.T, d int, label string) []float64 {
	return rapid.SliceOfN(rapid.Float64Range(-3, 3), d, d).Draw(t, label)
}

// genKeys draws sampler keys with zeros and ties on purpose.
func genKeys(t *rapid.T, n int) []float64 {
	return rapid.SliceOfN(rapid.SampledFrom([]float64{0, 0.5, 1, 1, 2, 3.25, 10, 1e-3}), n, n).Draw(t, "keys")
}

// stepFrom returns x_{k+1} after one step of method m from iterate x and
// SRG keys, on the mini-batch given by draws.
func stepFrom(t require.TestingT, p *Problem, m Method, x, keys []float64, alpha, eps float64, draws []draw) []float64 {
	opt, err := newOptimizer(p, Options{Method: m, Schedule: Constant{alpha, eps}, Batch: len(draws),
		NewSampler: newNaive, X0: x, Q: 1e-300})
	require.NoError(t, err)
	if m == SRG {
		for i, a := range keys {
			require.NoError(t, opt.smp.Set(i, a))
		}
	}
	copy(opt.draws, draws)
	require.NoError(t, opt.apply(alpha, eps))
	out := make([]float64, p.Dim())
	opt.x.dense(out)
	return out
}

// loaded returns a naive sampler holding keys, and its p under ε.
func loaded(t require.TestingT, keys []float64, eps float64) (*naive.Sampler, []float64) {
	s := naive.New(len(keys))
	require.NoError(t, s.Load(keys))
	ps, err := s.Probs(eps, nil)
	require.NoError(t, err)
	return s, ps
}

// gdStep returns the full gradient step x − α∇F(x): what every unbiased
// step gives in expectation.
func gdStep(p *Problem, x []float64, alpha float64) []float64 {
	g := make([]float64, p.Dim())
	p.FullGrad(x, g)
	for j := range g {
		g[j] = x[j] - alpha*g[j]
	}
	return g
}

// expectedStep returns E[x_{k+1}] over SRG's draw i ~ p_k (batch 1), summed
// exactly over the n items with p_k from the sampler's Prob.
func expectedStep(t require.TestingT, p *Problem, x, keys []float64, alpha, eps float64) []float64 {
	_, ps := loaded(t, keys, eps)
	mean := make([]float64, p.Dim())
	for i, pi := range ps {
		xi := stepFrom(t, p, SRG, x, keys, alpha, eps, []draw{{i: i, w: weight(p.Len(), eps, pi), p: pi}})
		for j := range mean {
			mean[j] += pi * xi[j]
		}
	}
	return mean
}

func genEps(t *rapid.T, n int) float64 {
	switch rapid.IntRange(0, 2).Draw(t, "epsKind") {
	case 0:
		return 1 / float64(n)
	case 1:
		return 1 / (2 * float64(n))
	}
	return rapid.Float64Range(1e-6, 1).Draw(t, "epsFrac") / float64(n)
}

func requireClose(t require.TestingT, want, got []float64, tol float64, msg string) {
	scale := 1.0
	for _, v := range want {
		scale = math.Max(scale, math.Abs(v))
	}
	for j := range want {
		// require only on a miss: its call records the caller's frames,
		// some 20 times the cost of the comparison, on every coordinate of
		// every step.
		if d := math.Abs(want[j] - got[j]); !(d <= tol*scale) {
			require.InDelta(t, want[j], got[j], tol*scale, "%s: coordinate %d", msg, j)
		}
	}
}

// Property: the importance-weighted gradient is unbiased — summing the SRG
// step over i with weights p_k^i gives exactly the gradient step
// x − α∇F(x), for any keys and any ε in (0, 1/n].
func TestSRGStepUnbiased(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		p := genProblem(t)
		x := genVec(t, p.Dim(), "x")
		keys := genKeys(t, p.Len())
		eps := genEps(t, p.Len())
		alpha := rapid.Float64Range(0.01, 1).Draw(t, "alpha")
		got := expectedStep(t, p, x, keys, alpha, eps)
		requireClose(t, gdStep(p, x, alpha), got, 1e-12, "E[x_{k+1}] vs x − α∇F(x)")
	})
}

// Property: the mini-batch estimator with replacement is unbiased too: for
// m = 2 the expectation over the n² ordered pairs is x − α∇F(x).
func TestSRGMiniBatchUnbiased(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		p := genProblem(t)
		n := p.Len()
		x := genVec(t, p.Dim(), "x")
		keys := genKeys(t, n)
		eps := genEps(t, n)
		_, ps := loaded(t, keys, eps)
		mean := make([]float64, p.Dim())
		for i := range n {
			for j := range n {
				xi := stepFrom(t, p, SRG, x, keys, 0.5, eps, []draw{
					{i: i, w: weight(n, eps, ps[i]), p: ps[i]}, {i: j, w: weight(n, eps, ps[j]), p: ps[j]}})
				for c := range mean {
					mean[c] += ps[i] * ps[j] * xi[c]
				}
			}
		}
		requireClose(t, gdStep(p, x, 0.5), mean, 1e-12, "mini-batch of 2")
	})
}

// Property (metamorphic): relabelling the examples by a permutation π (rows,
// labels and keys together) leaves the exact one-step expectation of the
// iterate unchanged.
func TestSRGExpectationPermutationInvariant(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		p := genProblem(t)
		n := p.Len()
		x := genVec(t, p.Dim(), "x")
		keys := genKeys(t, n)
		eps := genEps(t, n)
		perm := rapid.Permutation(seq(n)).Draw(t, "perm")
		ds := p.Rows.(*libsvm.Dataset)
		pd := &libsvm.Dataset{Ptr: []int{0}, D: ds.D}
		pkeys := make([]float64, n)
		for newI, oldI := range perm {
			idx, val := ds.Row(oldI)
			pd.Idx = append(pd.Idx, idx...)
			pd.Val = append(pd.Val, val...)
			pd.Ptr = append(pd.Ptr, len(pd.Idx))
			pd.Labels = append(pd.Labels, ds.Labels[oldI])
			pkeys[newI] = keys[oldI]
		}
		pp, err := NewProblem(pd, pd.Labels, p.Loss, p.Mu)
		require.NoError(t, err)
		a := expectedStep(t, p, x, keys, 0.3, eps)
		b := expectedStep(t, pp, x, pkeys, 0.3, eps)
		requireClose(t, a, b, 1e-12, "permuted examples")
	})
}

func seq(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = i
	}
	return s
}

// With ε = 1/n, SRG's p_k is uniform whatever the keys, a stratified grid of
// u draws every example equally often, and the step on a drawn index is
// SGD's step bit for bit.
func TestSRGUniformEpsIsSGD(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		p := genProblem(t)
		n := p.Len()
		x := genVec(t, p.Dim(), "x")
		keys := genKeys(t, n)
		eps := 1 / float64(n)
		s, _ := loaded(t, keys, eps)
		const per = 64
		counts := make([]int, n)
		for k := range n * per {
			i, pi, err := s.Sample(eps, (float64(k)+0.5)/float64(n*per))
			require.NoError(t, err)
			require.InEpsilon(t, 1/float64(n), pi, 1e-15)
			counts[i]++
		}
		for i, c := range counts {
			require.InDelta(t, per, c, 1, "example %d drawn %d times of %d", i, c, n*per)
		}
		for i := range n {
			pi, err := s.Prob(i, eps)
			require.NoError(t, err)
			require.Equal(t, 1.0, weight(n, eps, pi))
			a := stepFrom(t, p, SRG, x, keys, 0.7, eps, []draw{{i: i, w: weight(n, eps, pi), p: pi}})
			b := stepFrom(t, p, SGD, x, nil, 0.7, eps, []draw{{i: i, w: 1}})
			require.Equal(t, b, a, "example %d", i)
		}
	})
}

// Under ε = 1/float64(n) the importance weight is exactly 1 for every n,
// also where n·fl(1/n) rounds below 1 (n = 49, …) and 1/(n·p) would not be.
func TestWeightAtUniformEpsIsOne(t *testing.T) {
	off := 0
	for n := 1; n <= 1000; n++ {
		p := 1 / float64(n)
		if 1/(float64(n)*p) != 1 {
			off++
		}
		require.Equal(t, 1.0, weight(n, p, p), "n = %d", n)
	}
	require.Positive(t, off, "some n where 1/(n·p) is not 1")
}

// Property: the loopless SVRG estimator is unbiased: E over i of the step
// (without a reference refresh) is x − α∇F(x).
func TestSVRGStepUnbiased(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		p := genProblem(t)
		n := p.Len()
		x := genVec(t, p.Dim(), "x")
		w := genVec(t, p.Dim(), "w")
		mean := make([]float64, p.Dim())
		for i := range n {
			opt, err := newOptimizer(p, Options{Method: SVRG, Schedule: Constant{0.4, 0}, X0: w, Q: 1e-300})
			require.NoError(t, err)
			// The reference point w is the drawn x0; move the iterate to x.
			opt.x = newIterate(x, false, false)
			opt.x.setDirection(opt.h) // as newOptimizer does
			opt.draws[0] = draw{i: i, w: 1}
			require.NoError(t, opt.apply(0.4, 0))
			xi := make([]float64, p.Dim())
			opt.x.dense(xi)
			for j := range mean {
				mean[j] += xi[j] / float64(n)
			}
		}
		requireClose(t, gdStep(p, x, 0.4), mean, 1e-12, "SVRG")
	})
}

// With the Bernoulli option, each iteration updates a key with probability
// Σ_i p_i·ε/p_i = nε whatever the state, so the number of updates in N
// iterations is Binomial(N, nε). The test allows 5 standard deviations: a
// correct implementation fails with probability below 6e-7 (and the seed is
// fixed, so the outcome is reproducible).
func TestBernoulliUpdateRate(t *testing.T) {
	ds := libsvm.Synthetic(3, 50, 4)
	p, err := NewProblem(ds, ds.Labels, Squared, 0.1)
	require.NoError(t, err)
	n := p.Len()
	for _, frac := range []float64{0.5, 0.1, 1} {
		eps := frac / float64(n)
		for _, m := range []int{1, 4} {
			tr, err := Run(p, Options{Method: SRG, Schedule: Constant{0.5 / p.Lmax(), eps}, Batch: m,
				NewSampler: newNaive, Bernoulli: true, Epochs: 400, Seed: 9})
			require.NoError(t, err)
			draws := float64(tr.Iterations * m)
			q := float64(n) * eps
			sd := math.Sqrt(draws * q * (1 - q))
			require.InDelta(t, draws*q, float64(tr.KeyUpdates), 5*sd+1e-9,
				"ε = %v/n, m = %d: %d updates in %v draws", frac, m, tr.KeyUpdates, draws)
		}
	}
	// Without the option every drawn key is updated.
	tr, err := Run(p, Options{Method: SRG, Schedule: Constant{0.5 / p.Lmax(), 0.5 / float64(n)}, Batch: 3,
		NewSampler: newNaive, Epochs: 10})
	require.NoError(t, err)
	require.Equal(t, 3*tr.Iterations, tr.KeyUpdates)
}

// SRG's keys are the gradient norms ‖∇f_i(x_k)‖ at the iterate where they
// were evaluated: after one step from a known x, the drawn key matches the
// dense gradient.
func TestSRGKeyIsGradientNorm(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		p := genProblem(t)
		x := genVec(t, p.Dim(), "x")
		i := rapid.IntRange(0, p.Len()-1).Draw(t, "i")
		opt, err := newOptimizer(p, Options{Method: SRG, Schedule: Constant{0.1, 1 / float64(p.Len())}, NewSampler: newNaive, X0: x})
		require.NoError(t, err)
		opt.draws[0] = draw{i: i, w: 1, p: 1 / float64(p.Len())}
		require.NoError(t, opt.apply(0.1, 1/float64(p.Len())))
		require.NoError(t, opt.flush()) // a batch of 1 leaves its key to the next draw
		g := make([]float64, p.Dim())
		p.Grad(i, x, g)
		want := math.Sqrt(dot(g, g))
		require.InDelta(t, want, opt.smp.Key(i), 1e-12*math.Max(1, want))
	})
}

// Property: the scaled iterate agrees with a dense reference under any
// sequence of scalings and sparse and dense additions, and ‖x‖² stays
// consistent, whether followed through the updates or summed afresh: within
// 1e-9 of the largest ‖x‖² along the history (scaled as x was since), since
// a sparse update tracks ‖x‖² by its change, whose rounding is relative to
// the norms it subtracts (x = 3, then 3 − 2.99997, leaves ‖x‖² = 9e-10 with
// an error near 1e-15, a relative 1e-6).
func TestIterateMatchesDense(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		d := rapid.IntRange(1, 6).Draw(t, "d")
		x := genVec(t, d, "x0")
		it := newIterate(x, true, rapid.Bool().Draw(t, "recompute"))
		largest := dot(x, x)
		for range rapid.IntRange(0, 40).Draw(t, "ops") {
			switch rapid.IntRange(0, 2).Draw(t, "op") {
			case 0:
				f := rapid.SampledFrom([]float64{0.5, 0.999, 1, -1, 1e-200, 1e200, 0.25}).Draw(t, "f")
				it.scale(f)
				for j := range x {
					x[j] *= f
				}
				largest *= f * f
			case 1:
				j := int32(rapid.IntRange(0, d-1).Draw(t, "j"))
				c := rapid.Float64Range(-2, 2).Draw(t, "c")
				it.addRow(c, []int32{j}, []float64{1.5})
				x[j] += c * 1.5
			case 2:
				g := genVec(t, d, "g")
				it.addDense(0.5, g)
				for j := range x {
					x[j] += 0.5 * g[j]
				}
			}
			largest = math.Max(largest, dot(x, x))
		}
		got := make([]float64, d)
		it.dense(got)
		requireClose(t, x, got, 1e-9, "iterate")
		if largest > 1e-100 && largest < 1e100 {
			require.InDelta(t, dot(x, x), it.sqnorm(), 1e-9*largest)
		}
	})
}

// Property: dotSq returns what dot returns and ‖a_i‖² bit for bit as the
// Problem holds it, so that SRG's keys do not depend on which it reads.
func TestIterateDotSq(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		p := genProblem(t)
		it := newIterate(genVec(t, p.Dim(), "x"), true, rapid.Bool().Draw(t, "recompute"))
		it.scale(rapid.Float64Range(-2, 2).Draw(t, "f"))
		for i := range p.Len() {
			idx, val := p.Rows.Row(i)
			dt, aa := it.dotSq(idx, val)
			require.Equal(t, it.dot(idx, val), dt, "a_%dᵀx", i)
			require.Equal(t, p.rowSq[i], aa, "‖a_%d‖²", i)
		}
	})
}

// Reshuffled SGD visits every example exactly once per epoch, also when a
// mini-batch straddles two epochs.
func TestReshuffledEpochs(t *testing.T) {
	ds := libsvm.Synthetic(1, 10, 2)
	p, err := NewProblem(ds, ds.Labels, Squared, 0)
	require.NoError(t, err)
	opt, err := newOptimizer(p, Options{Method: Reshuffled, Schedule: Constant{0, 0}, Batch: 3})
	require.NoError(t, err)
	var seen []int
	for range 10 {
		require.NoError(t, opt.sampleBatch(0))
		for _, dr := range opt.draws {
			seen = append(seen, dr.i)
		}
	}
	for e := range 3 {
		require.ElementsMatch(t, seq(10), seen[10*e:10*e+10], "epoch %d", e)
	}
}

// Gradient evaluations are counted alike: m per iteration for SGD, SRG and
// reshuffling, 2m plus n per refresh for SVRG (3m on average with q = m/n).
func TestGradEvalCounts(t *testing.T) {
	ds := libsvm.Synthetic(2, 200, 3)
	p, err := NewProblem(ds, ds.Labels, Squared, 0)
	require.NoError(t, err)
	sched := Constant{0.2 / p.Lmax(), 0.5 / 200}
	for _, m := range []Method{SGD, Reshuffled, SRG} {
		tr, err := Run(p, Options{Method: m, Schedule: sched, Batch: 4, NewSampler: newNaive, Epochs: 3})
		require.NoError(t, err)
		require.Equal(t, 4*tr.Iterations, tr.GradEvals, "%v", m)
		require.Equal(t, 150, tr.Iterations, "%v", m)
		require.Len(t, tr.Evals, 4)
	}
	tr, err := Run(p, Options{Method: SVRG, Schedule: sched, Batch: 4, Epochs: 300, Seed: 3})
	require.NoError(t, err)
	perIt := float64(tr.GradEvals-200) / float64(tr.Iterations)
	// 2m + q·n = 12 on average; the refreshes are Binomial(k, 1/50).
	require.InDelta(t, 12, perIt, 0.6)
}

// Property: Grad agrees with central finite differences of f_i, FullGrad is
// the mean of the Grad, and gradNorm's O(1) formula matches ‖Grad‖.
func TestObjectiveGradients(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		p := genProblem(t)
		n, d := p.Len(), p.Dim()
		x := genVec(t, d, "x")
		fi := func(i int, x []float64) float64 { return p.loss(i, p.margin(i, x)) + p.Mu/2*dot(x, x) }
		g := make([]float64, d)
		mean := make([]float64, d)
		for i := range n {
			p.Grad(i, x, g)
			for j := range d {
				h := 1e-5
				xp := append([]float64(nil), x...)
				xm := append([]float64(nil), x...)
				xp[j] += h
				xm[j] -= h
				fd := (fi(i, xp) - fi(i, xm)) / (2 * h)
				require.InDelta(t, fd, g[j], 1e-5*math.Max(1, math.Abs(fd)), "example %d coordinate %d", i, j)
				mean[j] += g[j] / float64(n)
			}
			t0 := p.margin(i, x)
			require.InDelta(t, math.Sqrt(dot(g, g)), p.gradNorm(i, p.deriv(i, t0), t0, dot(x, x)), 1e-9)
		}
		full := make([]float64, d)
		require.Equal(t, n, p.FullGrad(x, full))
		requireClose(t, mean, full, 1e-12, "FullGrad")
	})
}

// Newton reaches ‖∇F‖ ≤ 1e-12 on logistic and least-squares problems, and
// for least squares x* solves the normal equations (checked against the
// generating model's sanity: F(x*) ≤ F at perturbed points).
func TestSolve(t *testing.T) {
	ds := libsvm.Synthetic(5, 300, 6)
	ls, err := NewProblem(ds, ds.Labels, Squared, 0)
	require.NoError(t, err)
	sol, err := ls.Solve(1e-12)
	require.NoError(t, err)
	require.LessOrEqual(t, sol.GradNorm, 1e-12)
	f := ls.Value(sol.X)
	rng := rand.New(rand.NewPCG(1, 2))
	for range 20 {
		y := append([]float64(nil), sol.X...)
		y[rng.IntN(len(y))] += 1e-3 * rng.NormFloat64()
		require.GreaterOrEqual(t, ls.Value(y), f)
	}

	labels := make([]float64, ds.Len())
	for i, y := range ds.Labels {
		labels[i] = math.Copysign(1, y)
	}
	lg, err := NewProblem(ds, labels, Logistic, 1/300.0)
	require.NoError(t, err)
	sol, err = lg.Solve(1e-12)
	require.NoError(t, err)
	require.LessOrEqual(t, sol.GradNorm, 1e-12)
	require.LessOrEqual(t, lg.L(), lg.Lmax()*(1+1e-12))
}

// σ*² computed through the sampler (Lemma 1 with ε = 0) equals the closed
// form (Σ‖∇f_i‖)²/n², and r = σ²/σ*² lies in [1, n].
func TestVariancesClosedForm(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		p := genProblem(t)
		x := genVec(t, p.Dim(), "x")
		s2, ss2, err := Variances(p, x, newNaive)
		require.NoError(t, err)
		norms := p.GradNorms(x)
		var sum float64
		for _, a := range norms {
			sum += a
		}
		n := float64(p.Len())
		require.InDelta(t, sum*sum/(n*n), ss2, 1e-12*math.Max(1, ss2))
		if ss2 > 0 {
			r := s2 / ss2
			require.GreaterOrEqual(t, r, 1-1e-12)
			require.LessOrEqual(t, r, n*(1+1e-12))
		}
	})
}

func TestSchedules(t *testing.T) {
	const n = 1000
	bigL, mu := 0.3, 1.0/n
	e := Experimental(n, bigL, mu)
	a0, e0 := e.At(0)
	require.InEpsilon(t, 1/(2*bigL), a0, 1e-12)
	require.InEpsilon(t, 1/(2.0*n), e0, 1e-12)
	c := ExperimentalConstant(n, bigL)
	require.Equal(t, Constant{1 / (2 * bigL), 1 / (2.0 * n)}, c)

	L := 2.0
	c2 := Corollary2(n, L, mu)
	a0, e0 = c2.At(0)
	require.InEpsilon(t, 1/(40*L), a0, 1e-12)
	require.InEpsilon(t, 1/(2.0*n), e0, 1e-12)
	prev := math.Inf(1)
	for _, k := range []int{0, 1, 10, 100, 1e4, 1e6, 1e8} {
		a, eps := c2.At(k)
		require.Less(t, a, prev)
		prev = a
		require.InEpsilon(t, n*eps/(20*L), a, 1e-12, "α_k = nε_k/(20L)")
		require.Greater(t, eps, 0.0)
		require.LessOrEqual(t, eps, 1/(2.0*n))
	}
	// ζ = min(L/n, μ), here either one: α_0 = 1/(40L) whatever ζ, and
	// α_k = 2/(ζ·(k + k0)) to O(1/k), with k0 = 80L/ζ − 2.
	for _, m := range []float64{mu, 1} {
		zeta := math.Min(L/n, m)
		c2 := Corollary2(n, L, m)
		a0, _ := c2.At(0)
		require.InEpsilon(t, 1/(40*L), a0, 1e-12, "μ = %v", m)
		const k = 1e8
		a, _ := c2.At(k)
		require.InEpsilon(t, 2/(zeta*(k+80*L/zeta-2)), a, 1e-6, "μ = %v: α_k ≈ 2/(ζ(k+k0)), ζ = %v", m, zeta)
	}
	require.Equal(t, 1.0, MiniBatchSmoothness(10, 1, 1, 0.2))
	require.InEpsilon(t, 0.2, MiniBatchSmoothness(10, 10, 1, 0.2), 1e-15)
}

func TestBadOptions(t *testing.T) {
	ds := libsvm.Synthetic(2, 20, 3)
	p, err := NewProblem(ds, ds.Labels, Squared, 0)
	require.NoError(t, err)
	// No sampler constructor: SRG runs on btree.
	tr, err := Run(p, Options{Method: SRG, Schedule: Constant{0.01, 0.5 / 20}, Epochs: 1})
	require.NoError(t, err)
	require.Positive(t, tr.KeyUpdates)
	_, err = Run(p, Options{Method: SRG, Schedule: Constant{0.01, 0.5 / 20}, NewSampler: func(int) reweighted.Distribution { return naive.New(3) }, Epochs: 1})
	require.ErrorContains(t, err, "sampler has 3 items, want 20")
	_, err = Run(p, Options{Method: SRG, Schedule: Constant{0.01, 2.0 / 20}, NewSampler: newNaive, Epochs: 1})
	require.ErrorContains(t, err, "ε = 0.1 not in (0, 1/20]")
	require.ErrorIs(t, err, reweighted.ErrEpsilon)
	_, err = Run(p, Options{Method: SGD})
	require.ErrorContains(t, err, "no schedule")
	_, err = Run(p, Options{Method: SGD, Schedule: Constant{1e3, 0}, Epochs: 50})
	require.ErrorContains(t, err, "the iterate diverged")
	_, err = NewProblem(ds, ds.Labels, Logistic, 0)
	require.ErrorContains(t, err, "want ±1", "logistic labels must be ±1")
}

// Algorithm 1 exactly as analysed (Bernoulli key updates, the decreasing
// schedule of Corollary 2) converges on a small least-squares problem: the
// relative error, averaged over runs, falls by orders of magnitude and keeps
// falling.
func TestCorollary2Converges(t *testing.T) {
	ds := libsvm.Synthetic(6, 100, 3)
	p, err := NewProblem(ds, ds.Labels, Squared, 0)
	require.NoError(t, err)
	sol, err := p.Solve(1e-12)
	require.NoError(t, err)
	mu := p.StrongConvexity()
	require.Greater(t, mu, 0.0)
	sched := Corollary2(p.Len(), p.Lmax(), mu)
	const runs = 8
	var mean []float64
	for r := range runs {
		tr, err := Run(p, Options{Method: SRG, Schedule: sched, NewSampler: newNaive, Bernoulli: true,
			Epochs: 400, PerEpoch: 1, XStar: sol.X, Seed: uint64(r)})
		require.NoError(t, err)
		if mean == nil {
			mean = make([]float64, len(tr.RelErr))
		}
		for k, e := range tr.RelErr {
			mean[k] += e / runs
		}
	}
	t.Logf("mean relative error after 10, 100, 400 epochs: %.3g, %.3g, %.3g", mean[10], mean[100], mean[400])
	require.Less(t, mean[100], 1e-2)
	require.Less(t, mean[400], mean[100]/2, "O(1/k) decay")
}

// Property: valueGrad, the line search's one pass, returns exactly what
// Value and FullGrad return, bit for bit, on any problem and point.
func TestValueGradMatchesValueAndFullGrad(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		p := genProblem(t)
		x := genVec(t, p.Dim(), "x")
		g, comp := make([]float64, p.Dim()), make([]float64, p.Dim())
		f := p.valueGrad(x, g, comp)
		want := make([]float64, p.Dim())
		p.FullGrad(x, want)
		require.Equal(t, math.Float64bits(p.Value(x)), math.Float64bits(f))
		for j := range want {
			require.Equal(t, math.Float64bits(want[j]), math.Float64bits(g[j]), "coordinate %d", j)
		}
	})
}
