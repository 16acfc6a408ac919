package proofs

import (
	"fmt"
	"math/rand/v2"
)

// Config selects the instances a check tries.
type Config struct {
	// Seed makes the instances reproducible; two runs with the same Seed try
	// the same instances.
	Seed uint64
	// Long tries several times more instances.
	Long bool
}

// Result is what one check measured.
type Result struct {
	Claim      string  `json:"claim"`       // "Lemma 1", "Proposition 2", …
	Test       string  `json:"test"`        // "TestLemma1"
	Statement  string  `json:"statement"`   // one line
	Instances  int     `json:"instances"`   // instances tried
	WorstRatio float64 `json:"worst_ratio"` // largest observed left side / right side (≤ 1 means the claim held with that slack)
	Pass       bool    `json:"pass"`
	Notes      string  `json:"notes"` // claim-specific figures
	// Errata counts, for each erratum this check measures on its
	// instances, how often the step as printed and as corrected fails.
	Errata []ErratumCount `json:"errata"`
}

// ErratumCount is how the printed and the corrected versions of the step
// an erratum is about fared on the instances of a check.
type ErratumCount struct {
	Where          string `json:"where"`           // the erratum's Where, as in Errata
	Tried          int    `json:"tried"`           // instances the step was evaluated on
	PrintedFails   int    `json:"printed_fails"`   // instances on which the step as printed fails
	CorrectedFails int    `json:"corrected_fails"` // instances on which the corrected step fails
}

// check is one claim: its name in the paper, a one-line statement and the
// function that measures it.
type check struct {
	name, claim, statement string
	run                    func(cfg Config) (Result, error)
}

// checks lists every claim in the paper's order of lemmas, propositions,
// theorems and corollaries as the report table shows them.
var checks = []check{
	{"Lemma1", "Lemma 1", "p* (ρ, λ(ρ)) minimises Σ a_i²/p_i over Δ(ε)", checkLemma1},
	{"Proposition1", "Proposition 1", "a_π(i) ≥ ελ(i) holds on a prefix of ranks and fails after it", checkProposition1},
	{"Lemma2", "Lemma 2", "Algorithm 2 (binary search) finds ρ", checkLemma2},
	{"Proposition2", "Proposition 2", "min over Δ(ε) ≤ (Σa)²/(1−(n−ρ)ε) ≤ (Σa)²/(1−nε) ≤ (1+2nε)(Σa)² for ε ≤ 1/2n", checkProposition2},
	{"Lemma3", "Lemma 3", "E Σ‖g_{k+1}^i−∇f_i(x*)‖² ≤ (1−ε)Σ‖g_k^i−∇f_i(x*)‖² + 2Lnε[F(x_k)−F(x*)]", checkLemma3},
	{"Lemma4", "Lemma 4", "second moment ≤ D2·2L/(nε)[F(x_k)−F(x*)] + D1/(n²ε)Σ‖g_k^i−∇f_i(x*)‖² + D3(1+2nε)σ*²", checkLemma4},
	{"Theorem1", "Theorem 1", "E T^{k+1} ≤ (1−αζ)T^k + (1+2nε)2α²σ*² under (i)–(iii)", checkTheorem1},
	{"Corollary1", "Corollary 1", "constant step: E T^k ≤ (1−αζ)^k T^0 + (1+2nε)2ασ*²/ζ", checkCorollary1},
	{"Corollary2", "Corollary 2", "decreasing schedule meets (i)–(iii), ε_0 = 1/2n, and E T^k obeys the telescoped bound", checkCorollary2},
	{"Lemma5", "Lemma 5", "(1/n)Σ‖∇f_i(x)−∇f_i(x*)‖² ≤ 2L[F(x)−F(x*)]", checkLemma5},
	{"Proposition3", "Proposition 3", "Young's inequality, two- and three-term forms", checkProposition3},
	{"Constants", "Theorem 1 constants", "a, β, γ, δ, η of the paper: D2/(1−a)−D1/a ≥ 1, D3 ≤ 2, (1−a)/D2 ≥ 1/20", checkConstants},
}

// Check runs the check of one claim; name is the test name without "Test",
// e.g. "Lemma1". A claim that fails is reported by Pass, not by the error,
// which is for an unknown name or a check that could not run.
func Check(name string, cfg Config) (Result, error) {
	for _, c := range checks {
		if c.name == name {
			r, err := c.run(cfg)
			r.Claim, r.Test, r.Statement = c.claim, "Test"+c.name, c.statement
			return r, err
		}
	}
	return Result{}, fmt.Errorf("proofs: no check named %q", name)
}

// All runs every check in the table's order. A check that could not run is
// reported as failed, with the error in Notes.
func All(cfg Config) []Result {
	out := make([]Result, 0, len(checks))
	for _, c := range checks {
		r, err := Check(c.name, cfg)
		if err != nil {
			r.Pass = false
			r.Notes = "error: " + err.Error()
		}
		out = append(out, r)
	}
	return out
}

// newRand returns the generator of one check, so that checks do not share a
// stream and adding instances to one leaves the others unchanged.
func newRand(cfg Config, salt uint64) *rand.Rand {
	return rand.New(rand.NewPCG(cfg.Seed, salt))
}

// scale returns base instances, or mult times as many under Long.
func scale(cfg Config, base, mult int) int {
	if cfg.Long {
		return base * mult
	}
	return base
}
