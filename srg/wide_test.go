package srg_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/floats"

	"github.com/reweighted/reweighted/libsvm"
	"github.com/reweighted/reweighted/srg"
)

// rayleigh returns vᵀGv/vᵀv for the Gram operator G = (1/n) Σ a_i a_iᵀ of
// ds after steps of the power method from a random start: a lower bound on
// λ_max(G), computed here independently of the package.
func rayleigh(ds *libsvm.Dataset, steps int) float64 {
	rng := rand.New(rand.NewPCG(11, 12))
	v := make([]float64, ds.Dim())
	for j := range v {
		v[j] = rng.NormFloat64()
	}
	gv := make([]float64, ds.Dim())
	var q float64
	for range steps {
		clear(gv)
		for i := range ds.Len() {
			idx, val := ds.Row(i)
			var t float64
			for k, j := range idx {
				t += val[k] * v[j]
			}
			for k, j := range idx {
				gv[j] += t * val[k] / float64(ds.Len())
			}
		}
		q = floats.Dot(v, gv) / floats.Dot(v, v)
		floats.Scale(1/floats.Norm(gv, 2), gv)
		v, gv = gv, v
	}
	return q
}

// On the news20 shape (d = 1,355,191, 455 non-zeros a row; a tenth of its
// n and d unless -long, where it is full size, as is rcv1's): Solve picks
// Newton-CG and certifies x* to 1e-12; L lies above the power method's
// Rayleigh quotient after 30 steps (which the Lanczos estimate, on a larger
// Krylov space, cannot be below) and below Lmax; every method runs two
// epochs with the paper's constant step, mini-batches of 128, and gets
// closer to x*.
func TestWideSets(t *testing.T) {
	shapes := []libsvm.Shape{libsvm.News20.Scaled(10)}
	if *long {
		shapes = []libsvm.Shape{libsvm.RCV1, libsvm.News20}
	}
	for _, s := range shapes {
		ds := libsvm.TextLike(1, s)
		p := logistic(t, ds)
		sol, err := p.Solve(1e-12)
		require.NoError(t, err, s.Name)
		require.Equal(t, srg.NewtonCG, sol.Solver)
		require.LessOrEqual(t, sol.GradNorm, 1e-12)
		L := p.L()
		require.GreaterOrEqual(t, L, rayleigh(ds, 30)/4+p.Mu, s.Name)
		require.LessOrEqual(t, L, p.Lmax())
		bigL := srg.MiniBatchSmoothness(p.Len(), 128, p.Lmax(), L)
		for _, m := range []srg.Method{srg.SGD, srg.SRG, srg.SVRG} {
			tr, err := srg.Run(p, srg.Options{Method: m, Schedule: srg.ExperimentalConstant(p.Len(), bigL), Batch: 128,
				Protocol: srg.WithoutReplacement, Epochs: 2, XStar: sol.X, Seed: 1})
			require.NoError(t, err, "%s %v", s.Name, m)
			last := tr.RelErr[len(tr.RelErr)-1]
			require.Less(t, last, 1.0, "%s %v", s.Name, m)
			require.False(t, math.IsNaN(last))
		}
	}
}
