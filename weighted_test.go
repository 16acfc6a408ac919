package reweighted_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/reweighted/reweighted"
	"github.com/reweighted/reweighted/levels"
	"github.com/reweighted/reweighted/naive"
	"github.com/reweighted/reweighted/samplertest"
	"github.com/stretchr/testify/require"
)

// Property: Proportional makes a sampler of either kind a weighted sampler
// at ε = 0 with no Find: its Total is the exact sum within 1e-9, its draws
// are never of weight 0 (the kit checks the law), and with no items or
// every weight 0 Total and Draw return ErrEmpty.
func TestProportional(t *testing.T) {
	for name, d := range map[string]reweighted.Distribution{"naive": naive.New(5), "levels": levels.New(5)} {
		w := reweighted.Proportional(d)
		_, finds := w.(reweighted.WeightedFinder)
		require.False(t, finds, "%s: a Find in canonical order would not be index order", name)
		_, err := w.Total()
		require.ErrorIs(t, err, reweighted.ErrEmpty, name)
		_, err = w.Draw(rand.NewPCG(1, 2))
		require.ErrorIs(t, err, reweighted.ErrEmpty, name)
		keys := []float64{3, 0, 0x1p-1074, 1e20, 0}
		for i, a := range keys {
			require.NoError(t, w.Set(i, a))
			require.Equal(t, a, d.Key(i), "%s: Set goes to the Distribution", name)
		}
		require.Equal(t, 5, w.Len())
		require.Equal(t, 1e20, w.Key(3))
		require.NoError(t, samplertest.VerifyWeighted(w, keys, nil), name)
		require.ErrorIs(t, w.Set(5, 1), reweighted.ErrIndex, name)
		require.ErrorIs(t, w.Set(0, math.NaN()), reweighted.ErrKey, name)
		for i := range keys {
			require.NoError(t, w.Set(i, 0))
		}
		_, err = w.Draw(rand.NewPCG(1, 2))
		require.ErrorIs(t, err, reweighted.ErrEmpty, "%s: every weight set back to 0", name)
	}
	w := reweighted.Proportional(naive.New(0))
	_, err := w.Total()
	require.ErrorIs(t, err, reweighted.ErrEmpty)
	_, err = w.Draw(rand.NewPCG(1, 2))
	require.ErrorIs(t, err, reweighted.ErrEmpty)
	require.PanicsWithValue(t, "reweighted: reweighted_test.bare is neither a Sampler nor a LawSampler", func() {
		reweighted.Proportional(bare{naive.New(2)})
	})
}
