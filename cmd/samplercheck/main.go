// Command samplercheck runs the conformance kit of package samplertest on a
// sampler written in any language: it starts the program, drives it over
// the line protocol of PROTOCOL.md on its standard input and output, and
// checks it, through an adapter that is a reweighted.Sampler (a program of
// the map kind), a reweighted.LawSampler (the law kind) or a
// reweighted.Weighted (the weighted kind: a sum tree, with find, draw or
// both), against the contract and the exact rational oracle: state
// machines, near-cutoff and tiny-key generators, edge cases, bad input,
// batches, χ² tests and mass tests. A property that runs longer than 5 s
// reports its progress on standard error.
//
// Usage:
//
//	samplercheck [flags] -- PROGRAM [ARGS...]
//
// It prints each property with PASS, FAIL (with the smallest failing case
// rapid finds, the message of the check, which for the oracle's checks
// gives the expected and the actual answer, and the last requests and
// answers) or SKIP (a check of a Go value that a program cannot have, such
// as its allocations), and exits 0 when every property passes, 1 when one
// fails and 2 for a bad command line. A program that crashes, does not
// answer within the timeout, writes a malformed line or answers out of
// protocol fails the property that was running, with the request named;
// one that does not answer in time also stops the run.
//
// The flags:
//
//	-checks N    rapid test cases per property (default 100)
//	-steps N     steps (states visited) per state-machine history (default 30)
//	-n N         largest number of items in the state machines (default 24)
//	-draws N     draws of each χ² test (default 20000)
//	-massdraws N draws of each case of the mass tests (default 4000000)
//	-seed S      seed of every property (default: a random one, printed)
//	-run REGEXP  run only the properties whose name matches
//	-timeout D   the longest wait for one answer (default 10s)
//	-v           print the log of the properties that pass, too
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"regexp"
	"strconv"
	"testing"
	"time"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run is the command with its arguments and outputs; it returns the exit
// code.
func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("samplercheck", flag.ContinueOnError)
	fs.SetOutput(stderr)
	checks := fs.Int("checks", 100, "rapid test cases per property")
	steps := fs.Int("steps", 30, "steps (states visited) per state-machine history")
	stateN := fs.Int("n", 24, "largest number of items in the state machines")
	draws := fs.Int("draws", 20_000, "draws of each χ² test")
	massDraws := fs.Int("massdraws", 4_000_000, "draws of each case of the mass tests")
	seed := fs.Uint64("seed", 0, "seed of every property (0: a random one, printed)")
	only := fs.String("run", "", "run only the properties whose name matches this regular expression")
	timeout := fs.Duration("timeout", 10*time.Second, "the longest wait for one answer")
	verbose := fs.Bool("v", false, "print the log of the properties that pass, too")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: samplercheck [flags] -- PROGRAM [ARGS...]\n\n"+
			"Runs the conformance kit on a sampler program that speaks protocol version %d on its standard input and output.\n\n", Version)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	argv := fs.Args()
	if len(argv) == 0 {
		fs.Usage()
		return 2
	}
	re, err := regexp.Compile(*only)
	if err != nil {
		fmt.Fprintf(stderr, "samplercheck: -run: %v\n", err)
		return 2
	}
	if *checks < 1 || *steps < 1 || *draws < 1000 || *massDraws < 1000 || *stateN < 1 || *timeout <= 0 {
		fmt.Fprintln(stderr, "samplercheck: -checks and -steps must be positive, -draws and -massdraws at least 1000, -n at least 1, -timeout positive")
		return 2
	}
	if *seed == 0 {
		*seed = rand.Uint64()>>1 | 1
	}
	restore, err := setFlags(*checks, *steps, *seed, *draws, *massDraws)
	if err != nil {
		fmt.Fprintf(stderr, "samplercheck: %v\n", err)
		return 2
	}
	defer restore()

	g := NewProgram(argv, *timeout)
	g.status = stderr
	defer g.Close()
	kind, can, perr := askKind(g)
	if perr != nil {
		lines := protocolLines(perr)
		fmt.Fprintf(stdout, "FAIL     kind: %s\n", lines[0])
		for _, l := range lines[1:] {
			fmt.Fprintf(stdout, "         %s\n", l)
		}
		return 1
	}
	fmt.Fprintf(stdout, "samplercheck: protocol %d, a sampler of the %s kind, seed %d (rerun with -seed %d), %d checks, %d steps, %d draws, %d mass draws\n",
		g.version, kind, *seed, *seed, *checks, *steps, *draws, *massDraws)
	if kind == "weighted" {
		fmt.Fprintf(stdout, "samplercheck: the program does %v\n", can)
	}
	failed, stopped := 0, false
	for _, p := range properties(g, kind, can, *stateN) {
		if !re.MatchString(p.name) {
			continue
		}
		res := result{name: p.name, status: "NOT RUN", detail: []string{errTimeout.Error() + " in an earlier property"}}
		if !stopped {
			res = runProperty(g, p)
		}
		res.report(stdout, *verbose)
		if res.status == "FAIL" {
			failed++
			stopped = stopped || (res.protocol != nil && res.protocol.Timeout)
		}
	}
	if failed > 0 {
		fmt.Fprintf(stdout, "FAIL: %d properties failed\n", failed)
		return 1
	}
	fmt.Fprintln(stdout, "PASS")
	return 0
}

// askKind asks the program its kind, and for the weighted kind whether
// it does find and draw, and returns the protocol error if it could not
// answer.
func askKind(g *Program) (kind string, can abilities, perr *ProtocolError) {
	defer func() {
		if x := recover(); x != nil {
			e, ok := x.(*ProtocolError)
			if !ok {
				panic(x)
			}
			perr = e
		}
		g.reset()
	}()
	kind = g.Kind()
	if kind == "weighted" {
		can = g.probeWeighted()
	}
	return kind, can, nil
}

// setFlags sets rapid's flags and the kit's sizes for the checks: they
// live in the default flag set, with testing's, which must be registered
// and parsed for rapid to read testing.Short. No fail files are written:
// the report prints the failing case, and a run on a broken program should
// leave no files behind. restore puts every flag back as it was, so that a
// caller in the same process (the command's tests) keeps its own settings.
func setFlags(checks, steps int, seed uint64, draws, massDraws int) (restore func(), err error) {
	testing.Init()
	if !flag.Parsed() {
		_ = flag.CommandLine.Parse(nil)
	}
	values := []struct{ name, value string }{
		{"rapid.checks", strconv.Itoa(checks)},
		{"rapid.steps", strconv.Itoa(steps)},
		{"rapid.seed", strconv.FormatUint(seed, 10)},
		{"rapid.nofailfile", "true"},
		{"rapid.shrinktime", "20s"},
		{"samplertest.draws", strconv.Itoa(draws)},
		{"samplertest.massdraws", strconv.Itoa(massDraws)},
	}
	old := make([]string, 0, len(values))
	restore = func() {
		for k := len(old) - 1; k >= 0; k-- {
			_ = flag.Set(values[k].name, old[k])
		}
	}
	for _, v := range values {
		f := flag.Lookup(v.name)
		if f == nil {
			restore()
			return nil, fmt.Errorf("no flag %s", v.name)
		}
		old = append(old, f.Value.String())
		if err := flag.Set(v.name, v.value); err != nil {
			restore()
			return nil, errors.Join(fmt.Errorf("setting %s", v.name), err)
		}
	}
	return restore, nil
}
