package samplertest

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"
)

// The threshold of a mass test is the bias whose Chernoff score reaches
// massBound: checked against the normal approximation, z² = 2·massBound,
// to which it tends for small biases.
func TestMassThresholdByHand(t *testing.T) {
	for _, c := range []struct {
		p float64
		d int
	}{{0.5, 4_000_000}, {0.3, 1_000_000}, {0.01, 10_000_000}} {
		r := MassThreshold(c.p, c.d)
		z := c.p * r / math.Sqrt(c.p*(1-c.p)/float64(c.d))
		require.InDelta(t, math.Sqrt(2*massBound), z, 0.05, "p = %v, d = %v", c.p, c.d)
	}
	require.True(t, math.IsInf(MassThreshold(1-1e-6, 1000), 1), "no count of 1000 draws fails a mass of 1 − 10^-6 from above")
}

// massDist returns the samplers of lawRef with an over-draw of the tail
// hidden from AttemptProbs, as the sampler whose Prob is right but whose
// draws are not.
func tailOverdraw(over float64) NewDist {
	return refWith(func(s *lawRef) { s.overdraw, s.hidden = over, true })
}

// The mass tests have the power the documentation states. At 10^6 draws
// a case a tail drawn 1% too often (each tail item's weight times 1.02 on
// the case whose tail mass is 1/2: the tail's mass 1.0% high) fails
// Masses, by the tail first; with -long, the reference passes at 10^6,
// and at 8·10^6 (twice the checker's default -massdraws) the over-draw of 0.78%
// of every tail item (the tail's mass 0.39% high) fails by the tail.
func TestMassesHavePower(t *testing.T) {
	oldM, oldD := *massDrawsFlag, *drawsFlag
	defer func() { *massDrawsFlag, *drawsFlag = oldM, oldD }()
	*massDrawsFlag, *drawsFlag = 1_000_000, 1_000_000
	failed := lawFailures("Masses", lawMasses, tailOverdraw(1.02))
	require.NotEmpty(t, failed)
	require.Contains(t, failed[0], "a tail of mass 1/2")
	require.Regexp(t, `masses are off \(the most off first\):\s+the tail \(ranks 9 to 24\)`, failed[0])
	if !*long {
		return
	}
	require.Empty(t, lawFailures("Masses", lawMasses, refWith(func(*lawRef) {})))
	*massDrawsFlag = 8_000_000
	failed = lawFailures("Masses", lawMasses, tailOverdraw(1.0078))
	require.NotEmpty(t, failed)
	require.Contains(t, failed[0], "the tail (ranks 9 to 24)")
}

// The first mass case has a tail of mass 1/2 (ρ = 8 of 24 at ε = 1/32) and
// head and tail keys in the binade of the cutoff.
func TestLawMassCasesHitTheirClasses(t *testing.T) {
	c := lawMassCases()[0]
	ex := Oracle(c.keys, c.eps)
	require.Equal(t, 8, ex.Rho)
	names := map[string]bool{}
	for _, m := range LawMasses(ex) {
		names[m.Name] = true
	}
	require.True(t, names["the head part of the keys in [2^2, 2^3), which holds the cutoff"], "%v", names)
	require.True(t, names["the tail (ranks 9 to 24)"])
}

// KKT reads a p within its slack of ε as ε: a tail item whose p is ε
// rounded another way, (1 − head mass)/(n − ρ) a few ulps off, is still in
// the tail, and a correct head item is not blamed for it; and a tail item
// drawn with a p that is neither ε nor a/λ is the item named.
func TestKKTBlamesTheItemOff(t *testing.T) {
	keys := []float64{8, 4, 1e-3, 2e-3, 0, 1e-300}
	eps := 0.0625
	// ρ = 2: λ = 12/(1 − 4ε) = 16, p = 0.5, 0.25 and ε for the tail.
	p := []float64{0.5, 0.25, eps, eps, eps, eps}
	require.NoError(t, KKT(keys, eps, p))
	for _, i := range []int{2, 3, 4, 5} {
		p[i] = math.Nextafter(eps, 1)
	}
	require.NoError(t, KKT(keys, eps, p), "tail p one ulp above ε")
	p = []float64{0.5 - 0.0625*0.0078, 0.25, eps, 0.0625 * 1.0078, eps, eps}
	require.ErrorContains(t, KKT(keys, eps, p), "p[3] = ")
}
