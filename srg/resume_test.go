package srg_test

import (
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/reweighted/reweighted"
	"github.com/reweighted/reweighted/btree"
	"github.com/reweighted/reweighted/levels"
	"github.com/reweighted/reweighted/libsvm"
	"github.com/reweighted/reweighted/ost"
	"github.com/reweighted/reweighted/srg"
)

// decaying is a schedule that changes at every iteration: α_k decreases and
// ε_k cycles through (1..4)/(4n), 1/n included (SRG's uniform case), so
// that a resumed run must take up the schedule at the right k.
type decaying struct{ n int }

func (s decaying) At(k int) (float64, float64) {
	return 0.03 / (1 + float64(k)/16), float64(1+k%4) / float64(4*s.n)
}

// resumeProblem is least squares with μ > 0 (SRG then tracks ‖x‖²) on 16
// examples of 10 features: above 8 features per example of a batch of 1
// (‖x‖² followed through the updates), below those of a batch of 3
// (summed afresh).
func resumeProblem(t testing.TB) *srg.Problem {
	ds := libsvm.Synthetic(7, 16, 10)
	p, err := srg.NewProblem(ds, ds.Labels, srg.Squared, 0.1)
	require.NoError(t, err)
	return p
}

// resumeCase is a run that the tests stop and resume: every method, both
// kinds of SRG sampler, both protocols, batches of 1 and 3, and SRG's
// Bernoulli updates; 3 epochs of 5 checkpoints each, so that checkpoints
// fall mid-epoch and nearly every iteration, and every measure recorded.
type resumeCase struct {
	name string
	o    srg.Options
}

func resumeCases(p *srg.Problem) []resumeCase {
	n := p.Len()
	xStar := make([]float64, p.Dim())
	for j := range xStar {
		xStar[j] = 1
	}
	samplers := map[string]func(int) reweighted.Distribution{
		"btree":  func(n int) reweighted.Distribution { return btree.New(n) },
		"levels": func(n int) reweighted.Distribution { return levels.New(n) },
	}
	var cases []resumeCase
	add := func(name string, o srg.Options) {
		o.Schedule, o.Epochs, o.PerEpoch, o.Seed = decaying{n}, 3, 5, 42
		o.XStar, o.Suboptimality, o.Variance = xStar, true, true
		cases = append(cases, resumeCase{name, o})
	}
	for _, proto := range []srg.Protocol{srg.WithReplacement, srg.WithoutReplacement} {
		for _, m := range []int{1, 3} {
			for _, meth := range []srg.Method{srg.SGD, srg.Reshuffled, srg.SVRG} {
				o := srg.Options{Method: meth, Protocol: proto, Batch: m}
				if meth == srg.SVRG {
					o.Q = 0.1 // more iterations between full gradients than m/n gives
				}
				add(fmt.Sprintf("%v/%v/batch=%d", meth, proto, m), o)
			}
			for _, name := range []string{"btree", "levels"} {
				add(fmt.Sprintf("SRG-%s/%v/batch=%d", name, proto, m),
					srg.Options{Method: srg.SRG, Protocol: proto, Batch: m, NewSampler: samplers[name]})
			}
		}
	}
	for _, name := range []string{"btree", "levels"} {
		add("SRG-"+name+"/Bernoulli", srg.Options{Method: srg.SRG, Batch: 2, NewSampler: samplers[name], Bernoulli: true})
	}
	return cases
}

// requireSameTrace requires every recorded float of got equal to want's,
// bit for bit, but for Seconds, the wall-clock time, of which it checks the
// length.
func requireSameTrace(t testing.TB, want, got srg.Trace, msg string, args ...any) {
	t.Helper()
	bits := func(a []float64) []uint64 {
		if a == nil {
			return nil
		}
		b := make([]uint64, len(a))
		for i, v := range a {
			b[i] = math.Float64bits(v)
		}
		return b
	}
	where := fmt.Sprintf(msg, args...)
	for _, s := range []struct {
		name      string
		want, got []float64
	}{{"Evals", want.Evals, got.Evals}, {"RelErr", want.RelErr, got.RelErr}, {"Subopt", want.Subopt, got.Subopt},
		{"Var", want.Var, got.Var}, {"Alpha", want.Alpha, got.Alpha}, {"X", want.X, got.X}} {
		require.Equal(t, bits(s.want), bits(s.got), "%s: %s", where, s.name)
	}
	require.Len(t, got.Seconds, len(want.Seconds), "%s: Seconds", where)
	require.Equal(t, [3]int{want.Iterations, want.GradEvals, want.KeyUpdates},
		[3]int{got.Iterations, got.GradEvals, got.KeyUpdates}, "%s: Iterations, GradEvals, KeyUpdates", where)
}

// A run saved to a file at any checkpoint — the first, before any
// iteration, the last, after all of them, and every one between, most of
// them mid-epoch — and resumed from that file records the trace of the run
// that never stopped, bit for bit; so does a run stopped with ErrStop at
// every checkpoint in turn and resumed each time (the trace it returns when
// stopped being the prefix of the whole), and a run branched from the
// State inside the callback. The reference is a run without a
// Checkpoint function.
func TestResumeAtEveryCheckpoint(t *testing.T) {
	p := resumeProblem(t)
	for _, c := range resumeCases(p) {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel() // the cases wait on their files' syncs together
			want, err := srg.Run(p, c.o)
			require.NoError(t, err)
			require.GreaterOrEqual(t, want.Iterations, 5)
			if c.o.Method == srg.SVRG {
				require.GreaterOrEqual(t, want.GradEvals, 2*p.Len()+2*c.o.Batch*want.Iterations, "a full gradient after the first")
			}
			dir := t.TempDir()
			file := func(j int) string { return filepath.Join(dir, fmt.Sprintf("state-%d", j)) }

			o := c.o
			saved := 0
			o.Checkpoint = func(st *srg.State) error {
				require.Equal(t, saved+1, st.Checkpoints())
				if saved == len(want.Evals)/2 { // branch from the live state
					tr, err := srg.Resume(p, c.o, st)
					require.NoError(t, err)
					requireSameTrace(t, want, tr, "branched at checkpoint %d", saved)
				}
				require.NoError(t, srg.SaveFile(file(saved), st))
				saved++
				return nil
			}
			got, err := srg.Run(p, o)
			require.NoError(t, err)
			requireSameTrace(t, want, got, "run that saved every checkpoint")
			require.Equal(t, len(want.Evals), saved)

			for j := range saved {
				var st srg.State
				require.NoError(t, srg.LoadFile(file(j), &st))
				require.Equal(t, j+1, st.Checkpoints())
				tr, err := srg.Resume(p, c.o, &st)
				require.NoError(t, err)
				requireSameTrace(t, want, tr, "resumed at checkpoint %d of %d", j, saved)
			}

			// Stop at every checkpoint in turn, resuming each time (from
			// bytes in memory: the files are tested above).
			var st srg.State
			var blob []byte
			stops := 0
			o.Checkpoint = func(s *srg.State) error {
				blob, err = s.AppendBinary(blob[:0])
				require.NoError(t, err)
				stops++
				return srg.ErrStop
			}
			tr, err := srg.Run(p, o)
			for errors.Is(err, srg.ErrStop) {
				k := len(tr.Evals)
				prefix := want
				prefix.Evals, prefix.RelErr, prefix.Subopt = want.Evals[:k], want.RelErr[:k], want.Subopt[:k]
				prefix.Var, prefix.Alpha, prefix.Seconds = want.Var[:k], want.Alpha[:k], want.Seconds[:k]
				prefix.X, prefix.Iterations, prefix.GradEvals, prefix.KeyUpdates = tr.X, tr.Iterations, tr.GradEvals, tr.KeyUpdates
				if tr.Iterations == 0 {
					prefix.Alpha = make([]float64, k) // no step yet: Trace.Alpha is 0
				}
				requireSameTrace(t, prefix, tr, "stopped at checkpoint %d", k-1)
				require.NoError(t, st.UnmarshalBinary(blob))
				requireSameTrace(t, tr, st.Trace(), "the state's trace at checkpoint %d", k-1)
				tr, err = srg.Resume(p, o, &st)
			}
			require.NoError(t, err, "a state saved at the last checkpoint resumes to the end")
			require.Equal(t, len(want.Evals), stops)
			requireSameTrace(t, want, tr, "stopped at every checkpoint")
		})
	}
}

// switched is the schedule a until iteration at, b from it on.
type switched struct {
	a, b srg.Schedule
	at   int
}

func (s switched) At(k int) (float64, float64) {
	if k < s.at {
		return s.a.At(k)
	}
	return s.b.At(k)
}

// A run resumed with a larger Epochs records the trace of the longer run
// that never stopped; one resumed with another Schedule, that of the run
// whose schedule switches at the iteration of the state. Both bit for bit,
// on SRG with levels and on SVRG, from a checkpoint mid-epoch and from the
// last.
func TestResumeExtendsAndBranches(t *testing.T) {
	p := resumeProblem(t)
	for _, c := range resumeCases(p) {
		if c.name != "SRG-levels/without replacement/batch=3" && c.name != "SVRG/with replacement/batch=1" {
			continue
		}
		t.Run(c.name, func(t *testing.T) {
			long, err := srg.Run(p, c.o)
			require.NoError(t, err)
			short := c.o
			short.Epochs = 1.6
			var saved [][]byte
			short.Checkpoint = func(st *srg.State) error {
				b, err := st.MarshalBinary()
				saved = append(saved, b)
				return err
			}
			_, err = srg.Run(p, short)
			require.NoError(t, err)
			require.Len(t, saved, 9)
			for _, at := range []int{3, 8} {
				var st srg.State
				require.NoError(t, st.UnmarshalBinary(saved[at]))
				tr, err := srg.Resume(p, c.o, &st)
				require.NoError(t, err)
				requireSameTrace(t, long, tr, "extended from checkpoint %d of a run of 1.6 epochs", at)

				other := srg.Constant{Alpha: 0.01, Eps: 0.75 / float64(p.Len())}
				o := c.o
				o.Schedule = switched{c.o.Schedule, other, st.Iterations()}
				want, err := srg.Run(p, o)
				require.NoError(t, err)
				// The checkpoint saved measured σ² at ε_k of the schedule it ran
				// under, the one the switched run begins at k.
				want.Var[at] = long.Var[at]
				o.Schedule = other
				got, err := srg.Resume(p, o, &st)
				require.NoError(t, err)
				requireSameTrace(t, want, got, "branched to another schedule at checkpoint %d", at)
				require.NotEqual(t, long.RelErr, got.RelErr, "the schedule made no difference")
			}
		})
	}
}

// A run of SRG over a tree whose float sums depend on its shape (ost,
// btree), on enough items that a long history grows a shape Load would not
// build, resumes from every checkpoint to the trace of the run that never
// stopped, bit for bit: the saved sampler carries its shape, so p = a_i/λ,
// which scales every step, keeps its last bits.
func TestResumeKeepsTreeShape(t *testing.T) {
	ds := libsvm.Synthetic(11, 256, 10)
	p, err := srg.NewProblem(ds, ds.Labels, srg.Squared, 0.1)
	require.NoError(t, err)
	n := p.Len()
	for _, c := range []struct {
		name string
		new  func(int) reweighted.Distribution
	}{
		{"ost", func(n int) reweighted.Distribution { return ost.New(n) }},
		{"btree", func(n int) reweighted.Distribution { return btree.New(n) }},
	} {
		for _, m := range []int{1, 3} {
			t.Run(fmt.Sprintf("%s/batch=%d", c.name, m), func(t *testing.T) {
				o := srg.Options{Method: srg.SRG, Batch: m, NewSampler: c.new,
					Schedule: decaying{n}, Epochs: 4, PerEpoch: 4, Seed: 7}
				want, err := srg.Run(p, o)
				require.NoError(t, err)
				var saved [][]byte
				o.Checkpoint = func(st *srg.State) error {
					b, err := st.MarshalBinary()
					saved = append(saved, b)
					return err
				}
				_, err = srg.Run(p, o)
				require.NoError(t, err)
				require.Len(t, saved, len(want.Evals))
				o.Checkpoint = nil
				for j, b := range saved {
					var st srg.State
					require.NoError(t, st.UnmarshalBinary(b))
					got, err := srg.Resume(p, o, &st)
					require.NoError(t, err)
					requireSameTrace(t, want, got, "resumed at checkpoint %d of %d", j, len(saved))
				}
			})
		}
	}
}
