package fuzz

import (
	"flag"
	"testing"

	"github.com/reweighted/reweighted/internal/backends"
	"github.com/reweighted/reweighted/samplertest"
	"pgregory.net/rapid"
)

// Backends lists every backend of the module, naive (the reference) first.
var Backends = backends.All

var long = flag.Bool("long", false, "run the histories at full length, with more of them (10^4 items, 2·10^4 steps), and more and longer state machines (up to 3,000 items) and cutoff instances (about 15 minutes)")

// TestHistoriesAgree runs Histories on every backend but naive, the
// reference. All share the driver, so agreement alone cannot catch an error
// there: Histories also checks each against the exact oracle.
func TestHistoriesAgree(t *testing.T) {
	for _, b := range Backends[1:] {
		t.Run(b.Name, func(t *testing.T) { Histories(t, b.New, *long) })
	}
}

// TestLawHistoriesAgree runs LawHistories on every law-exact backend,
// against naive and the exact oracle, and on btree, a map-exact backend,
// which must pass everything a law-exact one does: a check of the harness
// on a backend whose law is known to hold.
func TestLawHistoriesAgree(t *testing.T) {
	bs := backends.Law
	if b, ok := backends.ByName("btree"); ok {
		bs = append([]backends.Backend{b}, bs...)
	}
	for _, b := range bs {
		t.Run(b.Name, func(t *testing.T) { LawHistories(t, b.Dist, *long) })
	}
}

// TestLawStateMachines runs the kit's law-mode state machine on every
// law-exact backend, on up to 64 items, 30 histories; or, with -long, 100
// histories on up to 1,000 items.
func TestLawStateMachines(t *testing.T) {
	for _, b := range backends.Law {
		t.Run(b.Name, func(t *testing.T) {
			maxN := 64
			if *long {
				maxN = 1000
			} else {
				samplertest.SetDefaultFlag(t, "rapid.checks", "30")
			}
			rapid.Check(t, samplertest.LawStateMachineN(b.Dist, maxN))
		})
	}
}
