// Package proofs turns every claim of the paper "Stochastic Reweighted
// Gradient Descent" by Ayoub El Hanchi and David A. Stephens into an
// executable check that measures how much slack the claim has on the
// instances it tries.
//
// Claims are numbered as the paper numbers them, lemmas, propositions,
// theorems and corollaries counted separately, appendix included:
//
//	Lemma 1        \label{solution}: p* solves min Σ a_i²/p_i over Δ(ε)
//	Proposition 1  \label{order}: the predicate a_π(i) ≥ ελ(i) holds on a prefix
//	Lemma 2        the unlabelled lemma after Proposition 1: Algorithm 2 finds ρ
//	Proposition 2  \label{subopt}: suboptimality of Δ(ε), ε ≤ 1/2n
//	Lemma 3        \label{tracking}: evolution of the table g_k
//	Lemma 4        \label{second_moment}: second moment of the estimator
//	Theorem 1      \label{main}: one step of the Lyapunov function T
//	Corollary 1    \label{constant}: constant step size
//	Corollary 2    \label{decreasing}: decreasing step sizes
//	Lemma 5        \label{grad_norm_bound} (Appendix A)
//	Proposition 3  \label{youngs_inequality} (Appendix A): Young's inequality
//	Constants      the choice a = 0.673, β, γ, δ, η at the end of Theorem 1's proof
//
// Each check is a function of a Config (seed, long mode) that returns a
// Result: the instances tried, the largest ratio of a claim's left side to
// its right side (≤ 1 means the claim held, and 1 − ratio is its slack),
// and claim-specific figures in Notes. Check runs one, All runs them all in
// that order; the tests TestLemma1 … TestConstants call the same functions.
//
// The references are independent of the code under test. Lemma 1 is
// certified by the exact KKT conditions (samplertest.KKT) on every backend
// and by a general-purpose convex solver: a log-barrier interior-point
// method whose centring problems gonum's Newton method (optimize.Newton,
// exact Hessian, backtracking) solves, with Σp = 1 eliminated by writing
// the largest key's probability as one minus the others, run until the
// barrier's duality bound is within a relative 1e-11. Propositions 1 and 2
// and Lemma 2 are checked in exact rational arithmetic against
// samplertest.Oracle. Lemmas 3 and 4 and Theorem 1 take the conditional
// expectation over (i_k, b_k) exactly, by enumerating all n indices and both
// Bernoulli outcomes, on ℓ2-regularised least-squares and logistic problems
// whose x* Newton's method solves to ‖∇F(x*)‖ ≤ 1e-12; F(x) − F(x*) is the
// integral of ⟨∇F, x − x*⟩ along the segment (Gauss–Legendre), which keeps
// its relative accuracy near x*. Corollaries 1 and 2 are Monte Carlo means
// of T^k over many runs of Algorithm 1, compared with the bound within a
// margin of four standard errors; the schedule of Corollary 2 is also
// checked in exact arithmetic.
//
// Instances are drawn on purpose where the inequalities are tight or the
// arithmetic delicate: zero, tied, subnormal and huge keys, exact ties of
// the predicate of Lemma 1, ε at 0, 1/2n and 1/n, points along a feature
// row, tables g that are zero, exact, stale or noisy.
//
// Where the text and the mathematics disagree, Errata lists the place, the
// correction and the check that shows it; ERRATA.md is the same list. For
// the errata about a step of a proof, the check's Result.Errata counts the
// instances on which that step fails as printed and as corrected.
package proofs
