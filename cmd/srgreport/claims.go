package main

import (
	"fmt"

	"github.com/reweighted/reweighted/proofs"
)

// runClaims checks every claim of the paper with package proofs: the
// default instance counts under -quick, several times more otherwise.
func runClaims(r *Report, cfg config, pr *progress) {
	pr.Start("claims", 1)
	r.Claims = proofs.All(proofs.Config{Seed: cfg.seed, Long: !cfg.quick})
	pr.Step()
	pass := 0
	for _, c := range r.Claims {
		if c.Pass {
			pass++
		}
	}
	pr.Done(fmt.Sprintf("%d of %d held", pass, len(r.Claims)))
}

// errataCounts collects what the claims measured of the errata.
func errataCounts(claims []proofs.Result) []proofs.ErratumCount {
	var out []proofs.ErratumCount
	for _, c := range claims {
		out = append(out, c.Errata...)
	}
	return out
}

// errata returns the corrections to the paper that package proofs lists,
// with what the claims of this run measured of those that are steps of a
// proof (counts is empty if the claims did not run).
func errata(counts []proofs.ErratumCount) []Erratum {
	var out []Erratum
	for _, e := range proofs.Errata() {
		x := Erratum{Where: e.Where, Text: e.Text, Correction: e.Correction, Check: e.Check}
		for _, c := range counts {
			if c.Where == e.Where {
				x.Tried, x.PrintedFails, x.CorrectedFails = c.Tried, c.PrintedFails, c.CorrectedFails
			}
		}
		out = append(out, x)
	}
	return out
}
