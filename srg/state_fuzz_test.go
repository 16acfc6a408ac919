package srg

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/reweighted/reweighted"
	"github.com/reweighted/reweighted/btree"
	"github.com/reweighted/reweighted/levels"
	"github.com/reweighted/reweighted/libsvm"
)

// fuzzRuns returns a problem of 6 examples of 3 features and the options
// of every method, protocol and SRG sampler on it, one seed and shape for
// all, so that a State of one fits several and Resume gets to run it.
func fuzzRuns(tb testing.TB) (*Problem, []Options) {
	ds := libsvm.Synthetic(5, 6, 3)
	p, err := NewProblem(ds, ds.Labels, Squared, 0.1)
	require.NoError(tb, err)
	xs := []float64{1, -1, 0.5}
	var runs []Options
	for _, proto := range []Protocol{WithReplacement, WithoutReplacement} {
		for _, m := range []Method{SGD, Reshuffled, SRG, SRG, SVRG} {
			o := Options{Method: m, Protocol: proto, Batch: 2, Schedule: Constant{Alpha: 0.05, Eps: 0.1},
				Epochs: 2, PerEpoch: 3, Seed: 11, XStar: xs, Suboptimality: true, Variance: true}
			switch {
			case m == SVRG:
				o.Q = 0.25
			case m == SRG && len(runs)%5 == 2:
				o.NewSampler = func(n int) reweighted.Distribution { return btree.New(n) }
			case m == SRG:
				o.NewSampler = func(n int) reweighted.Distribution { return levels.New(n) }
			}
			runs = append(runs, o)
		}
	}
	return p, runs
}

// FuzzState decodes arbitrary bytes as a State, as they are and with their
// checksum made good (so that the checks behind it are reached). Neither
// may panic; a rejection wraps ErrState; a State decoded encodes to the
// same bytes, and Resume of it with every run's options, which fails or
// runs to the end, leaves it as it was and does not panic. The seeds are the States of every
// run at its first, a middle and its last checkpoint.
//
//	go test ./srg -run '^$' -fuzz FuzzState -fuzztime 2m
func FuzzState(f *testing.F) {
	p, runs := fuzzRuns(f)
	for _, o := range runs {
		for _, at := range []int{0, 3, 6} {
			f.Add(savedAt(f, p, o, at))
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		variants := [][]byte{data}
		if len(data) >= 4 {
			variants = append(variants, reseal(append([]byte(nil), data...)))
		}
		for _, b := range variants {
			var st State
			if err := st.UnmarshalBinary(b); err != nil {
				require.ErrorIs(t, err, ErrState)
				continue
			}
			again, err := st.MarshalBinary()
			require.NoError(t, err)
			require.Equal(t, b, again, "a decoded State encodes to other bytes")
			for _, o := range runs {
				_, _ = Resume(p, o, &st) // an error is fine, a panic is not
				again, err := st.MarshalBinary()
				require.NoError(t, err)
				require.Equal(t, b, again, "Resume changed the State")
			}
		}
	})
}
