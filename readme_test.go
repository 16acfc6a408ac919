package reweighted_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"

	"github.com/stretchr/testify/require"
)

// docPages are the README and the pages under docs/.
func docPages(t *testing.T) []string {
	pages, err := filepath.Glob(filepath.Join("docs", "*.md"))
	require.NoError(t, err)
	require.NotEmpty(t, pages, "the pages under docs/")
	return append([]string{"README.md"}, pages...)
}

// Every Go block of the README and of the pages under docs/ is quoted word
// for word from a test file of the module (an Example, a Test or a
// Benchmark), so that it compiles and runs with go test.
func TestReadmeQuotesTests(t *testing.T) {
	var tests strings.Builder
	err := filepath.WalkDir(".", func(p string, e fs.DirEntry, err error) error {
		if err == nil && !e.IsDir() && strings.HasSuffix(p, "_test.go") {
			b, err := os.ReadFile(p)
			tests.Write(b)
			return err
		}
		return err
	})
	require.NoError(t, err)
	goBlock := regexp.MustCompile("(?s)```go\n(.*?)```")
	for _, page := range docPages(t) {
		text, err := os.ReadFile(page)
		require.NoError(t, err)
		for _, b := range goBlock.FindAllStringSubmatch(string(text), -1) {
			require.Contains(t, tests.String(), b[1], "a Go block of %s that no test file holds", page)
		}
	}
	readme, err := os.ReadFile("README.md")
	require.NoError(t, err)
	require.Regexp(t, "(?s)```go\nfunc Example_srg\\(\\) \\{\n[^`]*levels\\.New\\(n\\)", string(readme),
		"the README shows SRG's inner loop on the default sampler")
}

// Every relative link of the README and of the pages under docs/ points to
// a file of the module, and every link to a heading (#anchor) to a heading
// of the page it names, as GitHub forms anchors (lower case, spaces to
// hyphens, punctuation dropped).
func TestReadmeLinks(t *testing.T) {
	link := regexp.MustCompile(`\]\(([^)\s]+)\)`)
	heading := regexp.MustCompile(`(?m)^#+ (.*)$`)
	anchors := func(page string) map[string]bool {
		text, err := os.ReadFile(page)
		require.NoError(t, err)
		a := map[string]bool{}
		for _, h := range heading.FindAllStringSubmatch(string(text), -1) {
			a[anchor(h[1])] = true
		}
		return a
	}
	links := 0
	for _, page := range docPages(t) {
		text, err := os.ReadFile(page)
		require.NoError(t, err)
		for _, m := range link.FindAllStringSubmatch(string(text), -1) {
			target := m[1]
			if strings.Contains(target, "://") {
				continue
			}
			links++
			file, frag, _ := strings.Cut(target, "#")
			path := page
			if file != "" {
				path = filepath.Join(filepath.Dir(page), file)
				_, err := os.Stat(path)
				require.NoError(t, err, "%s links to %s", page, target)
			}
			if frag != "" {
				require.True(t, anchors(path)[frag], "%s links to %s: no such heading in %s", page, target, path)
			}
		}
	}
	require.Positive(t, links, "the README links to its pages")
}

// anchor is GitHub's anchor of a heading.
func anchor(h string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(h) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// anchor drops what GitHub drops: code marks, commas, parentheses, slashes.
func TestAnchor(t *testing.T) {
	for h, want := range map[string]string{
		"Wide data sets":                       "wide-data-sets",
		"`levels`, the default":                "levels-the-default",
		"A short example":                      "a-short-example",
		"The report: `go run ./cmd/srgreport`": "the-report-go-run-cmdsrgreport",
	} {
		require.Equal(t, want, anchor(h), h)
	}
}
