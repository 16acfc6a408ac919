package srg_test

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/reweighted/reweighted/libsvm"
	"github.com/reweighted/reweighted/srg"
)

// signedLoss is φ(t; y) = t²/2 − y·t: least squares less y²/2, a convex loss
// whose values take both signs, so that the terms of F can cancel.
type signedLoss struct{}

func (signedLoss) Value(t, y float64) float64    { return t*t/2 - y*t }
func (signedLoss) Deriv(t, y float64) float64    { return t - y }
func (signedLoss) Curv(float64, float64) float64 { return 1 }
func (signedLoss) CurvBounds() (lo, hi float64)  { return 1, 1 }
func (signedLoss) CheckLabel(float64) error      { return nil }

// exactMean returns the float64 nearest to (1/n)·Σ terms, the sum formed
// exactly (big.Float with room for every bit of every term).
func exactMean(terms []float64) float64 {
	s := new(big.Float).SetPrec(4096)
	for _, v := range terms {
		s.Add(s, new(big.Float).SetFloat64(v))
	}
	s.Quo(s, new(big.Float).SetPrec(4096).SetInt64(int64(len(terms))))
	f, _ := s.Float64()
	return f
}

// Value sums the per-example losses with compensation: on terms that
// cancel — ±2^k·(1 + r) with k up to 60 around small positive ones, whose
// plain sum loses the small ones entirely (a condition number near 1e18) —
// it is within a relative 1e-12 of the exact mean, summed in math/big.
func TestValueExactOnCancellingTerms(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 20 {
		n := 1000 + rng.IntN(1000)
		ds := &libsvm.Dataset{Ptr: []int{0}, D: 1}
		terms := make([]float64, n)
		y := make([]float64, n)
		for i := range n {
			ds.Idx = append(ds.Idx, 0)
			ds.Val = append(ds.Val, 1)
			ds.Ptr = append(ds.Ptr, i+1)
			// With x = 0 the margin is 0 and φ(0; y) = 0: use x = 1,
			// φ(1; y) = 1/2 − y.
			switch i % 4 {
			case 0:
				y[i] = -math.Ldexp(1+rng.Float64(), 40+rng.IntN(20))
			case 2:
				y[i] = -y[i-2] // cancels term i−2 up to the 1/2s
			default:
				y[i] = rng.Float64()
			}
			terms[i] = signedLoss{}.Value(1, y[i])
		}
		ds.Labels = y
		p, err := srg.NewProblem(ds, y, signedLoss{}, 0)
		require.NoError(t, err)
		want := exactMean(terms)
		got := p.Value([]float64{1})
		require.InEpsilon(t, want, got, 1e-12, "trial %d: n = %d", trial, n)
	}
}

// F(x) − F(x*), the suboptimality the traces record, is right to a few
// ulps of F*: on an rcv1-shaped set, at points where F − F* is near 1e-8
// and 1e-12 of F*, the difference of two Value calls is within 1e-15·F* of
// the difference of the exact sums of the same per-example terms, so
// within 1e-3 of it relative at the smaller.
func TestSuboptimalityExact(t *testing.T) {
	ds := libsvm.TextLike(3, libsvm.RCV1.Scaled(20))
	p := logistic(t, ds)
	sol, err := p.Solve(1e-12)
	require.NoError(t, err)
	rng := rand.New(rand.NewPCG(5, 6))
	dir := make([]float64, p.Dim())
	for j := range dir {
		dir[j] = rng.NormFloat64()
	}
	terms := func(x []float64) ([]float64, float64) {
		out := make([]float64, p.Len())
		for i := range out {
			idx, val := ds.Row(i)
			var m float64
			for k, j := range idx {
				m += val[k] * x[j]
			}
			out[i] = srg.Logistic.Value(m, ds.Labels[i])
		}
		var sq float64
		for _, v := range x {
			sq += v * v
		}
		return out, p.Mu / 2 * sq
	}
	fStar := p.Value(sol.X)
	for _, h := range []float64{1e-4, 1e-6} {
		x := make([]float64, p.Dim())
		for j := range x {
			x[j] = sol.X[j] + h*dir[j]
		}
		tx, rx := terms(x)
		ts, rs := terms(sol.X)
		// The exact difference of the loss sums, and the ℓ2 terms'
		// difference, which is far smaller than F's rounding.
		diff := new(big.Float).SetPrec(4096)
		for i := range tx {
			diff.Add(diff, new(big.Float).SetFloat64(tx[i]))
			diff.Sub(diff, new(big.Float).SetFloat64(ts[i]))
		}
		diff.Quo(diff, new(big.Float).SetPrec(4096).SetInt64(int64(len(tx))))
		want, _ := diff.Float64()
		want += rx - rs
		got := p.Value(x) - p.Value(sol.X)
		require.Positive(t, want, "h = %v", h)
		require.InDelta(t, want, got, 1e-15*fStar, "h = %v: F − F* = %v, F* = %v", h, want, fStar)
		require.InEpsilon(t, want, got, 1e-3, "h = %v: F − F* = %v, F* = %v", h, want, fStar)
	}
}

// Two small logistic problems with huge features (10⁵ to 10⁷) and μ of
// 1e-8 and 1e-9, nearly separable: Newton reaches ‖∇F‖ ≤ 1e-12 only by
// backtracking its undamped steps far below 1/1024 (the full steps are
// poor, damped ones too slow; it takes over 100 Newton steps). The
// certificate holds, and the gradient at x*, recomputed with its sums exact
// in math/big, is within it.
func TestSolveCertificateShortSteps(t *testing.T) {
	for _, c := range []struct {
		mu   float64
		rows [][]float64
		y    []float64
	}{
		{1e-8, [][]float64{
			{1.2425085671665003e+06, 109046.56023814241, -643519.5271519248, -7.807476572138728e+06},
			{881952.8489750755, 1.7117144855398886e+07, 71154.50897968623, 1.1109601127531233e+06},
			{41623.66531530829, -201131.98768903606, -4.6535367564506605e+06, 117708.22252303199},
			{-4.231888749760826e+06, 4.868095055433782e+06, 667075.409216193, 167991.2856276694},
			{-256271.24650412615, 1.75450420322816e+07, -1.1777171427089239e+07, -109001.02851872418}},
			[]float64{1, -1, 1, 1, 1}},
		{1e-9, [][]float64{
			{-631752.3958388467, -464569.8795665845, -266979.36169255193, 7.668030658085535e+06},
			{228399.2257129446, 1.2296014002759203e+06, -3.429639002279906e+06, -5.005028851385888e+06},
			{9.795067894773956e+06, -7433.40525175761, -354145.60148047225, 3.5480769042761475e+06},
			{88238.21181592997, -68792.69719987322, -1.334935461711381e+07, 4.776754483735038e+06},
			{96729.05599192489, 294592.02175802225, -2.4512882865280793e+06, 1.2324903914857672e+06},
			{-1.0698459001837533e+06, 1.5261783962976135e+07, -26648.918017465596, 95849.4101610931}},
			[]float64{-1, -1, 1, -1, -1, -1}},
	} {
		m, err := srg.NewDense(c.rows)
		require.NoError(t, err)
		p, err := srg.NewProblem(m, c.y, srg.Logistic, c.mu)
		require.NoError(t, err)
		sol, err := p.Solve(1e-12)
		require.NoError(t, err, "μ = %v", c.mu)
		require.LessOrEqual(t, sol.GradNorm, 1e-12)
		require.Greater(t, sol.Iterations, 30, "an instance where Newton needs many short steps")
		require.LessOrEqual(t, exactGradNorm(c.rows, c.y, c.mu, sol.X), 2e-12, "μ = %v", c.mu)
	}
}

// exactGradNorm returns ‖∇F(x)‖ for the logistic loss with margins and
// sums exact in math/big (only φ'(t) at the rounded margin is a float64).
func exactGradNorm(rows [][]float64, y []float64, mu float64, x []float64) float64 {
	const prec = 4096
	d := len(x)
	g := make([]*big.Float, d)
	for j := range g {
		g[j] = new(big.Float).SetPrec(prec)
	}
	for i, a := range rows {
		t := new(big.Float).SetPrec(prec)
		for j := range a {
			t.Add(t, new(big.Float).SetPrec(prec).Mul(big.NewFloat(a[j]), big.NewFloat(x[j])))
		}
		tf, _ := t.Float64()
		c := srg.Logistic.Deriv(tf, y[i]) / float64(len(rows))
		for j := range a {
			g[j].Add(g[j], new(big.Float).SetPrec(prec).Mul(big.NewFloat(c), big.NewFloat(a[j])))
		}
	}
	var s float64
	for j := range g {
		g[j].Add(g[j], new(big.Float).SetPrec(prec).Mul(big.NewFloat(mu), big.NewFloat(x[j])))
		v, _ := g[j].Float64()
		s += v * v
	}
	return math.Sqrt(s)
}
