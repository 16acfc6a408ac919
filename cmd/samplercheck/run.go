package main

import (
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"
	"time"

	"github.com/reweighted/reweighted"
	"github.com/reweighted/reweighted/samplertest"
	"pgregory.net/rapid"
)

// recorder is the TB that a check runs on: it keeps what the check logs
// and reports; FailNow and SkipNow end the check.
type recorder struct {
	name    string
	logs    []string
	errs    []string
	skipped string
}

type (
	stopCheck struct{}
	skipCheck struct{}
)

func (r *recorder) Helper()                      {}
func (r *recorder) Name() string                 { return r.name }
func (r *recorder) Logf(format string, a ...any) { r.logs = append(r.logs, fmt.Sprintf(format, a...)) }
func (r *recorder) Log(a ...any)                 { r.logs = append(r.logs, fmt.Sprint(a...)) }
func (r *recorder) Errorf(format string, a ...any) {
	r.errs = append(r.errs, fmt.Sprintf(format, a...))
}
func (r *recorder) Error(a ...any)                 { r.errs = append(r.errs, fmt.Sprint(a...)) }
func (r *recorder) Fatalf(format string, a ...any) { r.Errorf(format, a...); r.FailNow() }
func (r *recorder) Fatal(a ...any)                 { r.Error(a...); r.FailNow() }
func (r *recorder) FailNow()                       { panic(stopCheck{}) }
func (r *recorder) Fail()                          { r.errs = append(r.errs, "failed") }
func (r *recorder) Failed() bool                   { return len(r.errs) > 0 }
func (r *recorder) Skipf(format string, a ...any)  { r.skipped = fmt.Sprintf(format, a...); r.SkipNow() }
func (r *recorder) Skip(a ...any)                  { r.skipped = fmt.Sprint(a...); r.SkipNow() }
func (r *recorder) SkipNow()                       { panic(skipCheck{}) }

var _ rapid.TB = (*recorder)(nil)

// property is one check of the kit as the checker runs it.
type property struct {
	name string
	run  func(samplertest.TB)
	// skip, if not empty, says why the check does not apply to a program.
	skip string
}

// notForPrograms lists the checks of the kit that test the Go value
// itself rather than what the program answers, with the reason.
var notForPrograms = map[string]string{
	"NegativeSizePanics": "a Go constructor's panic; the protocol has no negative n",
	"ZeroAllocs":         "counts the checker's own allocations",
	"BatchZeroAllocs":    "counts the checker's own allocations",
	"ConcurrentReads":    "calls from several goroutines; the protocol is one request at a time",
	"Load":               "Load is not in the protocol",
	"Probs":              "Probs is not in the protocol",
	"IndexSums":          "a Go backend's index; not in the protocol",
	"SaveRestore":        "saving and restoring a Go value; not in the protocol",
	"Clone":              "copying a Go value; not in the protocol",
	"BadState":           "restoring a Go value; not in the protocol",
}

// properties returns the checks of the kit's mode for kind on g; can is
// what a program of the weighted kind does.
func properties(g *Program, kind string, can abilities, stateN int) []property {
	var out []property
	add := func(name string, run func(samplertest.TB)) {
		out = append(out, property{name: name, run: run, skip: notForPrograms[name]})
	}
	if kind == "map" {
		newSampler := func(n int) reweighted.Sampler { return mapSampler{g.newBase(n)} }
		for _, c := range samplertest.Checks() {
			if c.Name == "StateMachine" {
				add(c.Name, func(t samplertest.TB) { rapid.Check(t, samplertest.StateMachineN(newSampler, stateN)) })
				continue
			}
			add(c.Name, func(t samplertest.TB) { c.Run(t, newSampler) })
		}
		return out
	}
	if kind == "weighted" {
		newW := func(n int) reweighted.Weighted { return g.newWeighted(n, can) }
		for _, c := range samplertest.WeightedChecks() {
			if c.Name == "StateMachine" {
				add(c.Name, func(t samplertest.TB) { rapid.Check(t, samplertest.WeightedStateMachineN(newW, stateN)) })
				continue
			}
			add(c.Name, func(t samplertest.TB) { c.Run(t, newW) })
		}
		return out
	}
	newDist := func(n int) reweighted.Distribution { return lawSampler{g.newBase(n)} }
	for _, c := range samplertest.LawChecks() {
		if c.Name == "StateMachine" {
			add(c.Name, func(t samplertest.TB) { rapid.Check(t, samplertest.LawStateMachineN(newDist, stateN)) })
			continue
		}
		add(c.Name, func(t samplertest.TB) { c.Run(t, newDist) })
	}
	return out
}

// result is the outcome of one property.
type result struct {
	name     string
	status   string // PASS, FAIL, SKIP or NOT RUN
	detail   []string
	requests int
	took     time.Duration
	protocol *ProtocolError
}

// runProperty runs one property on g and resets g afterwards.
func runProperty(g *Program, p property) (res result) {
	res = result{name: p.name}
	if p.skip != "" {
		res.status, res.detail = "SKIP", []string{p.skip}
		return res
	}
	r := &recorder{name: p.name}
	start, before := time.Now(), g.count
	if g.status != nil {
		last := start
		g.progress = func() {
			if now := time.Now(); now.Sub(last) >= progressEvery {
				last = now
				fmt.Fprintf(g.status, "samplercheck: %s running, %v, %d requests\n", p.name, now.Sub(start).Round(time.Second), g.count-before)
			}
		}
		defer func() { g.progress = nil }()
	}
	var panicked any
	func() {
		defer func() { panicked = recover() }()
		p.run(r)
	}()
	res.took, res.requests = time.Since(start), g.count-before
	defer func() {
		if g.broken != nil {
			g.reset()
		}
		g.recent = nil
	}()
	switch x := panicked.(type) {
	case nil, stopCheck:
	case skipCheck:
		if len(r.errs) == 0 {
			res.status, res.detail = "SKIP", []string{r.skipped}
			return res
		}
	case *ProtocolError:
		r.errs = append(r.errs, x.Error())
	default:
		r.errs = append(r.errs, fmt.Sprint("panic: ", x))
	}
	if g.broken != nil {
		// Whatever the check made of it, the program broke the protocol:
		// that is the failure to report. The lines after the first (the
		// end of a crashed program's standard error) are indented, and
		// printed once.
		res.status, res.protocol = "FAIL", g.broken
		res.detail = append(protocolLines(g.broken), recentLines(g)...)
		return res
	}
	if len(r.errs) == 0 {
		res.status = "PASS"
		res.detail = r.logs
		return res
	}
	res.status = "FAIL"
	for _, e := range r.errs {
		res.detail = append(res.detail, cleanRapid(e)...)
	}
	if len(r.logs) > 0 {
		res.detail = append(res.detail, "the smallest failing case rapid found, as it drew it:")
		var lines []string
		for _, l := range r.logs {
			if !strings.HasPrefix(l, "[rapid] trying") {
				lines = append(lines, cleanRapid("  "+l)...)
			}
		}
		res.detail = append(res.detail, collapse(lines)...)
	}
	res.detail = append(res.detail, recentLines(g)...)
	return res
}

// protocolLines is the report of a protocol error: its first line, then
// the rest (the end of a crashed program's standard error, its traceback)
// indented.
func protocolLines(e *ProtocolError) []string {
	lines := strings.Split("the program broke the protocol: "+e.Error(), "\n")
	for k := 1; k < len(lines); k++ {
		lines[k] = "  | " + lines[k]
	}
	return lines
}

// progressEvery is how often a property that runs long reports that it
// is running.
var progressEvery = 5 * time.Second

// recentLines lists the last exchanges with the program.
func recentLines(g *Program) []string {
	if len(g.recent) == 0 {
		return nil
	}
	out := []string{"the last requests before the failure, and the answers:"}
	for _, e := range g.recent {
		out = append(out, "  → "+e.req, "  ← "+e.resp)
	}
	return out
}

// goRun matches rapid's advice on rerunning a failed go test, which does
// not apply to the checker: its -seed flag replays a run.
var goRun = regexp.MustCompile(`To (try to )?reproduce, specify -run=.*`)

// cleanRapid splits a message into lines, without rapid's go test advice
// or the checker's own stack in testify's Error Trace and Test lines.
func cleanRapid(msg string) []string {
	var out []string
	trace := false
	for _, l := range strings.Split(goRun.ReplaceAllString(msg, ""), "\n") {
		switch t := strings.TrimSpace(l); {
		case strings.HasPrefix(t, "Error Trace:"):
			trace = true
			continue
		case strings.HasPrefix(t, "Error:"):
			trace = false
		case strings.HasPrefix(t, "Test:"):
			continue
		}
		if !trace && strings.TrimSpace(l) != "" {
			out = append(out, strings.ReplaceAll(l, "\t", "  "))
		}
	}
	return out
}

// maxDetail is the longest line of a report: the kit's messages can hold
// whole snapshots of a sampler, whose diff follows them.
const maxDetail = 600

// report prints a result; verbose prints the logs of a pass too.
func (res result) report(w io.Writer, verbose bool) {
	switch res.status {
	case "PASS":
		fmt.Fprintf(w, "PASS     %s (%v, %d requests)\n", res.name, res.took.Round(time.Millisecond), res.requests)
		if !verbose {
			return
		}
	case "FAIL":
		fmt.Fprintf(w, "FAIL     %s (%v, %d requests)\n", res.name, res.took.Round(time.Millisecond), res.requests)
	default:
		fmt.Fprintf(w, "%-8s %s\n", res.status, res.name)
	}
	for _, d := range res.detail {
		if len(d) > maxDetail {
			d = d[:maxDetail] + "…"
		}
		fmt.Fprintf(w, "         %s\n", d)
	}
}

// errTimeout stops a run: a program that hangs would make every later
// property wait out the timeout too.
var errTimeout = errors.New("the program stopped answering")

// collapse writes a run of equal lines once, with its count.
func collapse(lines []string) []string {
	var out []string
	for k := 0; k < len(lines); {
		j := k + 1
		for j < len(lines) && lines[j] == lines[k] {
			j++
		}
		if j-k > 1 {
			out = append(out, fmt.Sprintf("%s (%d times)", lines[k], j-k))
		} else {
			out = append(out, lines[k])
		}
		k = j
	}
	return out
}
