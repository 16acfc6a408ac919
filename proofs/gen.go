package proofs

import (
	"math"
	"math/rand/v2"
)

// drawKeys returns n keys built from integers and powers of two, with zeros,
// ties, subnormals and huge keys drawn on purpose: uniform floats almost never
// produce the cases where a proof's inequalities are tight or a float
// comparison is delicate. The sum stays far below reweighted.MaxSum.
func drawKeys(r *rand.Rand, n int) []float64 {
	keys := make([]float64, n)
	// One exponent range per vector, so that some vectors are all tiny,
	// some all huge, and some mixed.
	lo, hi := -8, 8
	switch r.IntN(6) {
	case 0:
		lo, hi = -1074, -1000 // subnormal and tiny
	case 1:
		lo, hi = 780, 820 // huge, n·2^821 < MaxSum
	case 2:
		lo, hi = -1074, 820 // everything
	}
	for i := range keys {
		switch k := r.IntN(10); {
		case k == 0:
			keys[i] = 0
		case k <= 2 && i > 0:
			keys[i] = keys[r.IntN(i)] // tie
		case k == 3:
			keys[i] = float64(1 + r.IntN(4)) // small integers tie often
		default:
			m := float64(1 + r.IntN(1<<20))
			keys[i] = math.Ldexp(m, lo+r.IntN(hi-lo+1)-20)
		}
	}
	return keys
}

// drawEps returns ε in [0, 1/n]: the end points, 1/2n, tiny values and
// uniform draws.
func drawEps(r *rand.Rand, n int) float64 {
	top := 1 / float64(n)
	switch r.IntN(8) {
	case 0:
		return 0
	case 1:
		return top
	case 2:
		return 1 / float64(2*n)
	case 3:
		return math.Ldexp(top, -1-r.IntN(1060))
	default:
		return r.Float64() * top
	}
}

// drawHalfEps returns ε in (0, 1/2n], the range of the convergence analysis.
func drawHalfEps(r *rand.Rand, n int) float64 {
	top := 1 / float64(2*n)
	switch r.IntN(4) {
	case 0:
		return top
	case 1:
		return top * math.Pow(10, -4*r.Float64())
	default:
		return top * (1 - r.Float64())
	}
}

// tieInstance returns keys and ε = 2^-k for which the predicate of Lemma 1
// holds with equality at rank t: a_π(t)·(1−(n−t)ε) = ε·S(t) exactly. These
// are the instances where a float search may legitimately stop at either
// side of the tie. With m = n−t+1 the tied key is q when the t−1 larger keys
// sum to q·(2^k − m).
func tieInstance(r *rand.Rand, n int) ([]float64, float64) {
	if n < 2 {
		return []float64{1}, 1
	}
	t := 2 + r.IntN(n-1) // rank of the tie, in [2, n]
	k := 1
	for 1<<k < 2*n {
		k++
	}
	k += r.IntN(6)
	m := n - t + 1
	q := int64(1 + r.IntN(8))
	total := q * (int64(1)<<k - int64(m))
	keys := make([]float64, 0, n)
	// t−1 keys, each at least q, summing to total.
	rest := total - q*int64(t-1)
	for j := 0; j < t-1; j++ {
		extra := int64(0)
		if j == t-2 {
			extra = rest
		} else if rest > 0 {
			extra = r.Int64N(rest + 1)
		}
		rest -= extra
		keys = append(keys, float64(q+extra))
	}
	keys = append(keys, float64(q))
	for len(keys) < n {
		keys = append(keys, float64(r.Int64N(q+1))) // at most the tied key
	}
	r.Shuffle(n, func(i, j int) { keys[i], keys[j] = keys[j], keys[i] })
	return keys, math.Ldexp(1, -k)
}
