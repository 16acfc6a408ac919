package srg_test

import (
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/reweighted/reweighted/libsvm"
	"github.com/reweighted/reweighted/srg"
)

// ledger records what a run asks of its problem, in order: every gradient
// (a call of Loss.Deriv), every iteration (a call of Schedule.At) and every
// checkpoint (a pass of Problem.Value over the n examples, which
// Suboptimality makes at each one). It is the independent count that the
// trace's axes are checked against.
type ledger struct {
	n       int
	derivs  int   // Deriv calls so far
	values  int   // Value calls so far
	iters   int   // iterations begun: 1 + the largest k asked of the schedule
	startAt []int // derivs when iteration k began
	// derivs and iters when each pass of Value began: the first is F(x*),
	// the others the checkpoints.
	passDerivs, passIters []int
}

type countingLoss struct {
	srg.Loss
	l *ledger
}

func (c countingLoss) Deriv(t, y float64) float64 {
	c.l.derivs++
	return c.Loss.Deriv(t, y)
}

func (c countingLoss) Value(t, y float64) float64 {
	if c.l.values%c.l.n == 0 {
		c.l.passDerivs = append(c.l.passDerivs, c.l.derivs)
		c.l.passIters = append(c.l.passIters, c.l.iters)
	}
	c.l.values++
	return c.Loss.Value(t, y)
}

type countingSchedule struct {
	srg.Schedule
	l *ledger
}

func (c countingSchedule) At(k int) (float64, float64) {
	for c.l.iters <= k {
		c.l.startAt = append(c.l.startAt, c.l.derivs)
		c.l.iters++
	}
	return c.Schedule.At(k)
}

// Property: every trace's axes agree with an independent count of the work
// done. For every method, protocol, batch size, checkpoint density and
// budget, checkpoint t of a run with PerEpoch = per
//   - has Evals[t] = t/per, the nominal grid;
//   - records the first state whose gradient evaluations, counted by a
//     wrapping loss, reach t·n/per: at least t·n/per, and fewer before the
//     last iteration that led to it;
//   - has Seconds[t] = 0 at t = 0, nondecreasing, and unchanged from the
//     previous checkpoint when no iteration ran in between;
//
// and the run's GradEvals and Iterations equal the counted gradients and
// iterations (GradEvals = m·Iterations but for SVRG, whose full gradients
// the count includes).
func TestTraceAxesMatchCountedWork(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(1, 12).Draw(t, "n")
		meth := rapid.SampledFrom([]srg.Method{srg.SGD, srg.Reshuffled, srg.SRG, srg.SVRG}).Draw(t, "method")
		proto := rapid.SampledFrom([]srg.Protocol{srg.WithReplacement, srg.WithoutReplacement}).Draw(t, "protocol")
		maxBatch := 2 * n
		if proto == srg.WithoutReplacement {
			maxBatch = n
		}
		m := rapid.IntRange(1, maxBatch).Draw(t, "batch")
		per := rapid.IntRange(1, 9).Draw(t, "perEpoch")
		epochs := rapid.SampledFrom([]float64{0, 0.5, 1, 2.25, 3}).Draw(t, "epochs")
		ds := libsvm.Synthetic(rapid.Uint64().Draw(t, "data"), n, 3)
		l := &ledger{n: n}
		p, err := srg.NewProblem(ds, ds.Labels, countingLoss{srg.Squared, l}, 0.1)
		require.NoError(t, err)
		eps := rapid.SampledFrom([]float64{0.5, 1}).Draw(t, "epsScale") / float64(n)
		xStar := make([]float64, p.Dim())
		for j := range xStar {
			xStar[j] = 1
		}
		o := srg.Options{Method: meth, Protocol: proto, Batch: m, PerEpoch: per, Epochs: epochs,
			Schedule: countingSchedule{srg.Constant{Alpha: 0.01, Eps: eps}, l},
			Q:        rapid.SampledFrom([]float64{0, 0.3, 1}).Draw(t, "q"),
			Seed:     rapid.Uint64().Draw(t, "seed"), XStar: xStar, Suboptimality: true,
			Bernoulli: rapid.Bool().Draw(t, "bernoulli")}
		if meth != srg.SVRG {
			o.Q = 0
		}
		tr, err := srg.Run(p, o)
		require.NoError(t, err)

		total := int(epochs*float64(per) + 0.5)
		require.Len(t, tr.Evals, total+1)
		require.Len(t, tr.Seconds, total+1)
		require.Len(t, tr.RelErr, total+1)
		require.Len(t, tr.Subopt, total+1)
		require.Len(t, l.passDerivs, total+2, "one pass of Value for F(x*), one per checkpoint")
		for c := range total + 1 {
			require.Equal(t, float64(c)/float64(per), tr.Evals[c], "Evals[%d] with %d checkpoints per epoch", c, per)
			evals, iters := l.passDerivs[c+1], l.passIters[c+1]
			// Integer arithmetic: evals ≥ c·n/per ⇔ evals·per ≥ c·n.
			require.GreaterOrEqual(t, evals*per, c*n, "checkpoint %d: %d gradients, short of %d·%d/%d", c, evals, c, n, per)
			if iters > 0 && (c == 0 || iters > l.passIters[c]) {
				before := l.startAt[iters-1]
				require.Less(t, before*per, c*n, "checkpoint %d: already %d gradients before iteration %d", c, before, iters-1)
			}
			if c == 0 {
				require.Zero(t, tr.Seconds[c], "no iteration before checkpoint 0")
				continue
			}
			require.GreaterOrEqual(t, tr.Seconds[c], tr.Seconds[c-1], "Seconds must not decrease")
			if iters == l.passIters[c] {
				require.Equal(t, tr.Seconds[c-1], tr.Seconds[c], "checkpoint %d: no iteration since the previous one", c)
			}
		}
		require.Equal(t, l.derivs, tr.GradEvals, "GradEvals vs counted gradients")
		require.Equal(t, l.iters, tr.Iterations, "Iterations vs iterations counted by the schedule")
		if meth != srg.SVRG {
			require.Equal(t, m*tr.Iterations, tr.GradEvals, "m gradients per iteration")
		}
	})
}
