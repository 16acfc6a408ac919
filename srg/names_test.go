package srg_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/reweighted/reweighted/libsvm"
	"github.com/reweighted/reweighted/srg"
)

// Every method and protocol has its name; a value out of range prints as
// its number instead of panicking.
func TestMethodAndProtocolNames(t *testing.T) {
	for m, name := range []string{"SGD", "Reshuffled", "SRG", "SVRG"} {
		require.Equal(t, name, srg.Method(m).String())
	}
	require.Equal(t, "Method(4)", srg.Method(4).String())
	require.Equal(t, "Method(-1)", srg.Method(-1).String())
	require.Equal(t, "with replacement", srg.WithReplacement.String())
	require.Equal(t, "without replacement", srg.WithoutReplacement.String())
	require.Equal(t, "Protocol(2)", srg.Protocol(2).String())
	require.Equal(t, "Protocol(-1)", srg.Protocol(-1).String())
}

// Run keeps the iterate x = s·v in scaled form; the scale must not overflow
// while x itself is representable. Here every step multiplies x by
// −(3 + 10⁻⁶) (μ = 4, α = 1, labels 0, rows 10⁻³), so after 660 steps
// |x| ≈ 10⁻¹⁰·3⁶⁶⁰ ≈ 10³⁰⁵ while 3⁶⁶⁰ alone would overflow: Run must end
// without error at the product, computed here step by step.
func TestRunIterateNearOverflow(t *testing.T) {
	ds := &libsvm.Dataset{Labels: []float64{0, 0}, Ptr: []int{0, 1, 2}, Idx: []int32{0, 0}, Val: []float64{1e-3, 1e-3}, D: 1}
	p, err := srg.NewProblem(ds, ds.Labels, srg.Squared, 4)
	require.NoError(t, err)
	const steps = 660
	tr, err := srg.Run(p, srg.Options{Method: srg.SGD, Schedule: srg.Constant{Alpha: 1}, X0: []float64{1e-10},
		Epochs: steps / 2})
	require.NoError(t, err)
	require.Equal(t, steps, tr.Iterations)
	want := 1e-10
	for range steps {
		want = -3*want - 1e-3*(1e-3*want)
	}
	require.InEpsilon(t, want, tr.X[0], 1e-9)
}
