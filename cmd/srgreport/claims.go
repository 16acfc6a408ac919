package main

import (
	"fmt"

	"github.com/reweighted/reweighted/proofs"
)

// runClaims checks every claim of the paper with package proofs: the
// default instance counts under -quick, several times more otherwise.
func runClaims(r *Report, cfg config, pr *progress) {
	pr.Start("claims", 1)
	for _, c := range proofs.All(proofs.Config{Seed: cfg.seed, Long: !cfg.quick}) {
		r.Claims = append(r.Claims, Claim{
			Claim: c.Claim, Test: c.Test, Statement: c.Statement, Instances: c.Instances,
			WorstRatio: c.WorstRatio, Pass: c.Pass, Notes: c.Notes,
		})
	}
	pr.Step()
	pass := 0
	for _, c := range r.Claims {
		if c.Pass {
			pass++
		}
	}
	pr.Done(fmt.Sprintf("%d of %d held", pass, len(r.Claims)))
}

// errata returns the corrections to the paper that package proofs lists.
func errata() []Erratum {
	var out []Erratum
	for _, e := range proofs.Errata() {
		out = append(out, Erratum(e))
	}
	return out
}
