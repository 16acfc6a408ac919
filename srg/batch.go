package srg

import "fmt"

// Protocol selects how the examples of a mini-batch are drawn.
type Protocol int

const (
	// WithReplacement draws the m examples of a batch independently: SGD and
	// SVRG uniformly, SRG from p_k, each weighted by 1/(n p_k^i).
	WithReplacement Protocol = iota
	// WithoutReplacement is the protocol of the paper's experiments
	// (Appendix C): m distinct examples per batch. SGD and SVRG draw them
	// uniformly and average them; SRG draws them by ordered successive
	// sampling from p_k (reweighted.DrawBatch) and weights them with
	// DesRajWeights, which corrects the bias of the plain importance
	// weights 1/(n p^i) under sampling without replacement.
	WithoutReplacement
)

var protocolNames = [...]string{"with replacement", "without replacement"}

// MarshalText implements encoding.TextMarshaler: the protocol's name.
func (p Protocol) MarshalText() ([]byte, error) { return []byte(p.String()), nil }

func (p Protocol) String() string {
	if p >= 0 && int(p) < len(protocolNames) {
		return protocolNames[p]
	}
	return fmt.Sprintf("Protocol(%d)", int(p))
}

// DesRajWeights writes into w the weights of Des Raj's estimator (1956) for
// an ordered sample drawn by successive sampling without replacement, scaled
// so that (1/m) Σ_k w[k]·y_{i_k} is an unbiased estimate of the mean
// (1/n) Σ_i y_i of n values, where probs[k] is the unconditional
// probability p_{i_k} of the k-th item drawn.
//
// Des Raj's estimator of the total Σ_i y_i is the mean of
//
//	t_1 = y_{i_1}/p_{i_1},   t_k = Σ_{j<k} y_{i_j} + y_{i_k}·(1 − Σ_{j<k} p_{i_j})/p_{i_k},
//
// each of which is unbiased given the items drawn before it. Collecting the
// coefficient of each y_{i_k} (0-based k) gives
//
//	w[k] = ((1 − Σ_{j<k} p_{i_j})/p_{i_k} + m − 1 − k) / n.
//
// For m = 1 this is the importance weight 1/(n p). The paper uses "the
// mini-batch estimator of El Hanchi and Stephens (2020)" for this bias
// correction without stating it; Des Raj's is the classical unbiased
// estimator for ordered successive sampling and is what this package uses.
//
// An item with p = 0 is drawn only once every item left has p = 0
// (reweighted.DrawBatch at ε = 0 then draws uniformly among them and reports
// p = 0), and so are the items after it. If the first r items drawn have
// p > 0, the other m − r are a uniform sample without replacement of the
// z = n − r items of p = 0, whose total no t_k with k < r sees: every t_k
// takes it as the expansion estimate z/(m − r)·Σ of their y, which gives each
// of them the same weight m·z/((m − r)·n) (a weight varying with the
// position would only add variance, their order being exchangeable). The
// estimate is then unbiased whatever their y; a batch that draws none of
// them (m ≤ r) is unbiased provided they have y = 0, as importance sampling
// assumes. w and probs must have the same length m; w may alias no other
// slice.
func DesRajWeights(n int, probs, w []float64) {
	m := len(probs)
	w = w[:m] // so that the loop checks no index
	nf := float64(n)
	used := 0.0
	after := float64(m - 1) // m − 1 − k, exact as a float64
	r := -1                 // the position of the first item of p = 0
	for k, p := range probs {
		if p == 0 {
			if r < 0 {
				r = k
			}
			w[k] = float64(m) * float64(n-r) / (float64(m-r) * nf)
		} else {
			w[k] = ((1-used)/p + after) / nf
		}
		used += p
		after--
	}
}

// uniformBatch fills items with m distinct examples of n, drawn uniformly
// without replacement by a partial Fisher–Yates shuffle of perm (a
// permutation of [0, n) that stays one), in O(m).
func uniformBatch(perm []int, items []int, intN func(int) int) {
	n := len(perm)
	for k := range items {
		j := k + intN(n-k)
		perm[k], perm[j] = perm[j], perm[k]
		items[k] = perm[k]
	}
}
