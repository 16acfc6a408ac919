package reweighted_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// Every Go block of the README is quoted word for word from a test file of
// the module (an Example, a Test or a Benchmark), so that it compiles and
// runs with go test.
func TestReadmeQuotesTests(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	require.NoError(t, err)
	var tests strings.Builder
	err = filepath.WalkDir(".", func(p string, e fs.DirEntry, err error) error {
		if err == nil && !e.IsDir() && strings.HasSuffix(p, "_test.go") {
			b, err := os.ReadFile(p)
			tests.Write(b)
			return err
		}
		return err
	})
	require.NoError(t, err)
	blocks := regexp.MustCompile("(?s)```go\n(.*?)```").FindAllStringSubmatch(string(readme), -1)
	require.NotEmpty(t, blocks)
	for _, b := range blocks {
		require.Contains(t, tests.String(), b[1], "a Go block of the README that no test file holds")
	}
	require.Contains(t, string(readme), "func Example_srg() {", "the README shows SRG's inner loop")
}
