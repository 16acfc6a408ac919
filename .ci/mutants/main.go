// Command mutants runs a sampled mutation pass: it applies operator mutants
// (the kinds gremlins makes: + and −, * and /, comparison boundaries, == and
// !=, && and ||, ++ and −−, a dropped unary minus) one at a time to the
// given source files, through go's -overlay so the work tree is never
// written, and judges each by `go test` of the mutated package and of every
// package matched by -judges whose tests depend on it, in that order,
// stopping at the first that fails. A mutant survives if they all pass; one
// that does not compile is not counted and another is drawn in its place.
//
//	go run ./.ci/mutants -n 80 -seed 1 -judges "./internal/backends ./driver" driver/*.go btree/*.go
//
// The sample is a seeded shuffle of every mutant of the files; -list prints
// it, -only judges the mutants named as printed, and -testflags passes
// flags such as -rapid.checks=20 to the test binaries that take them, for a
// quicker first pass. Each package's tests run under nice and a time limit;
// an endless loop is killed with its test binaries (timeout signals its
// whole process group) and counts as killed. Only one mutant runs at a time.
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

var (
	skip  int
	only  []string
	extra []string
	// takesFlags says which test binaries link rapid, and so accept
	// its flags.
	takesFlags = map[string]bool{}
)

// mutant is one operator replaced at one position of one file.
type mutant struct {
	file      string
	off       int // byte offset of the operator
	old, new  string
	line, col int
}

func (m mutant) String() string {
	newTok := m.new
	if newTok == "" {
		newTok = "(dropped)"
	}
	return fmt.Sprintf("%s:%d:%d %s → %s", m.file, m.line, m.col, m.old, newTok)
}

// swaps lists the replacements of each binary, assignment and inc/dec
// operator: arithmetic inverted, comparison boundaries moved, equality
// negated, logic inverted.
var swaps = map[token.Token][]token.Token{
	token.ADD: {token.SUB}, token.SUB: {token.ADD},
	token.MUL: {token.QUO}, token.QUO: {token.MUL},
	token.REM: {token.MUL},
	token.LSS: {token.LEQ, token.GEQ}, token.LEQ: {token.LSS, token.GTR},
	token.GTR: {token.GEQ, token.LEQ}, token.GEQ: {token.GTR, token.LSS},
	token.EQL: {token.NEQ}, token.NEQ: {token.EQL},
	token.LAND: {token.LOR}, token.LOR: {token.LAND},
	token.ADD_ASSIGN: {token.SUB_ASSIGN}, token.SUB_ASSIGN: {token.ADD_ASSIGN},
	token.MUL_ASSIGN: {token.QUO_ASSIGN}, token.QUO_ASSIGN: {token.MUL_ASSIGN},
	token.INC: {token.DEC}, token.DEC: {token.INC},
}

// sites returns every mutant of file.
func sites(file string) ([]mutant, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, file, nil, parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	var ms []mutant
	add := func(pos token.Pos, old token.Token, news ...string) {
		p := fset.Position(pos)
		for _, n := range news {
			ms = append(ms, mutant{file: file, off: p.Offset, old: old.String(), new: n, line: p.Line, col: p.Column})
		}
	}
	names := func(ts []token.Token) []string {
		var s []string
		for _, t := range ts {
			s = append(s, t.String())
		}
		return s
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.BinaryExpr:
			add(n.OpPos, n.Op, names(swaps[n.Op])...)
		case *ast.AssignStmt:
			add(n.TokPos, n.Tok, names(swaps[n.Tok])...)
		case *ast.IncDecStmt:
			add(n.TokPos, n.Tok, names(swaps[n.Tok])...)
		case *ast.UnaryExpr:
			if n.Op == token.SUB {
				add(n.OpPos, n.Op, "")
			}
		}
		return true
	})
	return ms, nil
}

// apply returns src with m applied.
func apply(src []byte, m mutant) []byte {
	if !bytes.HasPrefix(src[m.off:], []byte(m.old)) {
		panic(fmt.Sprintf("%v: no %q at offset %d", m, m.old, m.off))
	}
	out := slices.Clone(src[:m.off])
	out = append(out, m.new...)
	return append(out, src[m.off+len(m.old):]...)
}

// judges returns pkg and the packages (import paths) among cands whose
// tests depend on it, pkg first, then in the order of cands.
func judges(pkg string, cands []string) ([]string, error) {
	js := []string{pkg}
	for _, c := range append([]string{pkg}, cands...) {
		out, err := exec.Command("go", "list", "-test", "-deps", c).Output()
		if err != nil {
			return nil, fmt.Errorf("go list %s: %w", c, err)
		}
		deps := strings.Fields(string(out))
		takesFlags[c] = slices.Contains(deps, "pgregory.net/rapid")
		if c != pkg && slices.Contains(deps, pkg) && !slices.Contains(js, c) {
			js = append(js, c)
		}
	}
	return js, nil
}

func main() {
	n := flag.Int("n", 100, "number of compiling mutants to judge")
	seed := flag.Uint64("seed", 1, "seed of the sample")
	limit := flag.Duration("timeout", 6*time.Minute, "time limit of one mutant's tests")
	pkgs := flag.String("judges", "./... ", "space-separated package patterns whose tests may judge a mutant")
	list := flag.Bool("list", false, "print the sample without running it")
	flag.Func("only", "judge only this mutant, as printed (file:line:col old → new); repeatable", func(v string) error {
		only = append(only, v)
		return nil
	})
	flag.IntVar(&skip, "skip", 0, "skip the first compiling mutants of the sample (to resume a run)")
	testFlags := flag.String("testflags", "", "space-separated flags for the test binaries, such as -rapid.checks=20 for a quick first pass")
	flag.Parse()
	extra = strings.Fields(*testFlags)
	if err := run(*n, *seed, *limit, strings.Fields(*pkgs), flag.Args(), *list); err != nil {
		fmt.Fprintln(os.Stderr, "mutants:", err)
		os.Exit(1)
	}
}

// failFiles returns rapid's fail files under root (testdata/rapid/…/*.fail).
func failFiles(root string) []string {
	var ff []string
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".fail") && strings.Contains(filepath.ToSlash(p), "testdata/rapid/") {
			ff = append(ff, p)
		}
		return nil
	})
	return ff
}

func run(n int, seed uint64, limit time.Duration, patterns, files []string, list bool) error {
	var all []mutant
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		ms, err := sites(f)
		if err != nil {
			return err
		}
		all = append(all, ms...)
	}
	rng := rand.New(rand.NewPCG(seed, 0))
	rng.Shuffle(len(all), func(i, j int) { all[i], all[j] = all[j], all[i] })
	if len(only) > 0 {
		all = slices.DeleteFunc(all, func(m mutant) bool { return !slices.Contains(only, m.String()) })
	}
	fmt.Printf("%d mutants in %d files; sampling %d (seed %d)\n", len(all), len(files), n, seed)
	if list {
		for _, m := range all[:min(n, len(all))] {
			fmt.Println(m)
		}
		return nil
	}
	if ff := failFiles("."); len(ff) > 0 {
		return fmt.Errorf("rapid replays its fail files in every mutant's tests, and a mutant killed by one is not killed by the suite; remove them first: %s", strings.Join(ff, " "))
	}
	out, err := exec.Command("go", append([]string{"list"}, patterns...)...).Output()
	if err != nil {
		return fmt.Errorf("go list: %w", err)
	}
	cands := strings.Fields(string(out))
	tmp, err := os.MkdirTemp("", "mutants")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	judgesOf := map[string][]string{}
	var killed, survived, timedOut, skipped int
	for _, m := range all {
		if killed+survived >= n {
			break
		}
		dir := filepath.Dir(m.file)
		pkgOut, err := exec.Command("go", "list", "./"+dir).Output()
		if err != nil {
			return fmt.Errorf("go list ./%s: %w", dir, err)
		}
		pkg := strings.TrimSpace(string(pkgOut))
		js, ok := judgesOf[pkg]
		if !ok {
			if js, err = judges(pkg, cands); err != nil {
				return err
			}
			judgesOf[pkg] = js
		}
		src, err := os.ReadFile(m.file)
		if err != nil {
			return err
		}
		abs, err := filepath.Abs(m.file)
		if err != nil {
			return err
		}
		mutated := filepath.Join(tmp, "mutant.go")
		overlay := filepath.Join(tmp, "overlay.json")
		if err := os.WriteFile(mutated, apply(src, m), 0o644); err != nil {
			return err
		}
		ov, _ := json.Marshal(map[string]any{"Replace": map[string]string{abs: mutated}})
		if err := os.WriteFile(overlay, ov, 0o644); err != nil {
			return err
		}
		// Build the package first: a mutant that does not type-check (a + on
		// strings turned into −) is not a mutant.
		build := exec.Command("nice", "-n", "19", "go", "build", "-overlay", overlay, "./"+dir)
		if err := build.Run(); err != nil {
			skipped++
			continue
		}
		if skip > 0 {
			skip--
			continue
		}
		start := time.Now()
		verdict, msg := judge(overlay, limit, js)
		switch verdict {
		case "SURVIVED":
			survived++
		case "KILLED (time limit)":
			killed++
			timedOut++
		default:
			killed++
		}
		by := ""
		if verdict == "KILLED" {
			by = " by " + failing(msg)
		}
		fmt.Printf("%-20s %v (%.0fs)%s\n", verdict, m, time.Since(start).Seconds(), by)
	}
	fmt.Printf("judged %d: killed %d (%d by the time limit), survived %d; %d did not compile\n",
		killed+survived, killed, timedOut, survived, skipped)
	return nil
}

// judge runs the tests of each package of js in turn, stopping at the first
// that fails, so that a killed mutant costs little.
func judge(overlay string, limit time.Duration, js []string) (verdict string, out []byte) {
	for _, pkg := range js {
		args := []string{"-n", "19", "go", "test", "-overlay", overlay, "-count=1", "-failfast",
			"-timeout", limit.String(), pkg}
		if takesFlags[pkg] {
			// A fail file that one mutant's failure writes would be
			// replayed for every later mutant (rapid replays those under
			// testdata/rapid first), which could then be killed by an
			// input the suite itself never draws.
			args = append(append(args, "-args", "-rapid.nofailfile"), extra...)
		}
		// go test's own -timeout makes a looping test binary panic; timeout
		// is the backstop, and kills go and the binaries it started.
		hard := fmt.Sprint(int((limit + 30*time.Second).Seconds()))
		msg, err := exec.Command("timeout", append([]string{"-k", "10", hard, "nice"}, args...)...).CombinedOutput()
		var ee *exec.ExitError
		switch {
		case err == nil:
			continue
		case errors.As(err, &ee) && ee.ExitCode() == 124, bytes.Contains(msg, []byte("test timed out")):
			return "KILLED (time limit)", msg
		default:
			return "KILLED", msg
		}
	}
	return "SURVIVED", nil
}

// failing returns the first failing tests named in go test's output.
func failing(out []byte) string {
	var names []string
	for _, l := range strings.Split(string(out), "\n") {
		l = strings.TrimSpace(l)
		if name, ok := strings.CutPrefix(l, "--- FAIL: "); ok {
			names = append(names, strings.Fields(name)[0])
		} else if strings.HasPrefix(l, "panic:") && len(names) == 0 {
			names = append(names, "panic")
		}
		if len(names) == 3 {
			break
		}
	}
	if len(names) == 0 {
		return "failure"
	}
	return strings.Join(names, ", ")
}
