package reweighted_test

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// The README's example is Example_srg, word for word, so that it compiles
// and runs.
func TestReadmeQuotesExample(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	require.NoError(t, err)
	src, err := os.ReadFile("example_test.go")
	require.NoError(t, err)
	code := string(src)
	start := strings.Index(code, "func Example_srg() {")
	require.GreaterOrEqual(t, start, 0)
	end := strings.Index(code[start:], "\n}\n")
	require.Positive(t, end)
	require.Contains(t, string(readme), code[start:start+end+3])
}
