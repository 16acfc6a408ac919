// Command abbench compares the benchmarks of one package across revisions
// of the module under the same load: it builds the package's test binary
// at each revision (each in a git worktree of its own, removed at the end;
// "." is the work tree as it is, uncommitted changes included), then runs
// the binaries in turns, round after round, the order rotated from round
// to round, since on a shared machine the run that comes second in a fixed
// order took 1 to 3% more time. It prints, for each benchmark and
// revision, the median ns/op over the rounds and its quartiles; with
// -peer, also the median over the rounds of the ratio of each benchmark to
// the one named alike with impl=PEER in the same run (levels to gonum's
// sampleuv.Weighted, say), which the load moves far less than times.
//
//	go run ./internal/cmd/abbench -pkg ./bench -peer gonum-weighted \
//		-bench 'SingleStep/impl=(levels|gonum-weighted)/' -rounds 8 3d51401 .
//
// -metric compares another metric than ns/op, such as the srg-levels/sgd
// of BenchmarkEpochRatio. -testflags passes further flags to the test
// binaries, such as "-data /path/to/data" for the epochs of package srg;
// they run in the package's folder of their revision.
package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

func main() {
	var (
		pkg       = flag.String("pkg", "./bench", "the package whose benchmarks run")
		bench     = flag.String("bench", ".", "the benchmarks, as go test -bench takes them")
		benchtime = flag.String("benchtime", "0.3s", "each benchmark's time in a round")
		rounds    = flag.Int("rounds", 8, "the rounds, each of which runs every revision once")
		peer      = flag.String("peer", "", "the impl= that ratios are taken to, in the same run")
		testflags = flag.String("testflags", "", "space-separated flags for the test binaries")
		metric    = flag.String("metric", "ns/op", "the unit of the metric compared, such as srg-levels/sgd of BenchmarkEpochRatio")
	)
	flag.Usage = func() {
		fmt.Fprintf(flag.CommandLine.Output(), "usage: abbench [flags] revision...\n")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() == 0 || *rounds < 1 {
		flag.Usage()
		os.Exit(2)
	}
	if err := run(os.Stdout, flag.Args(), *pkg, *bench, *benchtime, *rounds, *peer, *metric, strings.Fields(*testflags)); err != nil {
		fmt.Fprintln(os.Stderr, "abbench:", err)
		os.Exit(1)
	}
}

// run builds, runs and reports; see the package comment.
func run(w io.Writer, revs []string, pkg, bench, benchtime string, rounds int, peer, metric string, extra []string) (err error) {
	top, err := output(".", "git", "rev-parse", "--show-toplevel")
	if err != nil {
		return err
	}
	top = strings.TrimSpace(top)
	tmp, err := os.MkdirTemp("", "abbench")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	dirs := make([]string, len(revs))
	bins := make([]string, len(revs))
	for k, rev := range revs {
		dirs[k] = top
		if rev != "." {
			dirs[k] = filepath.Join(tmp, fmt.Sprintf("rev%d", k))
			if _, err := output(top, "git", "worktree", "add", "--detach", dirs[k], rev); err != nil {
				return err
			}
			defer func(d string) {
				if _, e := output(top, "git", "worktree", "remove", "--force", d); e != nil && err == nil {
					err = e
				}
			}(dirs[k])
		}
		bins[k] = filepath.Join(tmp, fmt.Sprintf("rev%d.test", k))
		if _, err := output(dirs[k], "go", "test", "-c", "-o", bins[k], pkg); err != nil {
			return fmt.Errorf("building %s at %s: %w", pkg, rev, err)
		}
	}
	var runs []result
	for r := range rounds {
		for _, k := range rotation(r, len(revs)) {
			args := append([]string{"-test.run", "^$", "-test.bench", bench, "-test.benchtime", benchtime}, extra...)
			out, err := output(filepath.Join(dirs[k], pkg), bins[k], args...)
			if err != nil {
				return fmt.Errorf("running %s at %s: %w", pkg, revs[k], err)
			}
			runs = append(runs, result{rev: k, ns: parse(out, metric)})
		}
	}
	report(w, revs, runs, peer, metric)
	return nil
}

// output runs name with args in dir and returns its standard output, or an
// error with its standard error.
func output(dir, name string, args ...string) (string, error) {
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	out, err := cmd.Output()
	if ee := (*exec.ExitError)(nil); errors.As(err, &ee) {
		return "", fmt.Errorf("%s %s: %w\n%s%s", name, strings.Join(args, " "), err, out, ee.Stderr)
	}
	return string(out), err
}

// rotation returns the order of k revisions in round r: 0, 1, …, k−1
// turned by r, so that over k rounds each revision runs once in each
// place.
func rotation(r, k int) []int {
	o := make([]int, k)
	for q := range o {
		o[q] = (q + r) % k
	}
	return o
}

// result is the metric of the benchmarks of one run of one revision.
type result struct {
	rev int
	ns  map[string]float64
}

// benchLine is a result line of go test -bench: its name, less the
// GOMAXPROCS suffix, its count, and its metrics, pairs of a value and a
// unit.
var benchLine = regexp.MustCompile(`^(Benchmark\S*?)(?:-\d+)?\s+\d+((?:\s+[0-9.e+-]+ \S+)+)\s*$`)

// parse returns the value of the metric of unit in each benchmark of out
// that reports it.
func parse(out, unit string) map[string]float64 {
	ns := map[string]float64{}
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		m := benchLine.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		f := strings.Fields(m[2])
		for q := 0; q+1 < len(f); q += 2 {
			if f[q+1] != unit {
				continue
			}
			if v, err := strconv.ParseFloat(f[q], 64); err == nil {
				ns[m[1]] = v
			}
		}
	}
	return ns
}

// implPart is the impl= element of a benchmark's name.
var implPart = regexp.MustCompile(`(^|/)impl=[^/]*`)

// peerOf returns the name of the benchmark that name is compared with:
// name with its impl= element set to peer; "" if name has none, or is the
// peer's own.
func peerOf(name, peer string) string {
	if !implPart.MatchString(name) {
		return ""
	}
	p := implPart.ReplaceAllString(name, "${1}impl="+peer)
	if p == name {
		return ""
	}
	return p
}

// quartiles returns the median and the lower and upper quartiles of xs
// (sorted in place), each the element at its rank, not an interpolation.
func quartiles(xs []float64) (med, lo, hi float64) {
	slices.Sort(xs)
	n := len(xs)
	return xs[n/2], xs[n/4], xs[n-1-n/4]
}

// report prints, for each benchmark and revision, the median of the
// metric of unit and its quartiles, and with peer the median of the ratios
// to the peer's benchmark of the same run.
func report(w io.Writer, revs []string, runs []result, peer, unit string) {
	type key struct {
		name string
		rev  int
	}
	ns := map[key][]float64{}
	ratio := map[key][]float64{}
	for _, r := range runs {
		for name, v := range r.ns {
			k := key{name, r.rev}
			ns[k] = append(ns[k], v)
			if p := peerOf(name, peer); peer != "" && p != "" {
				if pv, ok := r.ns[p]; ok && pv > 0 {
					ratio[k] = append(ratio[k], v/pv)
				}
			}
		}
	}
	keys := make([]key, 0, len(ns))
	for k := range ns {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b key) int {
		if c := strings.Compare(a.name, b.name); c != 0 {
			return c
		}
		return a.rev - b.rev
	})
	for _, k := range keys {
		med, lo, hi := quartiles(ns[k])
		fmt.Fprintf(w, "%-60s %-10s %10.4g %s [%.4g, %.4g] runs %d", k.name, revs[k.rev], med, unit, lo, hi, len(ns[k]))
		if rs := ratio[k]; len(rs) > 0 {
			med, lo, hi := quartiles(rs)
			fmt.Fprintf(w, "   /%s %.3f [%.3f, %.3f]", peer, med, lo, hi)
		}
		fmt.Fprintln(w)
	}
}
