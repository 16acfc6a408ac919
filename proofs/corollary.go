package proofs

import (
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
)

// schedule gives α_k and ε_k of one run of SRG.
type schedule func(k int) (alpha, eps float64)

// simulate runs Algorithm 1 runs times from x0 and g0 (zero when nil) for
// the largest checkpoint's number of steps, sampling with the reference backend,
// and returns the mean and standard error of T^k at each checkpoint. ratio
// is the constant α_k/ε_k that T is defined with.
func simulate(r *rand.Rand, p *problem, x0, g0 []float64, sched schedule, ratio float64, runs int, checkpoints []int) (mean, se []float64, err error) {
	n, d := p.n, p.d
	coef := ratio / float64(n) * paperA / p.l
	sum := make([]float64, len(checkpoints))
	sum2 := make([]float64, len(checkpoints))
	x := make([]float64, d)
	g := make([]float64, n*d)
	gi := make([]float64, d)
	for range runs {
		copy(x, x0)
		clear(g)
		keys := make([]float64, n)
		if g0 != nil {
			copy(g, g0)
			for i := range n {
				keys[i] = math.Sqrt(dot(g[i*d:(i+1)*d], g[i*d:(i+1)*d]))
			}
		}
		s, err := loadReference(keys)
		if err != nil {
			return nil, nil, err
		}
		c := 0
		for k := 0; c < len(checkpoints); k++ {
			if k == checkpoints[c] {
				t := sqDist(x, p.xs)
				for i := range n {
					t += coef * sqDist(g[i*d:(i+1)*d], p.gs[i*d:(i+1)*d])
				}
				sum[c] += t
				sum2[c] += t * t
				c++
				if c == len(checkpoints) {
					break
				}
			}
			alpha, eps := sched(k)
			i, pi, err := s.Sample(eps, r.Float64())
			if err != nil {
				return nil, nil, err
			}
			p.grad(i, x, gi)
			w := alpha / (float64(n) * pi)
			for j := range x {
				x[j] -= w * gi[j]
			}
			if r.Float64() < eps/pi {
				copy(g[i*d:(i+1)*d], gi)
				if err := s.Set(i, math.Sqrt(dot(gi, gi))); err != nil {
					return nil, nil, err
				}
			}
		}
	}
	mean, se = make([]float64, len(checkpoints)), make([]float64, len(checkpoints))
	for c := range checkpoints {
		m := sum[c] / float64(runs)
		v := math.Max(0, sum2[c]/float64(runs)-m*m)
		mean[c], se[c] = m, math.Sqrt(v/float64(runs-1))
	}
	return mean, se, nil
}

// initialT returns T^0 for x0 and g0 (zero when nil).
func (p *problem) initialT(x0, g0 []float64, ratio float64) float64 {
	t := sqDist(x0, p.xs)
	for i := range p.n {
		d := p.gsNorm[i] * p.gsNorm[i]
		if g0 != nil {
			d = sqDist(g0[i*p.d:(i+1)*p.d], p.gs[i*p.d:(i+1)*p.d])
		}
		t += ratio / float64(p.n) * paperA / p.l * d
	}
	return t
}

// mcProblem draws the least-squares problem and start of a Monte Carlo run:
// few components, so that many runs are cheap, and μ close to L/n, so that
// the contraction is visible within a few thousand steps.
func mcProblem(r *rand.Rand) (*problem, []float64, error) {
	for {
		p, err := newProblem(r, false, 6, 2)
		if err != nil {
			return nil, nil, err
		}
		if p.mu < p.l/float64(p.n)/20 {
			continue
		}
		x0 := make([]float64, p.d)
		for j := range x0 {
			x0[j] = p.xs[j] + 3*r.NormFloat64()
		}
		return p, x0, nil
	}
}

// mcMargin is the number of standard errors a Monte Carlo mean may exceed a
// bound by before the check fails.
const mcMargin = 4

func checkCorollary1(cfg Config) (Result, error) {
	r := newRand(cfg, 10)
	res := Result{Pass: true}
	checkpoints := []int{0, 1, 10, 100, 300, 1000, 2000}
	runs := scale(cfg, 200, 10)
	for _, frac := range []float64{1, 0.25} {
		p, x0, err := mcProblem(r)
		if err != nil {
			return res, err
		}
		n := float64(p.n)
		eps := frac / (2 * n)
		alpha := n * eps / (20 * p.l)
		mean, se, err := simulate(r, p, x0, nil, func(int) (float64, float64) { return alpha, eps }, alpha/eps, runs, checkpoints)
		if err != nil {
			return res, err
		}
		t0 := p.initialT(x0, nil, alpha/eps)
		zeta := p.zeta()
		for c, k := range checkpoints {
			bound := math.Pow(1-alpha*zeta, float64(k))*t0 + (1+2*n*eps)*2*alpha*p.sigma2/zeta
			res.WorstRatio = math.Max(res.WorstRatio, mean[c]/bound)
			if mean[c] > bound*(1+1e-12)+mcMargin*se[c] {
				res.Pass = false
				res.Notes += fmt.Sprintf("ε=%v k=%d: mean T = %v ± %v > bound %v; ", eps, k, mean[c], se[c], bound)
			}
		}
		res.Instances += runs
		res.Notes += fmt.Sprintf("ε = %.3g/n: mean T^k/bound at k=%v: %s; ", frac/2, checkpoints, ratios(mean, se, func(c int) float64 {
			return math.Pow(1-alpha*zeta, float64(checkpoints[c]))*t0 + (1+2*n*eps)*2*alpha*p.sigma2/zeta
		}))
	}
	res.Notes += fmt.Sprintf("%d runs each, margin %d standard errors", runs, mcMargin)
	return res, nil
}

// ratios formats mean/bound at each checkpoint.
func ratios(mean, se []float64, bound func(c int) float64) string {
	s := ""
	for c := range mean {
		if c > 0 {
			s += " "
		}
		s += fmt.Sprintf("%.3g", mean[c]/bound(c))
	}
	return s
}

// decreasing returns the schedule of Corollary 2 for L, ζ and n, with
// k0 = 80L/ζ − 2 and c = 40L/ζ.
func decreasing(l, zeta float64, n int) (sched schedule, k0, c float64) {
	k0, c = 80*l/zeta-2, 40*l/zeta
	return func(k int) (float64, float64) {
		m := float64(k) + k0
		alpha := (2*m + 1) / ((c + m*(m+2)) * zeta)
		return alpha, 20 * l * alpha / float64(n)
	}, k0, c
}

// cor2Bound is the bound of Corollary 2's proof before the O(·) step, as
// corrected and as printed. Two corrections: [c + m(m+2)]α_t² is
// (2m+1)²/([c + m(m+2)]ζ²), so the σ*² terms carry 1/ζ²; and the telescoped
// sum leaves [c + (k+k0−1)(k+k0+1)]E T^k, not [c + (k+k0)(k+k0+2)]E T^k
// (the printed factor makes the bound at k = 0 smaller than T^0).
func cor2Bound(k int, k0, c, l, zeta, sigma2, t0 float64) (corrected, printed float64) {
	kk := float64(k)
	start := c + (k0-1)*(k0+1)
	last := c + (kk+k0-1)*(kk+k0+1)
	lg := math.Log(last / start)
	corrected = (start*t0 + 8*kk*sigma2/(zeta*zeta) + 320*l*sigma2/(zeta*zeta*zeta)*lg) / last
	den := c + (kk+k0)*(kk+k0+2)
	printed = (start*t0 + 8*kk*sigma2 + 320*l*sigma2/zeta*lg) / den
	return corrected, printed
}

// schedule2Exact checks the schedule of Corollary 2 in exact arithmetic for
// n items, L and ζ ≤ L/n, over steps 0..steps. It returns the largest
// [c + m(m+2)]α_t²·ζ²/4 (must be ≤ 1) and whether the printed equality
// [c + m(m+2)]α_t² = (2m+1)²/[c + m(m+2)] held at t = 0.
func schedule2Exact(n int, l, zeta *big.Rat, steps int) (worst float64, printedHolds bool, err error) {
	one := big.NewRat(1, 1)
	k := new(big.Rat).Quo(l, zeta)
	k0 := new(big.Rat).Sub(new(big.Rat).Mul(big.NewRat(80, 1), k), big.NewRat(2, 1))
	c := new(big.Rat).Mul(big.NewRat(40, 1), k)
	nr := big.NewRat(int64(n), 1)
	den := func(m *big.Rat) *big.Rat { // c + m(m+2)
		t := new(big.Rat).Add(m, big.NewRat(2, 1))
		return t.Add(t.Mul(t, m), c)
	}
	alphaAt := func(t int) (*big.Rat, *big.Rat) {
		m := new(big.Rat).Add(k0, big.NewRat(int64(t), 1))
		num := new(big.Rat).Add(new(big.Rat).Add(m, m), one)
		return num.Quo(num, new(big.Rat).Mul(den(m), zeta)), m
	}
	// Decreasing for every t: dα/dm ≤ 0 for m ≥ k0 iff m² + m + 1 ≥ c,
	// and m² + m grows on m ≥ 0.
	if k0.Sign() < 0 {
		return 0, false, fmt.Errorf("k0 = %v < 0", k0)
	}
	t := new(big.Rat).Add(new(big.Rat).Mul(k0, k0), k0)
	if t.Add(t, one).Cmp(c) < 0 {
		return 0, false, fmt.Errorf("k0² + k0 + 1 < c: α not decreasing")
	}
	ratio0 := new(big.Rat).Quo(nr, new(big.Rat).Mul(big.NewRat(20, 1), l)) // n/(20L)
	half := big.NewRat(1, int64(2*n))
	var prev *big.Rat
	for step := 0; step <= steps; step++ {
		alpha, m := alphaAt(step)
		eps := new(big.Rat).Quo(new(big.Rat).Mul(new(big.Rat).Mul(big.NewRat(20, 1), l), alpha), nr)
		// (i) α/ε constant, (iii) α ≤ nε/20L (equality), ε in (0, 1/2n].
		if new(big.Rat).Quo(alpha, eps).Cmp(ratio0) != 0 {
			return 0, false, fmt.Errorf("t=%d: α/ε ≠ n/20L", step)
		}
		if step == 0 && eps.Cmp(half) != 0 {
			return 0, false, fmt.Errorf("ε_0 = %v ≠ 1/2n", eps)
		}
		if eps.Sign() <= 0 || eps.Cmp(half) > 0 {
			return 0, false, fmt.Errorf("t=%d: ε = %v outside (0, 1/2n]", step, eps)
		}
		if prev != nil && alpha.Cmp(prev) > 0 {
			return 0, false, fmt.Errorf("t=%d: α increases", step)
		}
		prev = alpha
		// 1 − α_tζ = [c + (m−1)(m+1)]/[c + m(m+2)].
		lhs := new(big.Rat).Sub(one, new(big.Rat).Mul(alpha, zeta))
		mm := new(big.Rat).Mul(m, m)
		rhs := new(big.Rat).Add(c, mm.Sub(mm, one))
		rhs.Quo(rhs, den(m))
		if lhs.Cmp(rhs) != 0 {
			return 0, false, fmt.Errorf("t=%d: 1 − αζ ≠ [c+(m−1)(m+1)]/[c+m(m+2)]", step)
		}
		// [c + m(m+2)]α² ≤ 4/ζ².
		v := new(big.Rat).Mul(den(m), new(big.Rat).Mul(alpha, alpha))
		v.Mul(v, new(big.Rat).Mul(zeta, zeta))
		worst = math.Max(worst, ratFloat(v)/4)
		if step == 0 {
			num := new(big.Rat).Add(new(big.Rat).Add(m, m), one)
			printed := new(big.Rat).Quo(num.Mul(num, num), den(m))
			printedHolds = new(big.Rat).Mul(den(m), new(big.Rat).Mul(alpha, alpha)).Cmp(printed) == 0
		}
	}
	return worst, printedHolds, nil
}

func checkCorollary2(cfg Config) (Result, error) {
	r := newRand(cfg, 11)
	res := Result{Pass: true}
	printedFails, exactTried := 0, 0
	cor := ErratumCount{Where: erratumCorollary2}
	worstSq := 0.0
	for range scale(cfg, 40, 10) {
		n := 1 + r.IntN(50)
		l := big.NewRat(1+r.Int64N(1000), 1+r.Int64N(1000))
		// ζ = L/(n·t) with t ≥ 1 rational, so ζ ≤ L/n.
		t := big.NewRat(1+r.Int64N(1000), 1+r.Int64N(100))
		if t.Cmp(big.NewRat(1, 1)) < 0 {
			t.Inv(t)
		}
		zeta := new(big.Rat).Quo(l, new(big.Rat).Mul(big.NewRat(int64(n), 1), t))
		worst, printedHolds, err := schedule2Exact(n, l, zeta, 60)
		exactTried++
		res.Instances++
		if err != nil {
			res.Pass = false
			res.Notes += fmt.Sprintf("n=%d L=%v ζ=%v: %v; ", n, l, zeta, err)
			continue
		}
		worstSq = math.Max(worstSq, worst)
		cor.Tried++
		if worst > 1 {
			res.Pass = false
			cor.CorrectedFails++
		}
		if !printedHolds {
			printedFails++
			cor.PrintedFails++
		}
	}
	res.Errata = []ErratumCount{cor}
	// The sum of α_t against its integral bound (1/ζ)·log(…), in floats.
	p, x0, err := mcProblem(r)
	if err != nil {
		return res, err
	}
	zeta := p.zeta()
	checkpoints := []int{0, 1, 10, 100, 1000, 3000}
	worstSum := 0.0
	for _, q := range alphaSumRatios(p.l, zeta, p.n, checkpoints[1:]) {
		worstSum = math.Max(worstSum, q)
	}
	if worstSum > 1 {
		res.Pass = false
	}
	// Two Monte Carlo starts: far from x* with g_0 = 0, where the T^0 term
	// dominates, and at (x*, ∇f_i(x*)), where T^0 = 0 and the σ*² terms are
	// all of the bound.
	runs := scale(cfg, 150, 10)
	worstMC := 0.0
	mc := ""
	for _, start := range []struct {
		name   string
		x0, g0 []float64
	}{{"from x_0 far, g_0 = 0", x0, nil}, {"from x*, g_0 = ∇f_i(x*)", p.xs, p.gs}} {
		ratios, printedRatios, err := cor2MonteCarlo(r, p, start.x0, start.g0, runs, checkpoints, &res)
		if err != nil {
			return res, err
		}
		for _, q := range ratios {
			worstMC = math.Max(worstMC, q)
		}
		mc += fmt.Sprintf("; %s, mean T^k/bound at k=%v: corrected %.3g, printed %.4g", start.name, checkpoints, ratios, printedRatios)
	}
	res.WorstRatio = max(worstSq, worstSum, worstMC)
	res.Notes += fmt.Sprintf("schedule exact on %d (n, L, ζ): (i)–(iii), decreasing, ε_0 = 1/2n, identity hold; max [c+m(m+2)]α²ζ²/4 = %.4f; "+
		"printed [c+m(m+2)]α² = (2m+1)²/[c+m(m+2)] (no 1/ζ²) false on %d of %d; Σα_t/((1/ζ)log…) ≤ %.4f; "+
		"Monte Carlo %d runs, ζ = %.3g%s",
		exactTried, worstSq, printedFails, exactTried, worstSum, runs, zeta, mc)
	return res, nil
}

// alphaSumRatios returns, at each checkpoint k ≥ 1 (increasing), Σ_{t<k} α_t
// of Corollary 2's schedule for L, ζ and n over its bound in the proof,
// (1/ζ)·log([c + (k+k0−1)(k+k0+1)]/[c + (k0−1)(k0+1)]).
func alphaSumRatios(l, zeta float64, n int, checkpoints []int) []float64 {
	sched, k0, c := decreasing(l, zeta, n)
	out := make([]float64, 0, len(checkpoints))
	sumAlpha, ci := 0.0, 0
	for k := 0; ci < len(checkpoints); k++ {
		a, _ := sched(k)
		sumAlpha += a
		if k+1 == checkpoints[ci] {
			kk := float64(k + 1)
			bound := math.Log((c+(kk+k0-1)*(kk+k0+1))/(c+(k0-1)*(k0+1))) / zeta
			out = append(out, sumAlpha/bound)
			ci++
		}
	}
	return out
}

// cor2MonteCarlo runs SRG with the schedule of Corollary 2 from x0, g0 and
// returns mean T^k over the corrected and over the printed bound at each
// checkpoint. A mean above the corrected bound by more than mcMargin
// standard errors fails res.
func cor2MonteCarlo(r *rand.Rand, p *problem, x0, g0 []float64, runs int, checkpoints []int, res *Result) (corrected, printed []float64, err error) {
	zeta := p.zeta()
	sched, k0, c := decreasing(p.l, zeta, p.n)
	ratio := float64(p.n) / (20 * p.l)
	mean, se, err := simulate(r, p, x0, g0, sched, ratio, runs, checkpoints)
	if err != nil {
		return nil, nil, err
	}
	res.Instances += runs
	t0 := p.initialT(x0, g0, ratio)
	for ci, k := range checkpoints {
		bc, bp := cor2Bound(k, k0, c, p.l, zeta, p.sigma2, t0)
		corrected = append(corrected, quotient(mean[ci], bc))
		printed = append(printed, quotient(mean[ci], bp))
		// The bound is rounded: at k = 0 it equals T^0.
		if mean[ci] > bc*(1+1e-12)+mcMargin*se[ci] {
			res.Pass = false
			res.Notes += fmt.Sprintf("k=%d: mean T = %v ± %v > bound %v; ", k, mean[ci], se[ci], bc)
		}
	}
	return corrected, printed, nil
}

// quotient returns x/y, and 0 for 0/0 (T^0 = 0 under a zero bound).
func quotient(x, y float64) float64 {
	if x == 0 && y == 0 {
		return 0
	}
	return x / y
}
