package srg_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/reweighted/reweighted"
	"github.com/reweighted/reweighted/levels"
	"github.com/reweighted/reweighted/libsvm"
	"github.com/reweighted/reweighted/srg"
)

// counted is levels with a count of the calls SRG makes to it, and the
// items its single draws return. With split, its Step is Set then Draw of
// levels, not levels' own Step.
type counted struct {
	*levels.Sampler
	split                               bool
	steps, sets, draws, batches, setBat int
	drawn                               []int
}

func (c *counted) Set(i int, a float64) error {
	c.sets++
	return c.Sampler.Set(i, a)
}

func (c *counted) SetBatch(items []int, keys []float64) error {
	c.setBat++
	return c.Sampler.SetBatch(items, keys)
}

func (c *counted) Draw(eps float64, src rand.Source) (int, float64, error) {
	c.draws++
	i, p, err := c.Sampler.Draw(eps, src)
	if err == nil {
		c.drawn = append(c.drawn, i)
	}
	return i, p, err
}

func (c *counted) DrawBatch(eps float64, src rand.Source, replace bool, items []int, probs []float64) error {
	c.batches++
	return c.Sampler.DrawBatch(eps, src, replace, items, probs)
}

func (c *counted) Step(eps float64, i int, a float64, src rand.Source) (int, float64, error) {
	c.steps++
	var next int
	var p float64
	var err error
	if c.split {
		if err = c.Sampler.Set(i, a); err == nil {
			next, p, err = c.Sampler.Draw(eps, src)
		}
	} else {
		next, p, err = c.Sampler.Step(eps, i, a, src)
	}
	if err == nil {
		c.drawn = append(c.drawn, next)
	}
	return next, p, err
}

// SRG with batches of 1 sets the key of an iteration and draws the next
// example in one reweighted.Step: Draw alone only where no key waits (the
// first draw, and the first after each checkpoint), Set alone only where
// no draw follows (before each checkpoint, the last included), never a
// batch call; and at every checkpoint the sampler holds the keys of all
// the iterations before it. The run is the same, bit for bit, when the
// sampler's Step is its Set and then its Draw.
func TestSingleSampleUsesStep(t *testing.T) {
	p := resumeProblem(t)
	n := p.Len()
	for _, proto := range []srg.Protocol{srg.WithReplacement, srg.WithoutReplacement} {
		var want srg.Trace
		for _, split := range []bool{false, true} {
			name := fmt.Sprintf("%v/split=%v", proto, split)
			var c *counted
			o := srg.Options{Method: srg.SRG, Protocol: proto, Schedule: decaying{n}, Epochs: 3, PerEpoch: 5, Seed: 9,
				NewSampler: func(n int) reweighted.Distribution {
					c = &counted{Sampler: levels.New(n), split: split}
					return c
				}}
			checkpoints := 0
			o.Checkpoint = func(st *srg.State) error {
				checkpoints++
				require.Equal(t, st.Iterations(), c.steps+c.sets, "%s: keys set at checkpoint %d", name, checkpoints)
				return nil
			}
			tr, err := srg.Run(p, o)
			require.NoError(t, err)
			// 3.2 iterations between checkpoints: each of the 15 after
			// the first has a key to set before it.
			require.Equal(t, 16, checkpoints)
			require.Equal(t, 15, c.sets, name)
			require.Equal(t, 15, c.draws, name)
			require.Equal(t, tr.Iterations-15, c.steps, name)
			require.Equal(t, [2]int{0, 0}, [2]int{c.batches, c.setBat}, name)
			require.Equal(t, tr.Iterations, tr.KeyUpdates, name)
			if !split {
				want = tr
				continue
			}
			requireSameTrace(t, want, tr, "%s", name)
		}
	}
}

// A gradient norm that overflows in an iteration of a batch of 1 is the
// error of that iteration's key update, whether the next draw or the next
// checkpoint meets it, and the sampler keeps its key and draws no more.
func TestSingleSampleBadKeyIsItsIteration(t *testing.T) {
	// At x = 1 the gradient of example 1 is (1e300·x)·1e300 = +Inf.
	ds := &libsvm.Dataset{Ptr: []int{0, 1, 2, 3}, Idx: []int32{0, 0, 0}, Val: []float64{1, 1e300, 2}, D: 1,
		Labels: []float64{0, 0, 0}}
	p, err := srg.NewProblem(ds, ds.Labels, srg.Squared, 0)
	require.NoError(t, err)
	seen := map[bool]bool{} // whether the error came at a checkpoint
	for seed := uint64(1); seed <= 40; seed++ {
		var c *counted
		o := srg.Options{Method: srg.SRG, Schedule: srg.Constant{Alpha: 0.01, Eps: 1.0 / 6}, Epochs: 100, Seed: seed,
			X0: []float64{1}, NewSampler: func(n int) reweighted.Distribution {
				c = &counted{Sampler: levels.New(n)}
				return c
			}}
		_, err := srg.Run(p, o)
		require.ErrorIs(t, err, reweighted.ErrKey, "seed %d", seed)
		k := 0
		for c.drawn[k] != 1 {
			k++
		}
		require.ErrorContains(t, err, fmt.Sprintf("srg: iteration %d: key update: ", k), "seed %d", seed)
		require.Len(t, c.drawn, k+1, "seed %d: no draw after the bad key", seed)
		require.Zero(t, c.Key(1), "seed %d", seed)
		seen[(k+1)%3 == 0] = true // 3 iterations an epoch, then a checkpoint
	}
	require.Len(t, seen, 2, "errors met by a draw and by a checkpoint")
}
