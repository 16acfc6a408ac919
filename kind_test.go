package reweighted_test

import (
	"math/rand/v2"
	"testing"

	"github.com/reweighted/reweighted"
	"github.com/reweighted/reweighted/naive"
	"github.com/stretchr/testify/require"
)

// lawSpy is a LawSampler over a naive sampler's keys whose draws record
// the calls they get: Draw and DrawBatch answer with a fixed item, so a
// test can tell whose draw ran.
type lawSpy struct {
	*naive.Sampler
	draws, batches int
}

func (l *lawSpy) Draw(eps float64, src rand.Source) (int, float64, error) {
	l.draws++
	src.Uint64()
	p, err := l.Prob(0, eps)
	return 0, p, err
}

func (l *lawSpy) DrawBatch(eps float64, src rand.Source, replace bool, items []int, probs []float64) error {
	l.batches++
	for k := range items {
		i, p, err := l.Draw(eps, src)
		if err != nil {
			return err
		}
		items[k], probs[k] = i, p
	}
	return nil
}

// Sample hides the embedded naive method: a type with both would be
// drawn from as a Sampler.
func (*lawSpy) Sample() {}

// bare is a Distribution of neither kind.
type bare struct{ *naive.Sampler }

// Sample hides the embedded method, so bare is no Sampler.
func (bare) Sample() {}

var _ reweighted.LawSampler = (*lawSpy)(nil)

// Property: Draw and DrawBatch hand a LawSampler its own draws, after the
// same validation as for a Sampler, which uses no randomness and writes
// nothing when it rejects the call.
func TestDrawDispatchesLawSampler(t *testing.T) {
	l := &lawSpy{Sampler: naive.New(4)}
	for i, a := range []float64{1, 2, 3, 4} {
		require.NoError(t, l.Set(i, a))
	}
	src := &countingSource{Source: rand.NewPCG(1, 2)}
	i, p, err := reweighted.Draw(l, 0.1, src)
	require.NoError(t, err)
	want, _ := l.Prob(0, 0.1)
	require.Equal(t, 0, i)
	require.Equal(t, want, p)
	require.Equal(t, 1, l.draws)

	items, probs := make([]int, 3), make([]float64, 3)
	require.NoError(t, reweighted.DrawBatch(l, 0.1, src, false, items, probs))
	require.Equal(t, 1, l.batches)

	// Rejected by the root's validation: the law sampler is not called,
	// src is not used, the slices are not written.
	calls := src.calls
	for _, c := range []struct {
		eps          float64
		replace      bool
		items, probs int
		want         error
	}{
		{eps: 0.3, items: 3, probs: 3, want: reweighted.ErrEpsilon},
		{eps: 0.1, items: 3, probs: 2, want: reweighted.ErrBatch},
		{eps: 0.1, items: 5, probs: 5, want: reweighted.ErrBatch},
	} {
		its, ps := make([]int, c.items), make([]float64, c.probs)
		for k := range its {
			its[k] = -7
		}
		err := reweighted.DrawBatch(l, c.eps, src, c.replace, its, ps)
		require.ErrorIs(t, err, c.want)
		for _, it := range its {
			require.Equal(t, -7, it)
		}
	}
	_, _, err = reweighted.Draw(l, -1, src)
	require.ErrorIs(t, err, reweighted.ErrEpsilon)
	require.Equal(t, calls, src.calls)
	require.Equal(t, 1, l.batches)
	require.Equal(t, 4, l.draws)

	// SetBatch takes a LawSampler too.
	require.NoError(t, reweighted.SetBatch(l, []int{0, 3}, []float64{9, 0}))
	require.Equal(t, 9.0, l.Key(0))
	require.Equal(t, 0.0, l.Key(3))
}

// A Distribution of neither kind cannot draw: Draw and DrawBatch say so
// by a panic that names its type.
func TestDrawPanicsForNeitherKind(t *testing.T) {
	b := bare{naive.New(2)}
	src := rand.NewPCG(1, 2)
	require.PanicsWithValue(t, "reweighted: reweighted_test.bare is neither a Sampler nor a LawSampler", func() {
		_, _, _ = reweighted.Draw(b, 0, src)
	})
	require.Panics(t, func() {
		_ = reweighted.DrawBatch(b, 0, src, true, make([]int, 1), make([]float64, 1))
	})
}
