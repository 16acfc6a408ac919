package fuzz

import (
	"flag"
	"testing"

	"github.com/reweighted/reweighted/internal/backends"
)

// Backends lists every backend of the module, naive (the reference) first.
var Backends = backends.All

var long = flag.Bool("long", false, "run the long state machines (up to 3,000 items) and histories (10^4 items, 10^5 steps); use -timeout 60m")

// TestHistoriesAgree runs Histories on every backend but naive, the
// reference. All share the driver, so agreement alone cannot catch an error
// there: Histories also checks each against the exact oracle.
func TestHistoriesAgree(t *testing.T) {
	for _, b := range Backends[1:] {
		t.Run(b.Name, func(t *testing.T) { Histories(t, b.New, *long) })
	}
}
