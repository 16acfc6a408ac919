package proofs

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestErrataFile checks that ERRATA.md lists every erratum of Errata, each
// with its check, and that every check named is a test of this package.
func TestErrataFile(t *testing.T) {
	b, err := os.ReadFile("ERRATA.md")
	require.NoError(t, err)
	md := string(b)
	tests := map[string]bool{}
	for _, c := range checks {
		tests["Test"+c.name] = true
	}
	for _, e := range Errata() {
		require.Contains(t, md, e.Where, "ERRATA.md misses %q", e.Where)
		require.True(t, tests[e.Check], "erratum %q names unknown check %s", e.Where, e.Check)
		require.NotEmpty(t, strings.TrimSpace(e.Correction))
	}
}
