package proofs

// Erratum is one place where the paper's text and its mathematics disagree.
type Erratum struct {
	Where      string // section, statement or proof, and line
	Text       string // as printed
	Correction string // as meant
	Check      string // the test that shows it
}

// The places of the errata whose checks count, on their instances, how often
// the step as printed and as corrected fails (Result.Errata).
const (
	erratumLemma4Step3    = "Appendix B, proof of Lemma 4, third term, third line"
	erratumLemma5Nesterov = "Appendix A, proof of Lemma 5"
	erratumTheorem1Square = "Appendix B, proof of Theorem 1, strong-convexity step"
	erratumTheorem1Min    = "Appendix B, proof of Theorem 1, choice of ζ"
	erratumCorollary2     = "Appendix B, proof of Corollary 2"
)

// Errata returns the errata of the paper found while turning its claims into
// checks, in the order of the paper. ERRATA.md is the same list.
func Errata() []Erratum {
	return []Erratum{
		{
			Where:      "Lemma 1, statement",
			Text:       "orders {a_i}_{i=1}^{N} … a_π(N)",
			Correction: "{a_i}_{i=1}^{n} … a_π(n): there is no N",
			Check:      "TestLemma1",
		},
		{
			Where:      "Lemma 1, eq. (probs)",
			Text:       "p*_i = a_i/λ(ρ) if π(i) ≤ ρ",
			Correction: "if π⁻¹(i) ≤ ρ, the rank of item i (π maps ranks to items); read literally, keys (1, 3, 2) with ε = 0.3 give p = (0.3, 0.3, 0.267), which sums to 0.867",
			Check:      "TestLemma1",
		},
		{
			Where:      "Lemma 1, ε = 0",
			Text:       "p*_i = a_i/λ(ρ) with a_i = 0 gives p*_i = 0, and the objective term a_i²/p_i is 0/0",
			Correction: "read 0²/0 as 0 (the limit along Δ(ε) as ε → 0); with that convention p* is optimal over Δ(0) = Δ",
			Check:      "TestLemma1",
		},
		{
			Where:      "Section 2, eq. (var)",
			Text:       "E_{i_k∼p_k} ‖(1/(n p_k^{i_k})) ∇f_i(x_k)‖²",
			Correction: "∇f_{i_k}(x_k) inside the expectation; the second line, (1/n²) Σ_i ‖∇f_i(x_k)‖²/p_k^i, is right",
			Check:      "TestLemma4",
		},
		{
			Where:      "Algorithm 2, input",
			Text:       "(a_π(i))_{i=1}^{n} > 0, ε > 0",
			Correction: "a ≥ 0 with some a_i > 0 and ε ∈ [0, 1/n], the domain of Lemma 1: the binary search finds ρ there too",
			Check:      "TestLemma2",
		},
		{
			Where:      "Section 3.2, text after Algorithm 4",
			Text:       "Algorithm 4 computes λ = λ(p)",
			Correction: "λ = λ(ρ)",
			Check:      "TestLemma2",
		},
		{
			Where:      "Section 4.1, before Proposition 2",
			Text:       "We start our analysis with the following Lemma",
			Correction: "the following Proposition (it is numbered as Proposition 2)",
			Check:      "TestProposition2",
		},
		{
			Where:      "Lemma 4, statement",
			Text:       "D_2 (2L/(nε_k)) [F(x_k) − F^*]",
			Correction: "F(x*): F^* is not defined (Lemma 3 writes F(x*))",
			Check:      "TestLemma4",
		},
		{
			Where:      erratumLemma5Nesterov,
			Text:       "f_i(x) ≤ f_i(x*) + ⟨∇f_i(x*), x − x*⟩ + (1/2L)‖∇f_i(x) − ∇f_i(x*)‖²",
			Correction: "≥ (Nesterov's Theorem 2.1.5); the rearrangement that follows needs ≥, and ≤ is false on almost every instance",
			Check:      "TestLemma5",
		},
		{
			Where:      "Appendix B, proofs of Lemmas 3 and 4",
			Text:       "conditional on (i_t, b_t)_{t=1}^{k−1}",
			Correction: "(i_t, b_t)_{t=0}^{k−1}, as in the statement of Lemma 3",
			Check:      "TestLemma3",
		},
		{
			Where:      erratumLemma4Step3,
			Text:       "(1+2nε_k)(1+η)(Σ_i ‖g_k^i − ∇f_i(x_k)‖)²",
			Correction: "‖g_k^i − ∇f_i(x*)‖: the line above splits around ∇f_i(x*), and the next line bounds Σ‖g_k^i − ∇f_i(x*)‖²; as printed the step is false when g_k is close to ∇f(x_k)",
			Check:      "TestLemma4",
		},
		{
			Where:      erratumTheorem1Square,
			Text:       "≤ (1 − α_k μ)‖x_k − x*‖ − 2α_k[F(x_k) − F(x*)] + …",
			Correction: "(1 − α_k μ)‖x_k − x*‖²: the square is missing",
			Check:      "TestTheorem1",
		},
		{
			Where:      erratumTheorem1Min,
			Text:       "min{(D2/(1−a) − D1/a)L/n, μ} ≤ min{D2/(1−a) − D1/a, 1}ζ",
			Correction: "≥: that is the direction the bound 1 − α_k min{…} ≤ 1 − α_k min{…, 1}ζ needs, and it holds since cL/n ≥ min{c, 1}ζ and μ ≥ ζ; ≤ fails e.g. for c = 1.006, L/n = 1, μ = 2",
			Check:      "TestTheorem1",
		},
		{
			Where:      "Appendix B, proof of Corollary 1, last line",
			Text:       "(1 − αρ)^k T^0",
			Correction: "(1 − αζ)^k T^0",
			Check:      "TestCorollary1",
		},
		{
			Where:      erratumCorollary2,
			Text:       "[c + (t+k0)(t+k0+2)]α_t² = (2(t+k0)+1)²/[c + (t+k0)(t+k0+2)] ≤ 4",
			Correction: "= (2(t+k0)+1)²/([c + (t+k0)(t+k0+2)]ζ²) ≤ 4/ζ², since α_t has 1/ζ; so 8σ*², 8kσ*² and 320Lσ*²/ζ become 8σ*²/ζ², 8kσ*²/ζ² and 320Lσ*²/ζ³. The O(·) rate is unchanged, but the explicit bound as printed fails by orders of magnitude when ζ < 1",
			Check:      "TestCorollary2",
		},
		{
			Where:      "Appendix B, proof of Corollary 2, telescoping",
			Text:       "[c + (k+k0)(k+k0+2)]E[T^k] − [c + (k0−1)(k0+1)]T^0 ≤ …",
			Correction: "[c + (k+k0−1)(k+k0+1)]E[T^k] − …: the last term of the telescoping sum is the t = k−1 one; the denominators of the final bound change likewise. As printed, the bound at k = 0 is below T^0",
			Check:      "TestCorollary2",
		},
		{
			Where:      "Section 5, logistic loss",
			Text:       "f_i(x) = log(1 + exp(−y_i a_iᵀx)) + (μ/2)‖x‖² where y_i ∈ {0, 1}",
			Correction: "y_i ∈ {−1, +1}: with y_i = 0 the data term is the constant log 2 and its gradient is 0",
			Check:      "TestLemma5",
		},
	}
}
