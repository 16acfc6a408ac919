package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// The result lines of go test -bench are read, name less its GOMAXPROCS
// suffix, with their ns/op; other lines, and metrics after ns/op, are not.
func TestParseReadsNsPerOp(t *testing.T) {
	out := `goos: linux
goarch: amd64
pkg: github.com/reweighted/reweighted/bench
BenchmarkSingleStep/impl=levels/keys=exp/n=65536-2         	 3399716	       368.3 ns/op	       0 B/op	       0 allocs/op
BenchmarkSingleStep/impl=gonum-weighted/keys=exp/n=65536-2 	 5242570	       227.2 ns/op
BenchmarkEpochRatio/set=mushrooms-2         	      12	  38121472 ns/op	         2.080 srg-levels/sgd
BenchmarkNoProcs 	 100	 1.5e+06 ns/op
PASS
ok  	github.com/reweighted/reweighted/bench	7.278s
`
	require.Equal(t, map[string]float64{
		"BenchmarkSingleStep/impl=levels/keys=exp/n=65536":         368.3,
		"BenchmarkSingleStep/impl=gonum-weighted/keys=exp/n=65536": 227.2,
		"BenchmarkEpochRatio/set=mushrooms":                        38121472,
		"BenchmarkNoProcs":                                         1.5e6,
	}, parse(out, "ns/op"))
}

// With another unit, the value of that metric is read, wherever it lies
// in the line; a benchmark without it is left out.
func TestParseReadsAnyMetric(t *testing.T) {
	out := `BenchmarkEpochRatio/set=mushrooms-2         	      12	  38121472 ns/op	         2.080 srg-levels/sgd	         1.121 srg-standin/sgd
BenchmarkEpochRatio/set=w8a-2         	      12	  1e+08 ns/op	         1.9 srg-levels/sgd	         -0.5 srg-standin/sgd
BenchmarkSingleStep/impl=levels/keys=exp/n=65536-2         	 3399716	       368.3 ns/op	       0 B/op	       0 allocs/op
`
	require.Equal(t, map[string]float64{
		"BenchmarkEpochRatio/set=mushrooms": 1.121,
		"BenchmarkEpochRatio/set=w8a":       -0.5,
	}, parse(out, "srg-standin/sgd"))
	require.Equal(t, map[string]float64{
		"BenchmarkEpochRatio/set=mushrooms": 2.080,
		"BenchmarkEpochRatio/set=w8a":       1.9,
	}, parse(out, "srg-levels/sgd"))
	require.Equal(t, map[string]float64{"BenchmarkSingleStep/impl=levels/keys=exp/n=65536": 0}, parse(out, "B/op"))
}

// A benchmark's peer is its name with the impl= element replaced, wherever
// that element is; a name without one, or the peer's own, has none.
func TestPeerOfReplacesImpl(t *testing.T) {
	for _, c := range []struct{ name, want string }{
		{"BenchmarkStep/impl=levels/n=1024", "BenchmarkStep/impl=gonum/n=1024"},
		{"BenchmarkStep/n=1024/impl=ost", "BenchmarkStep/n=1024/impl=gonum"},
		{"BenchmarkStep/impl=gonum/n=1024", ""},
		{"BenchmarkStep/n=1024", ""},
		{"BenchmarkStep/simpl=levels", ""},
	} {
		require.Equal(t, c.want, peerOf(c.name, "gonum"), c.name)
	}
}

// Over k rounds the rotation puts each of k revisions once in each place.
func TestRotationVisitsEveryPlace(t *testing.T) {
	for k := 1; k <= 4; k++ {
		seen := make([][]bool, k)
		for q := range seen {
			seen[q] = make([]bool, k)
		}
		for r := range k {
			o := rotation(r, k)
			require.Len(t, o, k)
			for place, rev := range o {
				require.False(t, seen[rev][place], "k=%d: revision %d twice in place %d", k, rev, place)
				seen[rev][place] = true
			}
		}
	}
}

// The median and quartiles are elements at their ranks.
func TestQuartiles(t *testing.T) {
	med, lo, hi := quartiles([]float64{5, 1, 4, 2, 3, 8, 7, 6})
	require.Equal(t, []float64{5, 3, 6}, []float64{med, lo, hi})
	med, lo, hi = quartiles([]float64{2})
	require.Equal(t, []float64{2, 2, 2}, []float64{med, lo, hi})
}

// The report gives each revision's median and the median of its ratios to
// the peer measured in the same run, not the ratio of the medians.
func TestReportRatiosWithinRuns(t *testing.T) {
	a, g := "BenchmarkX/impl=a/n=1", "BenchmarkX/impl=g/n=1"
	runs := []result{
		{rev: 0, ns: map[string]float64{a: 100, g: 50}},
		{rev: 1, ns: map[string]float64{a: 90, g: 60}},
		{rev: 0, ns: map[string]float64{a: 300, g: 100}},
		{rev: 1, ns: map[string]float64{a: 80, g: 100}},
		{rev: 0, ns: map[string]float64{a: 200, g: 100}},
		{rev: 1, ns: map[string]float64{a: 70, g: 50}},
	}
	var b bytes.Buffer
	report(&b, []string{"old", "new"}, runs, "g", "ns/op")
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	require.Len(t, lines, 4)
	require.Contains(t, lines[0], "old")
	require.Contains(t, lines[0], "200 ns/op")
	require.Contains(t, lines[0], "/g 2.000 [2.000, 3.000]")
	require.Contains(t, lines[1], "new")
	require.Contains(t, lines[1], "80 ns/op")
	require.Contains(t, lines[1], "/g 1.400 [0.800, 1.500]")
	require.NotContains(t, lines[2], "/g", "the peer has no ratio to itself")
}
