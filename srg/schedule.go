package srg

import (
	"fmt"
	"math"

	"github.com/reweighted/reweighted"
)

// Schedule gives the step size α_k and the lower bound ε_k of iteration k.
// Methods other than SRG ignore ε_k.
type Schedule interface {
	At(k int) (alpha, eps float64)
}

// Constant is the schedule α_k = Alpha, ε_k = Eps.
type Constant struct{ Alpha, Eps float64 }

// At implements Schedule.
func (c Constant) At(int) (float64, float64) { return c.Alpha, c.Eps }

// Decreasing is the schedule of the form
//
//	α_k = (2(k + k0) + 1) / ([C + (k + k0)(k + k0 + 2)]·Scale),   ε_k = Ratio·α_k,
//
// shared by Corollary 2 of the paper and by its experiments (Appendix C).
// Build it with Corollary2 or Experimental.
type Decreasing struct {
	K0, C, Scale, Ratio float64
}

// At implements Schedule.
func (s Decreasing) At(k int) (float64, float64) {
	kk := float64(k) + s.K0
	a := (2*kk + 1) / ((s.C + kk*(kk+2)) * s.Scale)
	return a, s.Ratio * a
}

// Corollary2 returns the decreasing schedule of Corollary 2 for n examples,
// smoothness L and strong convexity μ: with ζ = min(L/n, μ),
// k0 = 80L/ζ − 2, c = 40L/ζ, α_k as in Decreasing with scale ζ, and
// ε_k = 20Lα_k/n. It starts at α_0 = 1/(40L), ε_0 = 1/(2n), keeps
// α_k ≤ nε_k/(20L) (with equality) and decreases like 2/(ζk).
func Corollary2(n int, L, mu float64) Decreasing {
	zeta := math.Min(L/float64(n), mu)
	return Decreasing{K0: 80*L/zeta - 2, C: 40 * L / zeta, Scale: zeta, Ratio: 20 * L / float64(n)}
}

// Experimental returns the decreasing schedule of the paper's experiments
// (Appendix C) for n examples, mini-batch smoothness 𝓛 (see
// MiniBatchSmoothness) and strong convexity μ: k0 = 4𝓛/μ − 2, c = 2𝓛/μ,
// α_k as in Decreasing with scale μ, and ε_k = 𝓛α_k/n. It starts at
// α_0 = 1/(2𝓛), the constant step of the same experiments, and ε_0 = 1/(2n).
func Experimental(n int, bigL, mu float64) Decreasing {
	return Decreasing{K0: 4*bigL/mu - 2, C: 2 * bigL / mu, Scale: mu, Ratio: bigL / float64(n)}
}

// ExperimentalConstant returns the constant schedule of the paper's
// experiments: α = 1/(2𝓛) (the largest step of the SGD analysis of Gower et
// al. 2019) and ε = 1/(2n).
func ExperimentalConstant(n int, bigL float64) Constant {
	return Constant{Alpha: 1 / (2 * bigL), Eps: 1 / (2 * float64(n))}
}

// MiniBatchSmoothness returns the expected smoothness of a mini-batch of m
// of n examples (Appendix C, after Gower et al. 2019),
//
//	𝓛 = (n − m)/(m(n − 1))·Lmax + n(m − 1)/(m(n − 1))·L,
//
// which is Lmax for m = 1 and L for m = n.
func MiniBatchSmoothness(n, m int, lmax, l float64) float64 {
	if n == 1 {
		return l
	}
	nf, mf := float64(n), float64(m)
	return (nf-mf)/(mf*(nf-1))*lmax + nf*(mf-1)/(mf*(nf-1))*l
}

// checkEps reports an ε outside (0, 1/n] (Algorithm 1's range).
func checkEps(eps float64, n int) error {
	if !(eps > 0 && eps <= 1/float64(n)) {
		return fmt.Errorf("srg: ε = %v not in (0, 1/%d]: %w", eps, n, reweighted.ErrEpsilon)
	}
	return nil
}
